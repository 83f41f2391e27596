"""Layered configuration loading."""

from .layers import load, load_files, read_layer

__all__ = ["load", "load_files", "read_layer"]
