#!/bin/sh
# usage: measure.sh EXAMPLE [--full]; prints runs, executed test cases, wall
ex=$1; shift
c=$(mktemp -d)
s=$(date +%s.%N)
./target/debug/taskc verify examples/$ex/$ex.task --backend local --no-lock --cache $c --color never "$@" >/dev/null 2>&1
e=$(date +%s.%N)
python3 - "$c" "$s" "$e" "$@" <<'PY'
import json,glob,sys
c,s,e=sys.argv[1],float(sys.argv[2]),float(sys.argv[3])
n=0;runs=0;ms=0
for f in glob.glob(c+'/results/local/*.json'):
    d=json.load(open(f)); runs+=1; ms+=d.get('wall_ms',0)
    n+=sum(len(r['tests']) for r in d['repos'].values())
print(f"runs={runs} test_cases={n} run_wall_sum={ms/1000:.1f}s verify_wall={e-s:.1f}s", sys.argv[4:])
PY
rm -rf $c
