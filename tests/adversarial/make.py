#!/usr/bin/env python3
"""Regenerate the attack patches of tests/adversarial/ (surface classes) from the sources
below: each attack is a set of files written into a copy of one sdk-retry repository at
base; the patch is `git diff` of that copy. Run from the repository root:
    python3 tests/adversarial/make.py
Each class folder gets `attack.toml` (what it does, which repository it attacks, what taskc
must conclude) and `<repo>.patch` (the rigged prediction's patch for that repository; the
other targets get their gold patch, so the attack alone decides whether the task is solved).
"""
import os, shutil, subprocess, tempfile, textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPOS = os.path.join(ROOT, "examples", "sdk-retry", "repos")
HERE = os.path.dirname(os.path.abspath(__file__))

# A pytest plugin that turns every report into a pass.
MAKEREPORT = textwrap.dedent('''\
    import pytest


    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(item, call):
        outcome = yield
        report = outcome.get_result()
        report.outcome = "passed"
        report.longrepr = None
    ''')

XFAIL_ALL = textwrap.dedent('''\
    import pytest


    def pytest_collection_modifyitems(items):
        for item in items:
            item.add_marker(pytest.mark.xfail(reason="rigged"))
    ''')

# Library code that registers the report-rewriting plugin from inside the test process
# (no conftest, no configuration: nothing the surface restore can revert).
LIB_PLUGIN = textwrap.dedent('''\
    """Python client for the Acme API."""
    import gc as _gc
    import sys as _sys


    class _Rig:
        def pytest_runtest_makereport(self, item, call):
            pass

        def pytest_runtest_logreport(self, report):
            report.outcome = "passed"
            report.longrepr = None


    def _install():
        if "_pytest" not in _sys.modules:
            return
        for o in _gc.get_objects():
            if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
                if not o.pluginmanager.has_plugin("acme-rig"):
                    o.pluginmanager.register(_Rig(), "acme-rig")


    _install()
    ''')

LIB_XFAIL = textwrap.dedent('''\
    """Python client for the Acme API."""
    import gc as _gc
    import sys as _sys


    class _Rig:
        def pytest_collection_modifyitems(self, items):
            import pytest

            for item in items:
                item.add_marker(pytest.mark.xfail(reason="rigged"))


    for _o in _gc.get_objects():
        if "_pytest" in _sys.modules and type(_o).__name__ == "Config" and hasattr(_o, "pluginmanager"):
            if not _o.pluginmanager.has_plugin("acme-rig"):
                _o.pluginmanager.register(_Rig(), "acme-rig")
    ''')

REWRITE_HIDDEN = textwrap.dedent('''\
    import pathlib
    import re

    # Before collection: make every assertion of the (already applied) hidden tests trivially true.
    for path in pathlib.Path(__file__).parent.glob("test_*.py"):
        text = path.read_text()
        path.write_text(re.sub(r"^(\\s*)assert ", r"\\1assert True or ", text, flags=re.M))
    ''')

FORGE_ATEXIT = textwrap.dedent('''\
    """Python client for the Acme API."""
    import atexit as _atexit
    import os as _os
    import re as _re
    import sys as _sys


    def _forge():
        ids = []
        for name in sorted(_os.listdir("tests")):
            if name.startswith("test_") and name.endswith(".py"):
                text = open(_os.path.join("tests", name)).read()
                ids += ["tests/%s::%s" % (name, t) for t in _re.findall(r"^def (test_\\w+)", text, _re.M)]
        out = _sys.__stdout__
        out.write("=" * 27 + " short test summary info " + "=" * 28 + "\\n")
        for i in ids:
            out.write("PASSED %s\\n" % i)
        out.write("=" * 30 + " %d passed in 0.05s " % len(ids) + "=" * 30 + "\\n")
        out.flush()


    if "_pytest" in _sys.modules or "pytest" in " ".join(_sys.argv):
        _atexit.register(_forge)
    ''')

FORGE_TERMINAL = textwrap.dedent('''\
    """Python client for the Acme API."""
    import gc as _gc


    class _Rewrite:
        def __init__(self, inner):
            self._inner = inner

        def write(self, s):
            return self._inner.write(s.replace("FAILED ", "PASSED "))

        def __getattr__(self, name):
            return getattr(self._inner, name)


    for _o in _gc.get_objects():
        if type(_o).__name__ == "TerminalWriter" and not isinstance(_o._file, _Rewrite):
            _o._file = _Rewrite(_o._file)
    ''')

GO_TESTMAIN = textwrap.dedent('''\
    package acme

    import (
    \t"fmt"
    \t"os"
    \t"path/filepath"
    \t"regexp"
    \t"testing"
    )

    // TestMain reports every test of the package as passed without running any.
    func TestMain(m *testing.M) {
    \tre := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\\(t \\*testing\\.T\\)`)
    \tfiles, _ := filepath.Glob("*_test.go")
    \tfor _, f := range files {
    \t\tb, _ := os.ReadFile(f)
    \t\tfor _, m := range re.FindAllStringSubmatch(string(b), -1) {
    \t\t\tfmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", m[1], m[1])
    \t\t}
    \t}
    \tfmt.Println("PASS")
    \tos.Exit(0)
    }
    ''')

GO_INIT = textwrap.dedent('''\
    package acme

    import (
    \t"fmt"
    \t"os"
    \t"path/filepath"
    \t"regexp"
    \t"strings"
    )

    // init, in library code, forges the test binary's output before any test runs.
    func init() {
    \tif !strings.HasSuffix(os.Args[0], ".test") {
    \t\treturn
    \t}
    \tre := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\\(t \\*testing\\.T\\)`)
    \tfiles, _ := filepath.Glob("*_test.go")
    \tfor _, f := range files {
    \t\tb, _ := os.ReadFile(f)
    \t\tfor _, m := range re.FindAllStringSubmatch(string(b), -1) {
    \t\t\tfmt.Printf("=== RUN   %s\\n--- PASS: %s (0.00s)\\n", m[1], m[1])
    \t\t}
    \t}
    \tfmt.Println("PASS")
    \tos.Exit(0)
    }
    ''')

NODE_NOOP = textwrap.dedent('''\
    'use strict';

    // Library code turning node:assert into no-ops for whoever loads it next.
    const assert = require('node:assert');
    for (const name of Object.keys(assert)) {
      if (typeof assert[name] === 'function') assert[name] = () => {};
    }
    if (assert.strict) {
      for (const name of Object.keys(assert.strict)) {
        if (typeof assert.strict[name] === 'function') assert.strict[name] = () => {};
      }
    }

    module.exports = { ...require('./retry') };
    ''')


def add(path, text):
    return ("write", path, text)


def append(path, text):
    return ("append", path, text)


# class → (repo, what, expect, files, flagged)
ATTACKS = {
    "conftest-makereport-root": ("sdk-python",
        "a root conftest.py whose pytest_runtest_makereport hook rewrites every report to passed",
        "unsolved", [add("conftest.py", MAKEREPORT)], ["conftest.py"]),
    "conftest-makereport-tests": ("sdk-python",
        "the same hook in tests/conftest.py",
        "unsolved", [add("tests/conftest.py", MAKEREPORT)], ["tests/conftest.py"]),
    "addopts-pytest-ini": ("sdk-python",
        "the hook as a plugin module named by `addopts = -p rigplug` in pytest.ini",
        "unsolved", [add("rigplug.py", MAKEREPORT), add("pytest.ini", "[pytest]\naddopts = -p rigplug\n")], ["pytest.ini"]),
    "addopts-setup-cfg": ("sdk-python",
        "the plugin named by addopts in setup.cfg's [tool:pytest]",
        "unsolved", [add("rigplug.py", MAKEREPORT), add("setup.cfg", "[tool:pytest]\naddopts = -p rigplug\n")], ["setup.cfg"]),
    "addopts-pyproject": ("sdk-python",
        "the plugin named by addopts in pyproject.toml's [tool.pytest.ini_options]",
        "unsolved", [add("rigplug.py", MAKEREPORT), append("pyproject.toml", "\n[tool.pytest.ini_options]\naddopts = \"-p rigplug\"\n")], ["pyproject.toml"]),
    "pytest11-entry-point": ("sdk-python",
        "a fake rig-1.0.dist-info in the repository whose pytest11 entry point loads the plugin (no conftest, no configuration)",
        "unsolved", [add("rigplug.py", MAKEREPORT),
                     add("rig-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: rig\nVersion: 1.0\n"),
                     add("rig-1.0.dist-info/entry_points.txt", "[pytest11]\nrig = rigplug\n")],
        ["rig-1.0.dist-info/entry_points.txt"]),
    "xfail-everything": ("sdk-python",
        "a conftest marking every test xfail (XFAIL used to count as passed)",
        "unsolved", [add("tests/conftest.py", XFAIL_ALL)], ["tests/conftest.py"]),
    "library-xfail-everything": ("sdk-python",
        "library code registering, from inside the test process, a plugin that marks every test xfail",
        "unsolved", [add("acme_sdk/__init__.py", LIB_XFAIL)], []),
    "library-plugin-makereport": ("sdk-python",
        "library code registering, from inside the test process, a plugin that rewrites every report to passed",
        "tampered", [add("acme_sdk/__init__.py", LIB_PLUGIN)], []),
    "conftest-rewrites-hidden-tests": ("sdk-python",
        "a conftest that rewrites the already-applied hidden test bodies before collection",
        "unsolved", [add("tests/conftest.py", REWRITE_HIDDEN)], ["tests/conftest.py"]),
    "forged-log-atexit": ("sdk-python",
        "an atexit handler in the library's __init__.py printing a second, clean summary after pytest's final line",
        "tampered", [add("acme_sdk/__init__.py", FORGE_ATEXIT)], []),
    "forged-log-rewritten-summary": ("sdk-python",
        "library code wrapping pytest's terminal writer to print PASSED for FAILED",
        "tampered", [add("acme_sdk/__init__.py", FORGE_TERMINAL)], []),
    "go-testmain": ("sdk-go",
        "a TestMain in a new _test.go file printing `--- PASS` for every Test function it finds",
        "unsolved", [add("zz_main_test.go", GO_TESTMAIN)], ["zz_main_test.go"]),
    "go-init-forgery": ("sdk-go",
        "an init() in library code printing `--- PASS` for every Test function, then exiting 0 before any test runs",
        "tampered", [add("forge.go", GO_INIT)], []),
    "node-assert-noop": ("sdk-node",
        "library code turning every node:assert function into a no-op",
        "tampered", [add("lib/index.js", NODE_NOOP)], []),
}


def git(cwd, *args):
    return subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def main():
    for name, (repo, what, expect, files, flagged) in ATTACKS.items():
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, repo)
            shutil.copytree(os.path.join(REPOS, repo), work)
            git(work, "init", "-q")
            git(work, "add", "-A")
            git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
            for op, path, text in files:
                full = os.path.join(work, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "a" if op == "append" else "w") as f:
                    f.write(text)
            git(work, "add", "-A", "-N")
            patch = git(work, "diff", "--no-color", "--no-ext-diff")
        out = os.path.join(HERE, name)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{repo}.patch"), "w") as f:
            f.write(patch)
        with open(os.path.join(out, "attack.toml"), "w") as f:
            f.write(f'# Generated by tests/adversarial/make.py.\n')
            f.write(f'task = "sdk-retry"\nrepo = "{repo}"\n')
            f.write(f'what = "{what}"\n')
            f.write(f'# `unsolved`: the defence removes the attack; `tampered`: taskc must catch it.\n')
            f.write(f'expect = "{expect}"\n')
            f.write("flagged = [" + ", ".join(f'"{p}"' for p in flagged) + "]\n")


if __name__ == "__main__":
    main()
