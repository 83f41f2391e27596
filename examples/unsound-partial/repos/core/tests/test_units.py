import pytest

from core.units import format_size, parse_size


def test_plain_bytes():
    assert parse_size("512") == 512
    assert parse_size("512B") == 512


def test_decimal_units():
    assert parse_size("10kB") == 10_000
    assert parse_size("1.5 GB") == 1_500_000_000


def test_garbage_is_rejected():
    with pytest.raises(ValueError):
        parse_size("ten megs")


def test_format_size():
    assert format_size(1_500_000) == "1.5MB"
    assert format_size(12) == "12B"
