"""Python client of the Acme notes API."""

from .notes import ApiError, NotesClient, http_transport

__all__ = ["ApiError", "NotesClient", "http_transport"]
