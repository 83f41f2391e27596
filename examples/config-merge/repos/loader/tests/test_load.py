import pytest
from schema import Field, Section

from loader import load, load_files

SCHEMA = Section(
    {
        "name": Field(str),
        "workers": Field(int, 4),
        "db": Section({"host": Field(str, "localhost"), "port": Field(int, 5432)}),
    }
)


def test_later_layer_wins():
    config = load([("defaults", {"name": "a", "workers": 2}), ("user", {"workers": 8})], SCHEMA)
    assert config["workers"] == 8
    assert config["name"] == "a"


def test_defaults_apply():
    assert load([("user", {"name": "a"})], SCHEMA)["db"] == {"host": "localhost", "port": 5432}


def test_invalid_value_is_rejected():
    with pytest.raises(ValueError):
        load([("user", {"name": "a", "workers": "many"})], SCHEMA)


def test_missing_files_are_skipped(tmp_path):
    (tmp_path / "system.toml").write_text('name = "svc"\nworkers = 3\n')
    config = load_files([tmp_path / "system.toml", tmp_path / "absent.toml"], SCHEMA)
    assert config["workers"] == 3
