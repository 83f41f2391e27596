"""Read configuration layers and combine them, lowest priority first."""

import os
import tomllib


def read_layer(path):
    """Parse one TOML configuration file."""
    with open(path, "rb") as f:
        return tomllib.load(f)


def load(layers, schema):
    """Combine ``(name, table)`` layers, later ones winning, and validate the result.

    ``schema`` is a ``schema.Section``; validation errors are ``ValueError``.
    """
    merged = {}
    for _name, data in layers:
        merged.update(data)
    return schema.validate(merged)


def load_files(paths, schema):
    """Load the TOML files among ``paths`` that exist (``~`` is expanded), in order."""
    layers = []
    for path in paths:
        path = os.path.expanduser(path)
        if os.path.exists(path):
            layers.append((path, read_layer(path)))
    return load(layers, schema)
