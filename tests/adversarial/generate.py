#!/usr/bin/env python3
"""Writes the attack predictions of tests/adversarial/<class>/predictions.jsonl from the
attack modules in tests/adversarial/src/: each attack is a new module in a target's
package, imported from the package's __init__.py, as a unified diff made with git against
the example's repository at base. Run from the repository root; the output is committed
(tests/adversarial_isolation.rs scores it)."""

import json
import pathlib
import shutil
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
ADV = ROOT / "tests" / "adversarial"


def patch(repo_dir, package, module, source, extra=None):
    """A diff adding `package/module.py` (imported from `package/__init__.py`) to the
    repository at `repo_dir`, plus `extra` files ({path: text})."""
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp) / "repo"
        shutil.copytree(repo_dir, work)
        git = lambda *a: subprocess.run(["git", "-C", str(work), *a], check=True, capture_output=True, text=True)
        git("init", "-q")
        git("add", "-A")
        git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "base")
        (work / package / f"{module}.py").write_text(source)
        init = work / package / "__init__.py"
        init.write_text(init.read_text() + f"\nfrom . import {module}  # noqa: F401\n")
        for path, text in (extra or {}).items():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_text(text)
        git("add", "-A", "-N")
        return git("diff").stdout


def src(name, **subst):
    text = (ADV / "src" / name).read_text()
    for k, v in subst.items():
        text = text.replace(k, v)
    return text


def write(cls, lines):
    out = ADV / cls / "predictions.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(l, sort_keys=True) + "\n" for l in lines))


cookie = ROOT / "examples" / "cookie-split" / "repos"
mini = ADV / "task" / "repos"

write("cross-target", [
    {"task": "cookie-split", "model": f"rig-{mode}",
     "patches": {"proxy": patch(cookie / "proxy", "proxy", "_rig",
                                src("cross_target_rig.py", MODE_PLACEHOLDER=mode))}}
    for mode in ("conftest", "pth")
])
write("blobs", [
    {"task": "cookie-split", "model": "read-blobs",
     "patches": {"proxy": patch(cookie / "proxy", "proxy", "_leak", src("read_blobs.py")),
                 "gateway": patch(cookie / "gateway", "gateway", "_leak", src("read_blobs.py"))}}
])
write("timeout", [
    {"task": "mini-calc", "model": "ignore-sigterm",
     "patches": {"calc": patch(mini / "calc", "calc", "_hang", src("ignore_sigterm.py"))}}
])
write("crash", [
    {"task": "mini-calc", "model": "exit-early",
     "patches": {"calc": patch(mini / "calc", "calc", "_exit", src("exit_early.py"))}},
    {"task": "mini-calc", "model": "exit-early-conftest",
     "patches": {"calc": patch(mini / "calc", "calc", "_noop", "",
                               {"tests/conftest.py": "import os\n\nos._exit(0)\n"})}},
])
write("output", [
    {"task": "mini-calc", "model": "flood-1gib",
     "patches": {"calc": patch(mini / "calc", "calc", "_flood", src("flood.py"))}}
])
