"""Rewrite client request headers for the upstream."""

from proxy.cookies import format_cookie_header, header_size, parse_cookie_header

# RFC 9110, section 7.6.1: connection-specific headers are not forwarded.
HOP_BY_HOP = frozenset(
    ["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"]
)


class HeaderTooLarge(Exception):
    """The request cannot be forwarded: answer 431 Request Header Fields Too Large."""


def upstream_headers(headers, config):
    """Return the ``(name, value)`` headers to send upstream for a client request.

    Hop-by-hop headers are dropped and every ``Cookie`` header is merged into
    one ``Cookie`` header placed after the other headers.
    """
    forwarded = []
    jar = {}
    for name, value in headers:
        lowered = name.lower()
        if lowered in HOP_BY_HOP:
            continue
        if lowered == "cookie":
            jar.update(parse_cookie_header(value))
            continue
        forwarded.append((name, value))
    if jar:
        value = format_cookie_header(jar)
        if header_size(value) > config.max_header_bytes:
            raise HeaderTooLarge(f"Cookie header of {header_size(value)} bytes")
        forwarded.append(("Cookie", value))
    return forwarded
