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
for f in glob.glob(cache + "/results/local/*.json"):
    d = json.load(open(f))
    runs += 1
    ms += d.get("wall_ms", 0)
    cases += sum(len(r["tests"]) for r in d["repos"].values())
print(f"{label:<10} exit={code} runs={runs} test_cases={cases} run_wall_sum={ms/1000:.1f}s verify_wall={e-s:.1f}s")
PY
  if [ "$code" -gt 1 ]; then sed -n '1,40p' "$work/$label.out" >&2; fi
}

case "${1:-}" in
  large)
    tests=${2:-2000}; f2p=${3:-20}; cost=${4:-5}
    echo "# large: 2 repositories, $tests tests each, $f2p F2P each, ${cost} ms per test; load $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 scripts/gen_targeted_task.py "$work/joint" --repos 2 --tests "$tests" --f2p "$f2p" --cost-ms "$cost"
    python3 scripts/gen_targeted_task.py "$work/perrepo" --repos 2 --tests "$tests" --f2p "$f2p" --cost-ms "$cost" --verify per-repo
    measure base+gold "$work/perrepo/targeted-gen.task"
    measure targeted "$work/joint/targeted-gen.task"
    measure full "$work/joint/targeted-gen.task" --full
    ;;
  chain)
    tests=${2:-300}; f2p=${3:-10}; cost=${4:-2}
    echo "# chain: 5 repositories r0 <- ... <- r4, $tests tests each, $f2p F2P each, ${cost} ms per test; load $(cut -d' ' -f1-3 /proc/loadavg)"
    python3 scripts/gen_targeted_task.py "$work/chain" --repos 5 --tests "$tests" --f2p "$f2p" --cost-ms "$cost"
    python3 scripts/gen_targeted_task.py "$work/chainpr" --repos 5 --tests "$tests" --f2p "$f2p" --cost-ms "$cost" --verify per-repo
    measure base+gold "$work/chainpr/targeted-gen.task"
    measure targeted "$work/chain/targeted-gen.task"
    measure full "$work/chain/targeted-gen.task" --full
    ;;
  "")
    sed -n '3,18p' "$0" >&2; exit 2
    ;;
  *)
    ex=$1; shift
    measure "$ex" "examples/$ex/$ex.task" "$@"
    ;;
esac
