#!/usr/bin/env python3
"""Export SWE-bench's per-repository/version install specifications for `taskc import swebench`.

Run once (it needs PyPI):  python3 scripts/export-swebench-specs.py
It downloads the `swebench` wheel (version pinned below) into a temporary folder, reads
`swebench/harness/constants/python.py` (a plain data module, executed alone), and writes
runtime/src/import/swebench/specs.json: for each repository and version, the fields the
importer uses (python, packages, pre_install, install, pip_packages, test_cmd, eval_commands).
The export is derived from SWE-bench, MIT licensed: its licence notice is kept beside it in
runtime/src/import/swebench/SWEBENCH-LICENSE.
"""

import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

VERSION = "4.1.0"
FIELDS = ["python", "packages", "pre_install", "install", "pip_packages", "test_cmd", "eval_commands"]
OUT = pathlib.Path(__file__).resolve().parent.parent / "runtime/src/import/swebench"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"swebench=={VERSION}", "--no-deps", "-d", tmp],
            check=True,
        )
        wheel = next(pathlib.Path(tmp).glob("swebench-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            source = z.read("swebench/harness/constants/python.py").decode()
            licence = next(
                (z.read(n).decode() for n in z.namelist() if n.endswith("licenses/LICENSE")), None
            )
    ns: dict = {}
    exec(compile(source, "swebench/harness/constants/python.py", "exec"), ns)
    specs = ns["MAP_REPO_VERSION_TO_SPECS_PY"]
    out = {
        "source": f"swebench {VERSION}, swebench/harness/constants/python.py (MIT licence, see SWEBENCH-LICENSE)",
        "specs": {
            repo: {
                version: {k: spec[k] for k in FIELDS if k in spec}
                for version, spec in sorted(versions.items())
            }
            for repo, versions in sorted(specs.items())
        },
    }
    (OUT / "specs.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    if licence is None:
        print("the wheel carries no licence file", file=sys.stderr)
        return 1
    (OUT / "SWEBENCH-LICENSE").write_text(
        f"runtime/src/import/swebench/specs.json is derived from SWE-bench ({VERSION}),\n"
        "distributed under the following licence:\n\n" + licence
    )
    print(f"wrote {OUT / 'specs.json'}: {sum(len(v) for v in specs.values())} repo/version specs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
