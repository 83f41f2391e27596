import pytest

from schema import Field, Section

SERVER = Section(
    {
        "name": Field(str),
        "debug": Field(bool, False),
        "db": Section({"host": Field(str, "localhost"), "port": Field(int, 5432)}),
    }
)


def test_defaults_are_filled_in():
    assert SERVER.validate({"name": "api"}) == {
        "name": "api",
        "debug": False,
        "db": {"host": "localhost", "port": 5432},
    }


def test_required_field_is_reported():
    with pytest.raises(ValueError, match="name: required"):
        SERVER.validate({})


def test_type_error_names_the_dotted_path():
    with pytest.raises(ValueError, match="db.port: expected int, got str"):
        SERVER.validate({"name": "api", "db": {"port": "5432"}})


def test_bool_is_not_an_int():
    with pytest.raises(ValueError):
        SERVER.validate({"name": "api", "db": {"port": True}})


def test_unknown_key_is_rejected():
    with pytest.raises(ValueError, match="db.user: unknown key"):
        SERVER.validate({"name": "api", "db": {"user": "x"}})
