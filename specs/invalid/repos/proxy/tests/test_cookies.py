import pytest

from proxy.cookies import build_cookie_headers, format_cookie_header, parse_cookie_header


def test_parse_simple():
    assert parse_cookie_header("a=1; b=2") == {"a": "1", "b": "2"}


def test_parse_skips_malformed_pairs():
    assert parse_cookie_header("a=1; junk; =x; b=2;") == {"a": "1", "b": "2"}


def test_format_roundtrip():
    header = "session=abc; theme=dark; lang=en"
    assert format_cookie_header(parse_cookie_header(header)) == header


def test_build_empty_jar_needs_no_header():
    assert build_cookie_headers({}) == []


def test_build_small_jar_is_one_header():
    assert build_cookie_headers({"a": "1", "b": "2"}) == ["a=1; b=2"]
