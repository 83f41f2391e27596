#!/usr/bin/env python3
"""Runs and wall time of `taskc verify` per task: default (targeted), `--full`, and the
base+gold minimum (docs/performance.md, "Verification at the price of base and gold").

usage: scripts/bench_verify_runs.py SPEC [SPEC ...] [--samples N] [--backend B] [-j N]
                                   [--minimum both|store|per-repo]

Per spec and sample, each mode from an empty cache (images are reused, results are not):
  default    `taskc verify SPEC` (targeted);
  full       `taskc verify SPEC --full`;
  base+gold  the same spec folder copied with `verify joint` replaced by `verify per-repo`:
             exactly the all-base run and the closure-gold run of every target, the
             minimum any verification of the task executes (its phase 1). Its runs' own
             durations (`wall_ms` of the result store) are printed too.
  base+gold (store)  the minimum's wall from the result store of the default run itself:
             the stored durations (`wall_ms`) of its phase-1 runs (the cells of its all-base
             and all-gold rows: every target at base and with its closure at gold), summed
             and scheduled on the job slots (longest first; `-j`, else 2) — what those runs
             cost without anything else around them. `--minimum store` skips the per-repo
             copy (one verification less per sample).
Per mode, the runs' stored walls split into sandbox time and the test commands' own time
(`test_ms`); for `--full`, "full, folded (estimate)": its runs grouped by gold set, one
sandbox per configuration (largest sandbox time + the sum of the test times), scheduled
longest-first — what a run that tests several targets in one sandbox would cost.
Each line: runs executed, the wall of the runs' execution (`runs.wall_s` of `--format json`:
every phase and round, image preparation left out — the same images serve every mode), and
for default the ratio of its wall to base+gold's of the same sample. The oracle and the verdict (sound, problems) of
default must equal --full's: a difference is printed and the exit status is 1.
Run from the repository root after `cargo build --bin taskc`; TASKC=path overrides the binary.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def verify(taskc, spec, cache, backend, jobs, extra):
    cmd = [taskc, "verify", spec, "--backend", backend, "--no-lock", "--format", "json",
           "--cache", cache] + (["-j", str(jobs)] if jobs else []) + extra
    s = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - s
    try:
        out = json.loads(p.stdout)
    except ValueError:
        sys.stderr.write(p.stderr[-3000:])
        raise SystemExit(f"{spec}: taskc verify {' '.join(extra)} printed no JSON (exit {p.returncode})")
    store = glob.glob(os.path.join(cache, "results", "*", "*.json"))
    by_run = {}
    records = []
    for f in store:
        r = json.load(open(f))
        by_run.setdefault(r.get("run", f), []).append(r.get("wall_ms", 0))
        records.append(r)
    run_ms = sorted(ms for v in by_run.values() for ms in v)
    return out, wall, run_ms, by_run, records


def sandbox_split(records):
    """Per stored run: (gold set, sandbox ms, test ms): the run's wall (`wall_ms`, the
    backend's start to exit) split into the test command's own time (`test_ms` of each
    repository under test) and the rest (container, uploads, patches, canaries, hand-over,
    collecting the records)."""
    out = []
    for r in records:
        test = sum(t.get("test_ms", 0) for t in r.get("repos", {}).values())
        run = (r.get("executed") or {}).get("run") or {}
        gold = tuple(sorted(run.get("gold_applied", [])))
        wall = r.get("wall_ms", 0)
        out.append((gold, max(0, wall - test), test))
    return out


def fold_estimate(records, slots):
    """What the same runs would cost folded: one sandbox per gold set (every run of that
    configuration's test commands in one container, one after the other), costing the
    largest sandbox time of its runs plus the sum of their test times, scheduled
    longest-first on `slots`. An estimate from measured parts, not a measurement."""
    groups = {}
    for gold, sandbox, test in sandbox_split(records):
        g = groups.setdefault(gold, [0, 0])
        g[0] = max(g[0], sandbox)
        g[1] += test
    costs = [(s + t) / 1000 for s, t in groups.values()]
    return len(groups), makespan(costs, slots)


def phase_one(out):
    """The ids of the phase-1 runs of a verification (`--format json`): the cells of its
    all-base and all-gold rows, i.e. every target at base and with its closure at gold.
    (Taken from the verification, not from `taskc plan`: verify lowers with the base
    image's content id, which `plan` does not know, so the run ids differ.)"""
    targets = sorted(out["verification"]["targets"])
    ids = []
    for row in out["verification"]["rows"]:
        if row["gold"] == [] or sorted(row["gold"]) == targets:
            ids += [c["run"] for c in row["cells"].values()]
    return sorted(set(ids))


def makespan(durations, slots):
    """Longest-first list scheduling of `durations` on `slots` parallel slots."""
    ends = [0.0] * max(1, slots)
    for d in sorted(durations, reverse=True):
        i = ends.index(min(ends))
        ends[i] += d
    return max(ends)


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def per_repo_copy(spec, work):
    folder = os.path.dirname(os.path.abspath(spec))
    dst = os.path.join(work, "per-repo")
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(folder, dst, symlinks=True)
    path = os.path.join(dst, os.path.basename(spec))
    text = open(path, encoding="utf-8").read()
    new, n = re.subn(r"\bverify\s+joint\b", "verify per-repo", text)
    if n != 1:
        raise SystemExit(f"{spec}: expected one `verify joint` line, found {n}")
    open(path, "w", encoding="utf-8").write(new)
    return path


def verdict(out):
    v = out["verification"]
    return {"oracles": v["oracles"], "problems": v["problems"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--backend", default="docker")
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--minimum", choices=["both", "store", "per-repo"], default="both")
    a = ap.parse_args()
    summary = []
    taskc = os.environ.get("TASKC", "./target/debug/taskc")
    failed = False
    load = open("/proc/loadavg").read().split()[:3]
    print(f"# backend {a.backend}, jobs {a.jobs or 'default'}, load average at start {' '.join(load)}")
    for spec in a.specs:
        name = os.path.splitext(os.path.basename(spec))[0]
        work = tempfile.mkdtemp(prefix="taskc-bench-")
        try:
            modes = [("default", spec, []), ("full", spec, ["--full"])]
            if a.minimum != "store":
                modes.insert(0, ("base+gold", per_repo_copy(spec, work), []))
            per_mode = {}
            for k in range(a.samples):
                row = {}
                for mode, path, extra in modes:
                    # One cache per spec (materialised sources and images reused); the
                    # results are removed after each verify, so every mode runs everything.
                    cache = os.path.join(work, "cache")
                    out, wall, run_ms, by_run, records = verify(taskc, path, cache, a.backend, a.jobs, extra)
                    shutil.rmtree(os.path.join(cache, "results"), ignore_errors=True)
                    wall = out["runs"].get("wall_s", wall)
                    row[mode] = (out, wall)
                    runs = out["runs"]["executed"] + out["runs"]["cached"]
                    per_mode.setdefault(mode, []).append((runs, wall))
                    ratio = ""
                    if mode == "default" and "base+gold" in row:
                        ratio = f" ratio_to_base+gold={wall / row['base+gold'][1]:.2f}"
                    print(f"{name:<28} sample={k + 1} {mode:<9} runs={runs:<3} "
                          f"executed={out['runs']['executed']:<3} wall={wall:6.1f}s "
                          f"run_walls_s={[round(ms / 1000, 1) for ms in run_ms]}{ratio}",
                          flush=True)
                    split = sandbox_split(records)
                    print(f"{name:<28} sample={k + 1} {mode:<9} sandbox_s={sum(x[1] for x in split) / 1000:.1f} "
                          f"test_commands_s={sum(x[2] for x in split) / 1000:.1f}", flush=True)
                    if mode == "full":
                        n, span = fold_estimate(records, a.jobs or 2)
                        per_mode.setdefault("full, folded (estimate)", []).append((n, span))
                        print(f"{name:<28} sample={k + 1} full, folded (estimate) sandboxes={n} "
                              f"scheduled_on_{a.jobs or 2}={span:6.1f}s", flush=True)
                    if mode == "default":
                        # The minimum from this run's own store: its phase-1 durations.
                        first = phase_one(out)
                        missing = [i for i in first if i not in by_run]
                        if missing:
                            raise SystemExit(f"{spec}: no stored result for phase-1 runs {missing}")
                        mins = [max(by_run[i]) / 1000 for i in first]
                        span = makespan(mins, a.jobs or 2)
                        per_mode.setdefault("base+gold (store)", []).append((len(first), span))
                        print(f"{name:<28} sample={k + 1} base+gold (store) runs={len(first):<3} "
                              f"sum={sum(mins):6.1f}s scheduled_on_{a.jobs or 2}={span:6.1f}s "
                              f"ratio_to_it={wall / span if span else float('nan'):.2f}", flush=True)
                if verdict(row["default"][0]) != verdict(row["full"][0]):
                    failed = True
                    print(f"{name}: default and --full differ:\n  default {verdict(row['default'][0])}\n"
                          f"  full    {verdict(row['full'][0])}")
            summary.append((name, per_mode))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("\n| task | mode | runs executed | wall per sample | median wall |")
    print("|---|---|---|---|---|")
    for name, per_mode in summary:
        for mode, v in per_mode.items():
            runs = sorted({r for r, _ in v})
            walls = " / ".join(f"{w:.1f} s" for _, w in v)
            print(f"| {name} | {mode} | {', '.join(map(str, runs))} | {walls} | "
                  f"{median([w for _, w in v]):.1f} s |")
    print(f"# load average at end {' '.join(open('/proc/loadavg').read().split()[:3])}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
