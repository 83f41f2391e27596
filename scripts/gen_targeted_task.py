#!/usr/bin/env python3
"""Generate a joint task for targeted verification: a chain of repositories r0 <- r1 <- ...
(r{i} `uses` r{i-1}), each with a large pass-to-pass suite and a few fail-to-pass tests
that pass only when every gold patch of its closure is applied (docs/performance.md,
"Targeted verification"; tests/verify_select_ids.rs).

usage: gen_targeted_task.py OUT [--repos K] [--tests N] [--f2p F] [--cost-ms C]
                            [--lang python|go|tap] [--awkward] [--template]
                            [--verify joint|per-repo] [--gold-params]

- `--tests N` test cases per repository, `--f2p F` of them fail-to-pass (added by the
  hidden test patch); the other N - F exist at base and pass everywhere (P2P).
- `--cost-ms C`: each test case sleeps C ms (a realistic per-test cost).
- `--awkward`: F2P test ids with spaces, brackets, quotes, backslashes, tabs, newlines and
  unicode (pytest parametrised ids; Go subtests, which go test rewrites: spaces -> `_`,
  duplicates `#01`, regexp metacharacters).
- `--lang tap`: a small TAP runner of the repository's (`run_tap.py`, parser `tap`), which
  taskc cannot narrow itself; with `--template` the spec gives it a `select "… {ids} …"`
  template (the runner keeps the test names it is given as arguments), without it the
  proper subsets run the full suite.
- `--gold-params`: the F2P tests of each repository that has others in its closure check
  only those others, and one more test is parametrised by a list in the repository's own
  source that its gold patch extends (pytest `@pytest.mark.parametrize("v", m.PARAMS)`; a
  Go table of `t.Run` subtests): those F2P ids exist only with that repository's gold
  patch, so a configuration without it does not collect them (issue 22; the pypa shape).
- The spec is OUT/targeted-gen.task; its F2P ids are in OUT/f2p.json (per repository, as
  the parser reports them), so a test can compare them with what verify derived.
"""

import argparse
import json
import os
import sys

# Parametrised ids as written in the test source (Python string literals) and the node id
# pytest reports for each (non-ASCII and control characters escaped, as pytest prints).
PY_AWKWARD = [
    ('"a b"', "a b"),
    ("'q\"uote'", 'q"uote'),
    ('"it\'s"', "it's"),
    ('"new\\nline"', "new\\nline"),
    ('"tab\\there"', "tab\\there"),
    ('"x[1]"', "x[1]"),
    ('"a - b"', "a - b"),
    ('"a::b"', "a::b"),
    ('"back\\\\slash"', "back\\\\slash"),
    ('"\\u00fcn\\u00efcode"', "\\xfcn\\xefcode"),
    ('"*?(a|b)$"', "*?(a|b)$"),
]

# Go subtest names as written (Go string literals) and as go test reports them.
GO_AWKWARD = [
    ('"a b"', "a_b"),
    ('"a_b"', "a_b#01"),
    ('"q\\"uote"', 'q"uote'),
    ('"new\\nline"', "new_line"),
    ('"x[1]"', "x[1]"),
    ('"a.b"', "a.b"),
    ('"(a|b)*"', "(a|b)*"),
    ('"^anchor$"', "^anchor$"),
    ('"ünïcode"', "ünïcode"),
    ('"back\\\\slash"', "back\\slash"),
]


def new_file_patch(path, text):
    lines = text.splitlines()
    out = [
        f"diff --git a/{path} b/{path}",
        "new file mode 100644",
        "--- /dev/null",
        f"+++ b/{path}",
        f"@@ -0,0 +1,{len(lines)} @@",
    ]
    out += ["+" + line for line in lines]
    return "\n".join(out) + "\n"


def change_patch(path, before, old, new):
    """A patch of a file whose lines are `before` then `old`, replacing `old` by `new`."""
    n = len(before) + 1
    ctx = "".join(f" {line}\n" for line in before)
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -1,{n} +1,{n} @@\n{ctx}-{old}\n+{new}\n"
    ).replace("@@ -1,1 +1,1 @@", "@@ -1 +1 @@")


# The values a gold patch adds to a repository's parameter list, and how pytest and go test
# report them (go: spaces to `_`).
GOLD_PARAMS = [("new a", "new a", "new_a"), ("new-b", "new-b", "new-b")]


def replace_patch(path, old_lines, new_lines):
    """A patch replacing a whole file of `old_lines` by `new_lines`."""
    out = [f"diff --git a/{path} b/{path}", f"--- a/{path}", f"+++ b/{path}",
           f"@@ -1,{len(old_lines)} +1,{len(new_lines)} @@"]
    out += ["-" + line for line in old_lines] + ["+" + line for line in new_lines]
    return "\n".join(out) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def python_repo(out, i, closure, p2p, f2p, cost, awkward, gold_params=False):
    root = f"{out}/repos/r{i}"
    init = ["LEVEL = 0"] + (['PARAMS = ["old"]'] if gold_params else [])
    write(f"{root}/m{i}/__init__.py", "\n".join(init) + "\n")
    write(
        f"{root}/tests/test_base_r{i}.py",
        "import time\n\nimport pytest\n\n\n"
        f"@pytest.mark.parametrize(\"k\", range({p2p}))\n"
        f"def test_p2p(k):\n    time.sleep({cost / 1000!r})\n",
    )
    imports = "".join(f"import m{j}\n" for j in closure)
    checked = [j for j in closure if j != i] if gold_params and len(closure) > 1 else closure
    check = " and ".join(f"m{j}.LEVEL == 1" for j in checked)
    body = f"import time\n\nimport pytest\n\n{imports}\n\ndef ready():\n    return {check}\n\n"
    ids = []
    if gold_params:
        body += (
            f"\n@pytest.mark.parametrize(\"v\", m{i}.PARAMS)\n"
            f"def test_gold_param(v):\n    time.sleep({cost / 1000!r})\n    assert v == \"old\" or m{i}.LEVEL == 1\n\n"
        )
        ids += [f"tests/test_new_r{i}.py::test_gold_param[{py}]" for _, py, _ in GOLD_PARAMS]
        f2p -= len(GOLD_PARAMS)
    n_odd = min(len(PY_AWKWARD), f2p) if awkward else 0
    if n_odd:
        params = ", ".join(src for src, _ in PY_AWKWARD[:n_odd])
        body += (
            f"\n@pytest.mark.parametrize(\"v\", [{params}])\n"
            f"def test_odd(v):\n    time.sleep({cost / 1000!r})\n    assert ready()\n\n"
        )
        ids += [f"tests/test_new_r{i}.py::test_odd[{rep}]" for _, rep in PY_AWKWARD[:n_odd]]
    for k in range(f2p - n_odd):
        body += f"\ndef test_f2p_{k}():\n    time.sleep({cost / 1000!r})\n    assert ready()\n\n"
        ids.append(f"tests/test_new_r{i}.py::test_f2p_{k}")
    pythonpath = ":".join(f"../r{j}" for j in closure if j != i)
    run = "python3 -m pytest -q -rA -p no:cacheprovider tests"
    if pythonpath:
        run = f"PYTHONPATH={pythonpath} {run}"
    if gold_params:
        values = ", ".join(json.dumps(v) for v in ["old"] + [src for src, _, _ in GOLD_PARAMS])
        gold = replace_patch(f"m{i}/__init__.py", init, ["LEVEL = 1", f"PARAMS = [{values}]"])
    else:
        gold = change_patch(f"m{i}/__init__.py", [], "LEVEL = 0", "LEVEL = 1")
    tests = new_file_patch(f"tests/test_new_r{i}.py", body.rstrip("\n") + "\n")
    return run, "pytest", gold, tests, ids


def go_repo(out, i, closure, p2p, f2p, cost, awkward, gold_params=False):
    root = f"{out}/repos/r{i}"
    mod = f"example.com/r{i}"
    requires = "".join(f"require example.com/r{j} v0.0.0\n" for j in closure if j != i)
    replaces = "".join(f"replace example.com/r{j} => ../r{j}\n" for j in closure if j != i)
    write(f"{root}/go.mod", f"module {mod}\n\ngo 1.19\n\n{requires}{replaces}")
    level = [f"package m{i}", "", "const Level = 0"]
    if gold_params:
        level += ["", 'var Params = []string{"old"}']
    write(f"{root}/level.go", "\n".join(level) + "\n")
    sleep = f"time.Sleep({cost} * time.Millisecond)"
    write(
        f"{root}/base_test.go",
        f"package m{i}\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n\t\"time\"\n)\n\n"
        f"func TestP2P(t *testing.T) {{\n\tfor k := 0; k < {max(p2p - 1, 0)}; k++ {{\n"
        f"\t\tt.Run(fmt.Sprint(k), func(t *testing.T) {{ {sleep} }})\n\t}}\n}}\n",
    )
    others = [j for j in closure if j != i]
    imports = "".join(f"\tm{j} \"example.com/r{j}\"\n" for j in others)
    own = [] if gold_params and others else ["Level == 1"]
    check = " && ".join(own + [f"m{j}.Level == 1" for j in others])
    body = (
        f"package m{i}\n\nimport (\n\t\"testing\"\n\t\"time\"\n{imports})\n\n"
        f"func ready(t *testing.T) {{\n\t{sleep}\n\tif !({check}) {{\n\t\tt.Fatal(\"not ready\")\n\t}}\n}}\n"
    )
    pkg = mod
    ids = []
    if gold_params:
        # Before the other F2P tests: go runs a file's tests in order, and a failure first
        # would stop the narrowed run (-failfast) before anything shows they are absent.
        body += (
            "\nfunc TestGoldParam(t *testing.T) {\n\tfor _, p := range Params {\n\t\tp := p\n"
            f"\t\tt.Run(p, func(t *testing.T) {{\n\t\t\t{sleep}\n"
            "\t\t\tif p != \"old\" && Level != 1 {\n\t\t\t\tt.Fatal(\"not ready\")\n\t\t\t}\n\t\t})\n\t}\n}\n"
        )
        ids += [f"{pkg}/TestGoldParam/{go}" for _, _, go in GOLD_PARAMS]
    n_odd = min(len(GO_AWKWARD), max(f2p - 1, 0)) if awkward else 0
    if n_odd:
        runs = "".join(f"\tt.Run({src}, ready)\n" for src, _ in GO_AWKWARD[:n_odd])
        body += f"\nfunc TestOdd(t *testing.T) {{\n{runs}}}\n"
        ids += [f"{pkg}/TestOdd"] + [f"{pkg}/TestOdd/{rep}" for _, rep in GO_AWKWARD[:n_odd]]
    for k in range(f2p - len(ids)):
        body += f"\nfunc TestF2P{k}(t *testing.T) {{ ready(t) }}\n"
        ids.append(f"{pkg}/TestF2P{k}")
    if gold_params:
        values = ", ".join(json.dumps(v) for v in ["old"] + [src for src, _, _ in GOLD_PARAMS])
        new = [f"package m{i}", "", "const Level = 1", "", f"var Params = []string{{{values}}}"]
        gold = replace_patch("level.go", level, new)
    else:
        gold = change_patch("level.go", [f"package m{i}", ""], "const Level = 0", "const Level = 1")
    tests = new_file_patch("new_test.go", body)
    return "go test -json ./...", "go-test-json", gold, tests, ids


# Test names for the TAP runner (no `#` or `\\`, which TAP escapes), and shell bait.
TAP_AWKWARD = ["a b", 'q"uote', "it's", "x[1]", "a - b", "ünïcode", "$(echo injected)", "`x` * ~ ;"]

TAP_RUNNER = """import glob, importlib.util, sys

cases = []
for path in sorted(glob.glob("tests/cases_*.py")):
    spec = importlib.util.spec_from_file_location(path[6:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cases += mod.CASES
wanted = sys.argv[1:]
if wanted:
    cases = [c for c in cases if c[0] in wanted]
print("TAP version 13")
print("1..%d" % len(cases))
for i, (name, fn) in enumerate(cases, 1):
    try:
        fn()
        print("ok %d - %s" % (i, name))
    except Exception:
        print("not ok %d - %s" % (i, name))
"""


def tap_repo(out, i, closure, p2p, f2p, cost, awkward, template):
    root = f"{out}/repos/r{i}"
    write(f"{root}/m{i}/__init__.py", "LEVEL = 0\n")
    write(f"{root}/run_tap.py", TAP_RUNNER)
    write(
        f"{root}/tests/cases_base.py",
        f"import time\n\nCASES = [(\"p2p %d\" % k, lambda: time.sleep({cost / 1000!r})) for k in range({p2p})]\n",
    )
    imports = "".join(f"import m{j}\n" for j in closure)
    check = " and ".join(f"m{j}.LEVEL == 1" for j in closure)
    names = (TAP_AWKWARD[:f2p] if awkward else []) + [f"f2p {k}" for k in range(f2p)]
    names = names[:f2p]
    body = (
        f"import time\n\n{imports}\n\ndef ready():\n    time.sleep({cost / 1000!r})\n"
        f"    assert {check}\n\n\nCASES = [(n, ready) for n in {names!r}]\n"
    )
    pythonpath = ":".join(f"../r{j}" for j in closure if j != i)
    run = "python3 run_tap.py"
    if pythonpath:
        run = f"PYTHONPATH={pythonpath} {run}"
    gold = change_patch(f"m{i}/__init__.py", [], "LEVEL = 0", "LEVEL = 1")
    tests = new_file_patch("tests/cases_new.py", body)
    return run, "tap", gold, tests, names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--repos", type=int, default=2)
    ap.add_argument("--tests", type=int, default=2000)
    ap.add_argument("--f2p", type=int, default=20)
    ap.add_argument("--cost-ms", type=float, default=5.0)
    ap.add_argument("--lang", choices=["python", "go", "tap"], default="python")
    ap.add_argument("--awkward", action="store_true")
    ap.add_argument("--template", action="store_true")
    ap.add_argument("--verify", choices=["joint", "per-repo"], default="joint")
    ap.add_argument("--gold-params", action="store_true")
    a = ap.parse_args()
    if a.gold_params and (a.lang == "tap" or a.f2p <= len(GOLD_PARAMS)):
        sys.exit(f"--gold-params needs --lang python or go and --f2p > {len(GOLD_PARAMS)}")
    if a.f2p < 1 or a.tests <= a.f2p or a.repos < 1:
        sys.exit("need --repos >= 1 and --tests > --f2p >= 1")
    out = a.out
    os.makedirs(out, exist_ok=True)
    write(f"{out}/prompt.md", "Raise every level to 1.\n")
    blocks, f2p = [], {}
    for i in range(a.repos):
        closure = list(range(i + 1))  # a chain: r{i} uses r{i-1}, so its closure is r0..r{i}
        args = (out, i, closure, a.tests - a.f2p, a.f2p, a.cost_ms, a.awkward)
        if a.lang == "tap":
            run, parser, gold, tests, ids = tap_repo(*args, a.template)
        else:
            make = python_repo if a.lang == "python" else go_repo
            run, parser, gold, tests, ids = make(*args, a.gold_params)
        select = f"      select {json.dumps(run + ' {ids}')}\n" if a.template else ""
        write(f"{out}/gold/r{i}.patch", gold)
        write(f"{out}/tests/r{i}.patch", tests)
        f2p[f"r{i}"] = ids
        uses = f"    uses r{i - 1}\n" if i > 0 else ""
        blocks.append(
            f"  repo r{i} {{\n    source dir(\"repos/r{i}\")\n{uses}"
            f"    gold file(\"gold/r{i}.patch\")\n    test {{\n"
            f"      patch file(\"tests/r{i}.patch\")\n      run {json.dumps(run)}\n"
            f"      parser {parser}\n{select}      timeout 1200\n    }}\n  }}\n"
        )
    env = 'env go { version "1.19" }' if a.lang == "go" else 'env python { version "3.11" }'
    spec = (
        "// Generated by scripts/gen_targeted_task.py: do not edit.\n"
        "task \"targeted-gen\" {\n  kind feature\n  prompt file(\"prompt.md\")\n"
        f"  verify {a.verify}\n  {env}\n\n" + "\n".join(blocks) + "}\n"
    )
    write(f"{out}/targeted-gen.task", spec)
    write(f"{out}/f2p.json", json.dumps(f2p, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
