import io

import pytest

from cli.main import main


def make_files(tmp_path, sizes):
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)


def run(argv):
    out = io.StringIO()
    assert main(argv, out=out) == 0
    return out.getvalue()


def test_lists_files_above_decimal_limit(tmp_path):
    make_files(tmp_path, {"big.bin": 3000, "small.bin": 10})
    output = run(["--limit", "2kB", str(tmp_path)])
    assert "big.bin" in output
    assert "small.bin" not in output


def test_invalid_limit_exits_with_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--limit", "lots", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "invalid size" in capsys.readouterr().err
