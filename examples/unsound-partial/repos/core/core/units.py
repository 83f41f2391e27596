"""Byte sizes: parsing ``"10MB"`` and formatting ``10_000_000``."""

import re

# SI (decimal) multipliers.
UNITS = {"": 1, "B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


def parse_size(text):
    """Parse a size such as ``"512"``, ``"10kB"`` or ``"1.5 GB"`` into a number of bytes.

    Raises ``ValueError`` for anything else.
    """
    match = _SIZE.match(text)
    if not match or match.group(2) not in UNITS:
        raise ValueError(f"invalid size {text!r}: expected a number and one of {', '.join(u for u in UNITS if u)}")
    return int(float(match.group(1)) * UNITS[match.group(2)])


def format_size(n):
    """Format a number of bytes with the largest SI unit that keeps it >= 1."""
    for unit in ("TB", "GB", "MB", "kB"):
        if n >= UNITS[unit]:
            return f"{n / UNITS[unit]:.1f}{unit}"
    return f"{n}B"
