"""Cookie header helpers for reverse proxies."""

from .cookies import (
    DEFAULT_MAX_HEADER_BYTES,
    build_cookie_headers,
    format_cookie_header,
    parse_cookie_header,
)

__all__ = [
    "DEFAULT_MAX_HEADER_BYTES",
    "build_cookie_headers",
    "format_cookie_header",
    "parse_cookie_header",
]
