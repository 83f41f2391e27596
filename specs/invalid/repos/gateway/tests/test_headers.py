import pytest

from gateway import GatewayConfig, HeaderTooLarge, upstream_headers

CONFIG = GatewayConfig(upstream="http://backend:8080")


def test_hop_by_hop_headers_are_dropped():
    out = upstream_headers([("Host", "x"), ("Connection", "close"), ("TE", "trailers")], CONFIG)
    assert out == [("Host", "x")]


def test_cookie_headers_are_merged():
    out = upstream_headers([("Cookie", "a=1"), ("Accept", "*/*"), ("cookie", "b=2")], CONFIG)
    assert out == [("Accept", "*/*"), ("Cookie", "a=1; b=2")]


def test_single_oversized_cookie_is_rejected():
    config = GatewayConfig(upstream="http://backend:8080", max_header_bytes=50)
    with pytest.raises(HeaderTooLarge):
        upstream_headers([("Cookie", "big=" + "x" * 100)], config)
