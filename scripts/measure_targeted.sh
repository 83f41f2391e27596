#!/bin/sh
# Figures of targeted verification (docs/performance.md, "Targeted partial configurations").
#
# usage: scripts/measure_targeted.sh large [TESTS F2P COST_MS]   generated 2-repository joint task
#        scripts/measure_targeted.sh chain [TESTS F2P COST_MS]   generated 5-repository chain
#        scripts/measure_targeted.sh EXAMPLE [verify flags...]   an example (e.g. cookie-split)
#
# `large` generates (scripts/gen_targeted_task.py) a producer/consumer task with TESTS test
# cases per repository (default 2000), F2P of them fail-to-pass (default 20), each costing
# COST_MS ms (default 5), and measures, each with a fresh cache on the local backend:
#   base+gold  the same task with `verify per-repo`: exactly the all-base and all-gold runs;
#   targeted   `taskc verify` (the default);
#   full       `taskc verify --full`.
# `chain` does targeted and full on r0 <- r1 <- ... <- r4 (62 runs; defaults 300 10 2).
# Each line: runs executed, test cases executed (every test of every stored result), the
# sum of the runs' own wall times, and the wall time of the whole `taskc verify`.
# Run from the repository root after `cargo build --bin taskc`; TASKC=path overrides the binary.
set -eu
taskc=${TASKC:-./target/debug/taskc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# measure LABEL SPEC [flags...]
measure() {
  label=$1; spec=$2; shift 2
  cache="$work/cache-$label"
  s=$(date +%s.%N)
  code=0
  "$taskc" verify "$spec" --backend local --no-lock --cache "$cache" --color never "$@" \
    >"$work/$label.out" 2>&1 || code=$?
  e=$(date +%s.%N)
  python3 - "$cache" "$s" "$e" "$label" "$code" <<'PY'
import glob, json, sys
cache, s, e, label, code = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
runs = cases = ms = 0
walls = []  # (cases, wall) per run
for f in glob.glob(cache + "/results/local/*.json"):
    d = json.load(open(f))
    n = sum(len(r["tests"]) for r in d["repos"].values())
    runs += 1
    ms += d.get("wall_ms", 0)
    cases += n
    walls.append((n, d.get("wall_ms", 0) / 1000))
small = sorted(w for n, w in walls if n <= min(c for c, _ in walls) * 2) if walls else []
med = small[len(small) // 2] if small else 0
print(f"{label:<10} exit={code} runs={runs} test_cases={cases} run_wall_sum={ms/1000:.1f}s "
      f"verify_wall={e-s:.1f}s smallest_runs_median_wall={med:.1f}s")
PY
  if [ "$code" -gt 1 ]; then sed -n '1,40p' "$work/$label.out" >&2; fi
}

# three REPOS TESTS F2P COST: base+gold (the per-repo variant), targeted and --full on a
# generated chain of REPOS repositories.
three() {
  echo "# $1 repositories r0 <- r1 <- ..., $2 tests each, $3 F2P each, $4 ms per test; load $(cut -d' ' -f1-3 /proc/loadavg)"
  for v in joint per-repo; do
    python3 scripts/gen_targeted_task.py "$work/$v" --repos "$1" --tests "$2" --f2p "$3" --cost-ms "$4" --verify "$v"
  done
  measure base+gold "$work/per-repo/targeted-gen.task"
  measure targeted "$work/joint/targeted-gen.task"
  measure full "$work/joint/targeted-gen.task" --full
}

case "${1:-}" in
  large) three 2 "${2:-2000}" "${3:-20}" "${4:-5}" ;;
  chain) three 5 "${2:-300}" "${3:-10}" "${4:-2}" ;;
  "")
    sed -n '3,18p' "$0" >&2; exit 2
    ;;
  *)
    ex=$1; shift
    measure "$ex" "examples/$ex/$ex.task" "$@"
    ;;
esac
