"""Declarative schemas for configuration tables."""

from .core import REQUIRED, Field, Section

__all__ = ["REQUIRED", "Field", "Section"]
