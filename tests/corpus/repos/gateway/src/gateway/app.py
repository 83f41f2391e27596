"""The gateway: forwards requests upstream."""

from proxy.cookies import encode, split_header


def parse_cookies(header):
    return dict(p.split("=", 1) for p in header.split("; ") if p)


def forward(request, upstream):
    headers = request.headers.copy()
    return upstream.send(request.method, request.path, headers)
