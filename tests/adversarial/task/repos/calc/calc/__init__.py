"""A tiny calculator: the target of taskc's adversarial tests (tests/adversarial/)."""

from .ops import add, sub

__all__ = ["add", "sub"]
