#!/usr/bin/env bash
# A two-node Docker Swarm on this one machine, for `--backend swarm` (docs/backends.md):
#
#   scripts/swarm-multinode.sh [verify|bench]
#
# - the first engine (the default socket) is the manager: made a swarm
#   (`docker swarm init --advertise-addr 127.0.0.1`) unless it is one, and left at the end
#   only if this script made it;
# - a registry from Debian's `docker-registry` package on 127.0.0.1:5055 (its own folder);
# - a second dockerd with its own --data-root, --exec-root, --pidfile, unix socket,
#   --config-file and its OWN bridge `taskc-br1` (never `--bridge none`: that deleted the
#   first engine's docker0 here once), no iptables rules of its own; it loads the base
#   image from the registry (no pull from the internet) and joins as a worker on
#   127.0.0.1:2378;
# - `verify` (default): every example verified on the one-node swarm, then on two nodes
#   (`[cluster] registry`), tables compared, where the tasks ran counted; then a verify
#   during which the worker dockerd is killed with -9: its runs are retried on the manager
#   and the table must not change;
# - `bench`: `cargo bench --bench swarm_overhead` on the two-node swarm.
#
# The first engine's `bridge` network and a `docker run --rm taskc/base:bookworm true` are
# checked before and after. Every daemon, folder, mount and interface made here is removed
# on exit (a trap, also on failure). Needs root, dockerd, fuse-overlayfs, docker-registry
# (scripts/setup.sh installs it).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-verify}
W=${TASKC_SWARM_WORKER_DIR:-/tmp/swarm-node2}
BRIDGE=taskc-br1
BRIDGE_CIDR=10.213.0.1/24
REGISTRY=127.0.0.1:5055
SOCK=$W/docker.sock
TASKC=${TASKC:-$ROOT/target/debug/taskc}
EXAMPLES=${TASKC_SWARM_EXAMPLES:-cookie-split config-merge unsound-partial context-docs sdk-retry}
BASE=taskc/base:bookworm
d2() { docker -H "unix://$SOCK" "$@"; }
say() { printf '\n== %s\n' "$*"; }

made_swarm=
worker_id=
registry_pid=
watch_pid=

first_engine_ok() {
  docker network inspect bridge --format 'bridge network: {{.Name}} {{range .IPAM.Config}}{{.Subnet}}{{end}}'
  ip -br link show docker0
  docker run --rm "$BASE" true && echo "docker run --rm $BASE true: ok"
}

# Every process whose command line names the worker's folder (dockerd, its containerd,
# shims, fuse-overlayfs), by pid.
worker_pids() {
  local p
  for p in /proc/[0-9]*; do
    if { tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null | grep -q -- "$W"; then
      echo "${p#/proc/}"
    fi
  done
}

cleanup() {
  set +e
  say "cleanup"
  [ -n "$watch_pid" ] && kill "$watch_pid" 2>/dev/null
  if [ -S "$SOCK" ]; then d2 swarm leave --force >/dev/null 2>&1; fi
  [ -n "$worker_id" ] && docker node rm --force "$worker_id" >/dev/null 2>&1
  if [ -f "$W/docker.pid" ]; then kill "$(cat "$W/docker.pid")" 2>/dev/null; sleep 3; fi
  for pid in $(worker_pids); do kill -9 "$pid" 2>/dev/null; done
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null
  sleep 1
  # Mounts the worker left (overlay layers, netns, shm), deepest first.
  awk -v w="$W" '$2 ~ "^"w {print $2}' /proc/mounts | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || fusermount -uz "$m" 2>/dev/null
  done
  ip link del "$BRIDGE" 2>/dev/null
  cp "$W/dockerd.log" "${TMPDIR:-/tmp}/swarm-multinode-worker-dockerd.log" 2>/dev/null
  cp "$W"/nodes-*.txt "${TMPDIR:-/tmp}/" 2>/dev/null
  rm -rf "$W"
  docker rmi "$REGISTRY/$BASE" >/dev/null 2>&1
  if [ -n "$made_swarm" ]; then docker swarm leave --force >/dev/null; fi
  say "first engine after"
  first_engine_ok
  ip -br link | grep -c "$BRIDGE" | sed 's/^/taskc-br1 interfaces left: /'
}
trap cleanup EXIT

say "first engine before"
first_engine_ok

if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" != active ]; then
  docker swarm init --advertise-addr 127.0.0.1 >/dev/null
  made_swarm=1
fi

mkdir -p "$W/data" "$W/exec" "$W/registry"
say "registry on $REGISTRY"
cat > "$W/registry.yml" <<EOF
version: 0.1
storage:
  filesystem:
    rootdirectory: $W/registry
http:
  addr: $REGISTRY
EOF
docker-registry serve "$W/registry.yml" > "$W/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 50); do curl -sf "http://$REGISTRY/v2/" >/dev/null && break; sleep 0.2; done
curl -sf "http://$REGISTRY/v2/" >/dev/null

say "second dockerd (bridge $BRIDGE $BRIDGE_CIDR)"
ip link add "$BRIDGE" type bridge
ip addr add "$BRIDGE_CIDR" dev "$BRIDGE"
ip link set "$BRIDGE" up
cat > "$W/daemon.json" <<EOF
{
  "storage-driver": "fuse-overlayfs",
  "iptables": false,
  "ip-masq": false,
  "ip-forward": false,
  "mtu": 1400,
  "log-driver": "json-file",
  "insecure-registries": ["$REGISTRY"]
}
EOF
dockerd --config-file "$W/daemon.json" --data-root "$W/data" --exec-root "$W/exec" \
  --pidfile "$W/docker.pid" -H "unix://$SOCK" --bridge "$BRIDGE" > "$W/dockerd.log" 2>&1 &
for _ in $(seq 100); do d2 info >/dev/null 2>&1 && break; sleep 0.3; done
d2 info --format 'worker engine: {{.ServerVersion}}, storage {{.Driver}}'

say "base image to the worker through the registry"
docker tag "$BASE" "$REGISTRY/$BASE"
docker push -q "$REGISTRY/$BASE"
d2 pull -q "$REGISTRY/$BASE"
d2 tag "$REGISTRY/$BASE" "$BASE"

say "worker joins on 127.0.0.1:2378"
d2 swarm join --token "$(docker swarm join-token -q worker)" \
  --listen-addr 127.0.0.1:2378 --advertise-addr 127.0.0.1:2378 127.0.0.1:2377
worker_id=$(d2 info --format '{{.Swarm.NodeID}}')
echo "worker node: $worker_id"
docker node ls --format '{{.ID}} {{.Hostname}} {{.Status}} {{.Availability}} {{.ManagerStatus}}'

manager_id=$(docker info --format '{{.Swarm.NodeID}}')
# Which node each run's task landed on (both nodes are called `$(hostname)`: by node id),
# sampled while runs go: lines `<task id> manager|worker <state>`, tasks seen before left out.
node_tasks() {
  docker node ps "$manager_id" --format '{{.ID}} manager {{.CurrentState}}' 2>/dev/null
  docker node ps "$worker_id" --format '{{.ID}} worker {{.CurrentState}}' 2>/dev/null
}
watch_nodes() {
  node_tasks | awk '{print $1}' > "$1.before"
  while :; do node_tasks; sleep 0.5; done \
    | awk -v before="$1.before" 'BEGIN { while ((getline l < before) > 0) old[l] = 1 }
        !($1 in old) && !seen[$1]++ { print; fflush() }' > "$1"
}

verify_all() { # $1: output table file; runs from $2 (folder with taskc.toml or not)
  local out=$1 dir=$2 cache=$3 ex code
  : > "$out"
  for ex in $EXAMPLES; do
    code=0
    (cd "$dir" && "$TASKC" verify "$ROOT/examples/$ex/$ex.task" --backend swarm --jobs 2 \
      --no-lock --cache "$cache" --color never > "$out.$ex" 2> "$out.$ex.err") || code=$?
    if [ "$code" -gt 1 ]; then tail -5 "$out.$ex.err"; exit 1; fi
    sed -E 's/, [0-9.]+ s\)$/, [time])/; s#'"$ROOT"'/##' "$out.$ex" >> "$out"
  done
  grep -c '^verify ' "$out" | sed 's/^/tables: /'
}

mkdir -p "$W/one" "$W/two"
# Both nodes share this kernel: one overlay's VXLAN id cannot exist twice, so test runs
# attach to no swarm network (the wrapper takes the interfaces down either way).
printf '[cluster]\nregistry = "%s"\nnetwork = "none"\n' "$REGISTRY" > "$W/two/taskc.toml"

if [ "$MODE" = bench ]; then
  say "bench on two nodes"
  (cd "$W/two" && cargo bench --manifest-path "$ROOT/Cargo.toml" --bench swarm_overhead)
  exit 0
fi

say "verify on two nodes (registry $REGISTRY)"
d2 node ls >/dev/null 2>&1 || true
watch_nodes "$W/nodes-two.txt" & watch_pid=$!
start=$(date +%s)
verify_all "$W/two.txt" "$W/two" "$W/cache-two"
echo "wall: $(( $(date +%s) - start )) s"
kill "$watch_pid"; watch_pid=
echo "tasks per node:"; awk '{print $2}' "$W/nodes-two.txt" | sort | uniq -c
grep -q ' worker ' "$W/nodes-two.txt" || { echo "no task ran on the worker"; exit 1; }

say "verify on the manager only (worker drained)"
docker node update --availability drain "$worker_id" >/dev/null
start=$(date +%s)
verify_all "$W/one.txt" "$W/one" "$W/cache-one"
echo "wall: $(( $(date +%s) - start )) s"
docker node update --availability active "$worker_id" >/dev/null
if diff -u "$W/one.txt" "$W/two.txt"; then echo "tables: identical on one node and on two"; else echo "tables DIFFER"; exit 1; fi

say "kill -9 of the worker dockerd mid-run"
watch_nodes "$W/nodes-kill.txt" & watch_pid=$!
( cd "$W/two" && "$TASKC" verify "$ROOT/examples/cookie-split/cookie-split.task" --backend swarm \
    --jobs 2 --no-lock --cache "$W/cache-kill" --color never > "$W/kill.txt" 2> "$W/kill.err" ) &
verify_pid=$!
on_worker=
for _ in $(seq 900); do
  # (a job's task is desired `complete`, not `running`: filter on the current state)
  if docker node ps "$worker_id" --format '{{.CurrentState}}' 2>/dev/null \
      | grep -q '^Running'; then on_worker=1; break; fi
  sleep 0.2
done
[ -n "$on_worker" ] || { echo "no task reached the worker"; exit 1; }
echo "a task runs on the worker: kill -9 $(cat "$W/docker.pid") (its dockerd)"
kill -9 "$(cat "$W/docker.pid")"
code=0; wait "$verify_pid" || code=$?
echo "verify exit: $code"
kill "$watch_pid"; watch_pid=
echo "tasks per node:"; awk '{print $2}' "$W/nodes-kill.txt" | sort | uniq -c
grep 'note: swarm' "$W/kill.err" || echo "(no retry noted)"
sed -E 's/, [0-9.]+ s\)$/, [time])/; s#'"$ROOT"'/##' "$W/kill.txt" > "$W/kill-table.txt"
if diff -u <(sed -n '/^verify examples\/cookie-split/,/^sound/p' "$W/one.txt") "$W/kill-table.txt"; then
  echo "verdict after kill -9: unchanged"
else
  echo "verdict after kill -9 DIFFERS"; exit 1
fi
