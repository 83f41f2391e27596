#!/usr/bin/env python3
"""Time SWE-bench's own pytest log parser on a log file, for `cargo bench --bench parsers`.

Usage: bench-swebench-parser.py LOG [--repeat N]

Creates a virtualenv at <target>/swebench-venv and `pip install swebench` into it
on first use (nothing of swebench is committed), then times only
`swebench.harness.log_parsers.python.parse_log_pytest(log, test_spec)` on the
already-read text, best of N runs. Prints one JSON line:
{"mb_per_s": ..., "seconds": ..., "tests": ..., "bytes": ..., "swebench": "<version>"}.
On failure prints {"error": "..."} and exits 1.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
VENV = TARGET / "swebench-venv"
PYTHON = VENV / "bin" / "python"


def fail(message: str) -> None:
    print(json.dumps({"error": message}))
    sys.exit(1)


def ensure_venv() -> None:
    if PYTHON.exists():
        probe = subprocess.run(
            [str(PYTHON), "-c", "import swebench.harness.log_parsers.python"],
            capture_output=True,
        )
        if probe.returncode == 0:
            return
    try:
        if not PYTHON.exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(PYTHON), "-m", "pip", "install", "--quiet", "swebench"],
            check=True,
            capture_output=True,
            timeout=900,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
        stderr = getattr(err, "stderr", b"") or b""
        tail = stderr.decode(errors="replace").strip().splitlines()[-1:] or [str(err)]
        fail(f"could not install swebench into {VENV}: {tail[0]}")


def measure(log_path: str, repeat: int) -> None:
    try:
        from importlib.metadata import version

        from swebench.harness.log_parsers.python import parse_log_pytest
    except ImportError as err:
        fail(f"swebench is not importable: {err}")
    data = Path(log_path).read_bytes()
    text = data.decode("utf-8", errors="replace")
    best = float("inf")
    tests = 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = parse_log_pytest(text, None)
        best = min(best, time.perf_counter() - start)
        tests = len(result)
    print(
        json.dumps(
            {
                "mb_per_s": len(data) / 1e6 / best,
                "seconds": best,
                "tests": tests,
                "bytes": len(data),
                "swebench": version("swebench"),
            }
        )
    )


def main() -> None:
    args = sys.argv[1:]
    if not args:
        fail("usage: bench-swebench-parser.py LOG [--repeat N]")
    repeat = 3
    if "--repeat" in args:
        at = args.index("--repeat")
        repeat = int(args[at + 1])
        del args[at : at + 2]
    if os.environ.get("TASKC_SWEBENCH_INNER") == "1":
        measure(args[0], repeat)
        return
    ensure_venv()
    env = dict(os.environ, TASKC_SWEBENCH_INNER="1")
    inner = subprocess.run([str(PYTHON), __file__, args[0], "--repeat", str(repeat)], env=env)
    sys.exit(inner.returncode)


if __name__ == "__main__":
    main()
