#!/usr/bin/env bash
# Hostile neighbours (issue 20, "Done when" 2): an honest prediction (sdk-retry's Python gold
# patch) scored at --jobs 2 alone, then beside each hostile one of tests/adversarial/
# (neighbour-cpu-hog, neighbour-memory-hog, neighbour-fork-loop). Prints, per case, the
# honest run's verdict and wall time and the hostile run's failure. The figures in
# docs/performance.md come from:
#   tests/adversarial/neighbours.sh target/debug/taskc /work/scratch/<you>/neighbours docker
# CASES="alone neighbour-memory-hog" runs only those.
# Needs a `sdk-retry-python` spec: sdk-retry with the Python repository alone (made here).
set -euo pipefail
taskc=$(realpath "$1")
work=$2
backend=${3:-docker}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mkdir -p "$work"
rm -rf "$work/sdk-retry"
cp -r "$root/examples/sdk-retry" "$work/sdk-retry"
python3 - "$work/sdk-retry" <<'EOF'
import sys
d = sys.argv[1]
t = open(d + "/sdk-retry.task").read().replace('task "sdk-retry" {', 'task "sdk-retry-python" {')
for repo in ["sdk-node", "sdk-go"]:
    start = t.find("\n  repo %s {\n" % repo)
    end = t.find("\n  }\n", start + 1) + len("\n  }\n")
    t = t[:start + 1] + t[end:]
open(d + "/sdk-retry-python.task", "w").write(t)
EOF
spec="$work/sdk-retry/sdk-retry-python.task"
"$taskc" verify "$spec" --backend "$backend" --jobs 2 --color never --cache "$work/cache" >/dev/null 2>&1
line() { # model, patch file
  python3 -c 'import json,sys; print(json.dumps({"task":"sdk-retry-python","model":sys.argv[1],"patches":{"sdk-python":open(sys.argv[2]).read()}}))' "$1" "$2"
}
gold="$root/examples/sdk-retry/gold/sdk-python.patch"
for case in ${CASES:-alone neighbour-cpu-hog neighbour-memory-hog neighbour-fork-loop}; do
  out="$work/$case"
  rm -rf "$out" "$work/cache/results"
  {
    [ "$case" = alone ] || line "$case" "$here/$case/sdk-python.patch"
    line honest "$gold"
  } > "$work/$case.jsonl"
  "$taskc" score "$spec" --predictions "$work/$case.jsonl" --mode independent \
    --backend "$backend" --jobs 2 --color never --cache "$work/cache" --out "$out" >/dev/null 2>"$work/$case.err" || true
  python3 - "$out/report.json" "$work/cache/results" "$case" <<'EOF'
import json, sys, glob, os
report, results, case = sys.argv[1:]
rows = {r["model"]: r for r in json.load(open(report))["rows"]}
walls = {}
for f in glob.glob(os.path.join(results, "**", "*.json"), recursive=True):
    try:
        r = json.load(open(f))
    except Exception:
        continue
    if not isinstance(r, dict) or "wall_ms" not in r:
        continue
    fail = r.get("failure")
    walls[r["run"]] = (r["wall_ms"], sum(t.get("test_ms", 0) for t in r["repos"].values()), fail)
honest = rows["honest"]
hostile = rows.get(case)
print(f"{case:24} honest: {honest['status']:8} failures={json.dumps(honest.get('failures'))}"
      + (f" | hostile: {hostile['status']} {json.dumps(hostile.get('failures'))[:160]}" if hostile else ""))
for run, (wall, test, fail) in sorted(walls.items()):
    kind = "fail:" + (list(fail)[0] if isinstance(fail, dict) else str(fail)) if fail else "ok"
    print(f"  run …{run[-12:]} wall_ms={wall} test_ms={test} {kind}")
EOF
done
