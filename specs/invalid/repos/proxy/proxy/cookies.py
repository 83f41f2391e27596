"""Parsing and building of HTTP ``Cookie`` request headers (RFC 6265, section 5.4)."""

# Most servers reject a single header line longer than this.
DEFAULT_MAX_HEADER_BYTES = 4096

SEPARATOR = "; "


def parse_cookie_header(value):
    """Parse a ``Cookie`` header value into an ordered ``{name: value}`` dict.

    Pairs without ``=`` or with an empty name are skipped; a later duplicate
    name overrides an earlier one but keeps its first position.
    """
    cookies = {}
    for part in value.split(";"):
        name, sep, val = part.strip().partition("=")
        name = name.strip()
        if not sep or not name:
            continue
        cookies[name] = val.strip()
    return cookies


def format_cookie_header(cookies):
    """Format a ``{name: value}`` mapping as one ``Cookie`` header value."""
    return SEPARATOR.join(f"{name}={value}" for name, value in cookies.items())


def header_size(value):
    """Size in bytes of a header value as sent on the wire (UTF-8)."""
    return len(value.encode("utf-8"))


def build_cookie_headers(cookies, max_bytes=DEFAULT_MAX_HEADER_BYTES):
    """Return the ``Cookie`` header values that carry ``cookies``.

    Each value is at most ``max_bytes`` bytes long. An empty jar needs no
    header. Raises ``ValueError`` when the cookies do not fit.
    """
    if not cookies:
        return []
    value = format_cookie_header(cookies)
    size = header_size(value)
    if size > max_bytes:
        raise ValueError(f"cookie header of {size} bytes exceeds the limit of {max_bytes} bytes")
    return [value]
