#!/usr/bin/env python3
"""Hand oracle for the example tasks: an independent, naive re-implementation of
`taskc verify` on the local machine (no containers), used to check the examples
and to cross-check the runtime.

For a task it copies every repository into a fresh workspace (siblings in one
folder, as in a container's /work), applies a subset of the gold patches with
`git apply`, applies each target's hidden test patch (with its `relax` edits),
runs the target's `run` command in its folder, parses the log, and prints which
tests passed. It derives F2P (fail at base, pass with all gold) and P2P (pass at
both) and gives the verdict of `verify joint` (only the full gold set passes) or
`verify per-repo` (each target fails at base and passes with its gold).

Usage: python3 examples/verify-by-hand.py examples/cookie-split/cookie-split.task [-v] [--raw]
  -v     print every test log
  --raw  ignore the `relax` blocks (shows what the review changed)

It reads only the subset of the language the examples use (one statement per
line), with regular expressions: it is a test aid, not a parser.
"""

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

STRING = r'(?:r#"(.*?)"#|"((?:[^"\\]|\\.)*)")'


def unquote(raw, plain):
    if raw is not None:
        return raw
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), plain)


def blocks(text, keyword):
    """Yield (name, body) of every `keyword name { … }` block, braces balanced."""
    for m in re.finditer(r"^\s*" + keyword + r"\s+([A-Za-z0-9_.-]+)\s*\{", text, re.M):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), text[m.end() : i - 1]


def field(body, name):
    m = re.search(r"^\s*" + name + r"\s+" + STRING, body, re.M)
    return unquote(m.group(1), m.group(2)) if m else None


def call(body, name):
    m = re.search(r"^\s*" + name + r'\s+\w+\("([^"]*)"\)', body, re.M)
    return m.group(1) if m else None


def source(body):
    """(kind, path or url, base) of a repository's `source`."""
    m = re.search(r'^\s*source\s+(\w+)\("([^"]*)"\)', body, re.M)
    return m.group(1), m.group(2), field(body, "base")


def materialise(task, repo, dest):
    """Copy a `dir` source, or check out the base of a `bundle`/`git` source without history."""
    kind, where, base = repo["source"]
    if kind == "dir":
        shutil.copytree(os.path.join(task["dir"], where), dest)
        return
    url = os.path.join(task["dir"], where) if kind == "bundle" else where
    subprocess.run(["git", "-c", "init.defaultBranch=main", "clone", "-q", "--no-checkout", url, dest], check=True)
    subprocess.run(["git", "-c", "advice.detachedHead=false", "checkout", "-q", base], cwd=dest, check=True)
    shutil.rmtree(os.path.join(dest, ".git"))


def load(path):
    text = re.sub(r"^\s*//.*$", "", open(path).read(), flags=re.M)
    task = {"dir": os.path.dirname(os.path.abspath(path)), "repos": {}, "context": {}}
    task["verify"] = re.search(r"^\s*verify\s+([\w-]+)", text, re.M).group(1)
    for name, body in blocks(text, "repo"):
        test = body[body.index("test {") :]
        task["repos"][name] = {
            "source": source(body),
            "gold": call(body, "gold"),
            "patch": call(test, "patch"),
            "run": field(test, "run"),
            "parser": re.search(r"^\s*parser\s+([\w-]+)", test, re.M).group(1),
            "setup": [unquote(a, b) for a, b in re.findall(r"^\s*setup\s+" + STRING, body, re.M)],
            "expect": re.findall(r'^\s*expect\s+(f2p|p2p)\s+"([^"]*)"', test, re.M),
            "drop": set(),
            "edits": [],
        }
    for name, body in blocks(text, "context"):
        task["context"][name] = {"source": source(body)}
    for name, body in blocks(text, "relax") if "--raw" not in sys.argv else ():
        repo = task["repos"][name]
        repo["drop"] |= set(re.findall(r'^\s*drop\s+"([^"]*)"', body, re.M))
        for m in re.finditer(r'^\s*edit\s+"([^"]*)"\s*\{(.*?)^\s*\}', body, re.M | re.S):
            r = re.search(r"replace\s+" + STRING + r"\s+with\s+" + STRING, m.group(2))
            repo["edits"].append((m.group(1), unquote(r.group(1), r.group(2)), unquote(r.group(3), r.group(4))))
    return task


def relaxed_patch(task, repo):
    """The hidden test patch with the `edit` relaxations applied to its added lines."""
    text = open(os.path.join(task["dir"], repo["patch"])).read()
    for file, old, new in repo["edits"]:
        out, current, hits = [], None, 0
        for line in text.splitlines(keepends=True):
            if line.startswith("+++ "):
                current = line[4:].strip()[2:]
            elif line.startswith("+") and current == file and old in line:
                hits += line.count(old)
                line = line.replace(old, new)
            out.append(line)
        if hits != 1:
            sys.exit(f"edit of {file}: {old!r} occurs {hits} times in the added lines, not once")
        text = "".join(out)
    return text


def parse_pytest(log):
    results = {}
    for m in re.finditer(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S+::\S+)", log, re.M):
        results[m.group(2)] = m.group(1) in ("PASSED", "XPASS")
    return results


def parse_tap(log):
    results, stack = {}, []
    for line in log.splitlines():
        m = re.match(r"^(\s*)# Subtest: (.*)$", line)
        if m:
            depth = len(m.group(1)) // 4
            del stack[depth:]
            stack.append(m.group(2))
            continue
        m = re.match(r"^(\s*)(not ok|ok) \d+ - (.*?)(\s+#\s*(SKIP|TODO).*)?$", line)
        if m:
            depth = len(m.group(1)) // 4
            name = m.group(3)
            # A file-level wrapper (node 18) is reported as its path: drop it.
            prefix = [s for s in stack[:depth] if not s.startswith("/")]
            results["::".join(prefix + [name])] = m.group(2) == "ok"
    return {k: v for k, v in results.items() if not k.startswith("/")}


def parse_go_test_json(log):
    results = {}
    for line in log.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("Test") and event.get("Action") in ("pass", "fail", "skip"):
            results[f'{event["Package"]}/{event["Test"]}'] = event["Action"] == "pass"
    return results


PARSERS = {"pytest": parse_pytest, "tap": parse_tap, "go-test-json": parse_go_test_json}


def run_config(task, applied, verbose):
    """Materialise a workspace with the gold of `applied` and return {repo: {test: passed}}."""
    ws = tempfile.mkdtemp(prefix="taskc-hand-")
    try:
        for name, repo in list(task["repos"].items()) + list(task["context"].items()):
            materialise(task, repo, os.path.join(ws, name))
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        out = {}
        for name, repo in task["repos"].items():
            folder = os.path.join(ws, name)
            if name in applied:
                subprocess.run(["git", "apply", os.path.join(task["dir"], repo["gold"])], cwd=folder, check=True)
            subprocess.run(["git", "apply", "-"], input=relaxed_patch(task, repo), text=True, cwd=folder, check=True)
        for name, repo in task["repos"].items():
            folder = os.path.join(ws, name)
            for cmd in repo["setup"]:
                subprocess.run(cmd, shell=True, cwd=folder, env=env, check=True, capture_output=True)
            proc = subprocess.run(repo["run"], shell=True, cwd=folder, env=env, capture_output=True, text=True)
            log = proc.stdout + proc.stderr
            if verbose:
                print(f"--- {name} with gold {sorted(applied)}: exit {proc.returncode}\n{log}")
            results = PARSERS[repo["parser"]](log)
            out[name] = {t: ok for t, ok in results.items() if t not in repo["drop"]}
        return out
    finally:
        shutil.rmtree(ws)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    verbose = "-v" in sys.argv
    task = load(args[0])
    names = sorted(task["repos"])
    base = run_config(task, set(), verbose)
    gold = run_config(task, set(names), verbose)
    f2p, p2p, sound = {}, {}, True
    for name in names:
        f2p[name] = sorted(t for t, ok in gold[name].items() if ok and not base[name].get(t, False))
        p2p[name] = sorted(t for t, ok in gold[name].items() if ok and base[name].get(t, False))
        broken = sorted(t for t, ok in gold[name].items() if not ok)
        if not gold[name]:
            print(f"   NO RESULTS with gold: run with -v to see the log")
            sound = False
        print(f"== {name}: {len(f2p[name])} F2P, {len(p2p[name])} P2P, {len(broken)} failing with gold")
        for t in f2p[name]:
            print(f"   F2P {t}")
        for t in p2p[name]:
            print(f"   P2P {t}")
        for t in broken:
            print(f"   FAIL-WITH-GOLD {t}")
            sound = False
        for kind, t in task["repos"][name]["expect"]:
            if t not in (f2p if kind == "f2p" else p2p)[name]:
                print(f"   EXPECT {kind} {t}: not observed")
                sound = False

    def passes(results, only=None, kinds=(f2p, p2p)):
        return all(
            results[n].get(t, False) for n in names if only in (None, n) for kind in kinds for t in kind[n]
        )

    if task["verify"] == "joint":
        print("== joint truth table: F2P+P2P of every target (and F2P alone)")
        for k in range(len(names) + 1):
            for subset in itertools.combinations(names, k):
                results = gold if len(subset) == len(names) else base if not subset else run_config(task, set(subset), verbose)
                ok = passes(results)
                failing = sorted(f"{n}:{t}" for n in names for t in f2p[n] + p2p[n] if not results[n].get(t, False))
                f2p_ok = passes(results, kinds=(f2p,))
                print(
                    f"   gold {{{', '.join(subset)}}}: {'PASS' if ok else 'fail'}  {len(failing)} failing"
                    f"  (F2P alone: {'PASS' if f2p_ok else 'fail'})"
                )
                if verbose or 0 < len(failing) <= 6:
                    for t in failing:
                        print(f"      failing {t}")
                if ok != (len(subset) == len(names)):
                    sound = False
    else:
        print("== per-repo: each target fails at base and passes with its gold")
        for name in names:
            if not gold[name]:
                print(f"   {name}: no test results with gold (build error or wrong parser?): invalid")
                sound = False
                continue
            ok = not passes(base, name) and passes(gold, name) and f2p[name]
            print(f"   {name}: base {'PASS' if passes(base, name) else 'fail'}, gold {'PASS' if passes(gold, name) else 'fail'}")
            sound = sound and bool(ok)
    print("VERDICT:", "sound" if sound else "UNSOUND")
    return 0 if sound else 1


if __name__ == "__main__":
    sys.exit(main())
