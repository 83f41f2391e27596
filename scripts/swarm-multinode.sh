#!/usr/bin/env bash
# A two-node Docker Swarm on this one machine, for `--backend swarm` (docs/backends.md):
#
#   scripts/swarm-multinode.sh [verify|bench]
#
# `cargo test` runs `verify` through tests/swarm_multinode.rs (root only), which asserts on
# the `ok:` lines it prints; every check that fails prints `FAILED: …` and the script exits
# non-zero.
#
# - the first engine (the default socket) is the manager: made a swarm
#   (`docker swarm init --advertise-addr 127.0.0.1`) unless it is one, and left at the end
#   only if this script made it (with the `docker_gwbridge` network its init created);
# - a registry from Debian's `docker-registry` package on 127.0.0.1:5055 (its own folder);
# - a second dockerd with its own --data-root, --exec-root, --pidfile, unix socket,
#   --config-file and its OWN bridge `taskc-br1` (never `--bridge none`: that deleted the
#   first engine's docker0 here once), no iptables rules of its own; it loads the base
#   image from the registry (no pull from the internet) and joins as a worker on
#   127.0.0.1:2378;
# - `verify` (default), with the examples of TASKC_SWARM_EXAMPLES (default: all five):
#   1. bad input, through the real binary: the second engine before it joins (in no swarm)
#      and after (a worker) is refused with `swarm: inspect the swarm`; two nodes without
#      `[cluster] registry`, and a drained manager whose only other node lacks the image,
#      are refused before any run (`swarm: distribute the image`); a node that becomes
#      schedulable mid-run without the image gives `swarm: run the job's task` naming
#      `[cluster] registry`, not a hang;
#   2. every example verified on two nodes (`[cluster] registry`), then on the manager
#      alone (worker drained): tables compared, where the tasks ran counted;
#   3. cleanup on the remote node: after those runs, after runs that time out there, and
#      after a Ctrl-C while runs go there (manager drained), no taskc service or config on
#      the manager and no taskc container on the worker (through its socket);
#   4. a verify during which the worker dockerd is killed with -9: its runs are retried on
#      the manager and the table must not change;
# - `bench`: `cargo bench --bench swarm_overhead` on the two-node swarm.
#
# The first engine's `bridge` network and a `docker run --rm taskc/base:bookworm true` are
# checked before and after. Every daemon, folder, mount and interface made here is removed
# on exit (a trap, also on failure), and that is checked. Needs root, dockerd,
# fuse-overlayfs, docker-registry, curl, iproute2, flock (scripts/setup.sh installs them) and the
# base image `taskc/base:bookworm` (`taskc image bootstrap`).
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
say() { printf '\n== %s  (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }
ok() { echo "ok: $*"; }
fail() { echo "FAILED: $*"; exit 1; }

made_swarm=
had_gwbridge=
worker_id=
manager_id=
registry_pid=
watch_pid=
bg_pid=

first_engine_ok() {
  docker network inspect bridge --format 'bridge network: {{.Name}} {{range .IPAM.Config}}{{.Subnet}}{{end}}' \
    && ip -br link show docker0 \
    && docker run --rm "$BASE" true && echo "docker run --rm $BASE true: ok"
}

# The host's interfaces that are neither a container's veth nor a user network's bridge
# (other users of the engine make and remove those meanwhile).
interfaces() {
  ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -v -e '^veth' -e '^br-' | sort
}

# Every process whose command line names the worker's folder (dockerd, its containerd,
# shims, fuse-overlayfs), by pid.
worker_pids() {
  local p
  for p in /proc/[0-9]*; do
    if { tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null | grep -q -- "$W/"; then
      echo "${p#/proc/}"
    fi
  done
}
worker_mounts() { awk -v w="$W/" 'index($2, w) == 1 {print $2}' /proc/mounts; }

cleanup() {
  local rc=$? left
  set +e
  say "cleanup (exit $rc so far)"
  rm -f "$W"/*.watch
  [ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null
  [ -n "$watch_pid" ] && wait "$watch_pid" 2>/dev/null
  if [ -n "$manager_id" ] && [ -z "$made_swarm" ]; then
    docker node update --availability active "$manager_id" >/dev/null 2>&1
  fi
  if [ -S "$SOCK" ]; then d2 swarm leave --force >/dev/null 2>&1; fi
  [ -n "$worker_id" ] && docker node rm --force "$worker_id" >/dev/null 2>&1
  if [ -f "$W/docker.pid" ]; then kill "$(cat "$W/docker.pid")" 2>/dev/null; sleep 3; fi
  for pid in $(worker_pids); do kill -9 "$pid" 2>/dev/null; done
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null
  sleep 1
  # Mounts the worker left (overlay layers, netns, shm), deepest first.
  worker_mounts | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null || fusermount -uz "$m" 2>/dev/null
  done
  ip link del "$BRIDGE" 2>/dev/null
  cp "$W/dockerd.log" "${TMPDIR:-/tmp}/swarm-multinode-worker-dockerd.log" 2>/dev/null
  cp "$W"/nodes-*.txt "${TMPDIR:-/tmp}/" 2>/dev/null
  rm -rf "$W"
  docker images --format '{{.Repository}}:{{.Tag}}' | grep "^$REGISTRY/" | xargs -r docker rmi >/dev/null 2>&1
  if [ -n "$made_swarm" ]; then
    docker swarm leave --force >/dev/null
    [ -z "$had_gwbridge" ] && docker network rm docker_gwbridge >/dev/null 2>&1
  fi
  say "first engine after"
  local bad=
  if first_engine_ok; then ok "first engine after: its bridge network and docker run work"
  else echo "FAILED: the first engine's bridge network or docker run is broken"; bad=1; fi
  left="$(worker_pids | tr '\n' ' ')$(worker_mounts | tr '\n' ' ')"
  [ -e "$W" ] && left="$left $W"
  if [ -z "$left" ]; then ok "no process, mount or folder of the second daemon left"
  else echo "FAILED: left behind: $left"; bad=1; fi
  if [ -f "${TMPDIR:-/tmp}/swarm-multinode-interfaces.before" ] \
      && diff <(cat "${TMPDIR:-/tmp}/swarm-multinode-interfaces.before") <(interfaces); then
    ok "the host's interfaces are those of before ($BRIDGE gone)"
  else echo "FAILED: the host's interfaces changed"; bad=1; fi
  rm -f "${TMPDIR:-/tmp}/swarm-multinode-interfaces.before"
  if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = "$swarm_before" ]; then
    ok "the first engine's swarm state is the one of before ($swarm_before)"
  else echo "FAILED: the first engine's swarm state changed"; bad=1; fi
  if [ "$rc" -eq 0 ] && [ -n "$bad" ]; then rc=1; fi
  exit "$rc"
}

for cmd in dockerd docker-registry fuse-overlayfs curl ip flock; do
  command -v "$cmd" >/dev/null || fail "$cmd is not installed (scripts/setup.sh installs it)"
done
[ "$(id -u)" = 0 ] || fail "run as root (a second dockerd)"
case " $EXAMPLES " in *" cookie-split "*) ;; *) fail "TASKC_SWARM_EXAMPLES must include cookie-split";; esac
[ -x "$TASKC" ] || fail "no taskc binary at $TASKC (cargo build, or set TASKC)"
docker image inspect "$BASE" >/dev/null 2>&1 || fail "no $BASE on the engine (taskc image bootstrap)"
# Refuse rather than remove what someone else may own.
[ -e "$W" ] && fail "$W exists (a run of this script still going, or a crashed one: remove it)"
ip link show "$BRIDGE" >/dev/null 2>&1 && fail "the interface $BRIDGE exists"
curl -s "http://$REGISTRY/v2/" >/dev/null && fail "something listens on $REGISTRY already"

# The swarm tests' lock (runtime/tests/support/swarm_guard.rs), held exclusively until
# this script exits: no test process uses the swarm while nodes join and drain, and the
# script waits for those that do.
exec 9>>/tmp/taskc-swarm-tests.lock
echo "waiting for the swarm tests' lock /tmp/taskc-swarm-tests.lock"
flock -w 1800 9 || fail "the swarm tests' lock stayed taken for 30 minutes"

swarm_before=$(docker info --format '{{.Swarm.LocalNodeState}}')
interfaces > "${TMPDIR:-/tmp}/swarm-multinode-interfaces.before"
trap cleanup EXIT

say "first engine before"
first_engine_ok || fail "the first engine's bridge network or docker run does not work"

if [ "$swarm_before" != active ]; then
  docker network inspect docker_gwbridge >/dev/null 2>&1 && had_gwbridge=1
  docker swarm init --advertise-addr 127.0.0.1 >/dev/null
  made_swarm=1
fi
manager_id=$(docker info --format '{{.Swarm.NodeID}}')

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
docker-registry serve "$W/registry.yml" > "$W/registry.log" 2>&1 9>&- &
registry_pid=$!
for _ in $(seq 50); do curl -sf "http://$REGISTRY/v2/" >/dev/null && break; sleep 0.2; done
curl -sf "http://$REGISTRY/v2/" >/dev/null || fail "the registry does not answer"

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
  --pidfile "$W/docker.pid" -H "unix://$SOCK" --bridge "$BRIDGE" > "$W/dockerd.log" 2>&1 9>&- &
for _ in $(seq 100); do d2 info >/dev/null 2>&1 && break; sleep 0.3; done
d2 info --format 'worker engine: {{.ServerVersion}}, storage {{.Driver}}'

# taskc in folder $1 (its taskc.toml), writing $2.out / $2.err, exit code in $2.code;
# the rest are taskc's arguments. DOCKER_HOST as the caller sets it.
taskc_in() {
  local dir=$1 out=$2 code=0
  shift 2
  (cd "$dir" && "$TASKC" "$@" --color never > "$out.out" 2> "$out.err") || code=$?
  echo "$code" > "$out.code"
}
# Checks that run $1 exited with $2 and that its stderr has each of the other strings.
expect_error() {
  local out=$1 want=$2 got s
  shift 2
  got=$(cat "$out.code")
  if [ "$got" != "$want" ]; then
    tail -20 "$out.err"; fail "$(basename "$out"): exit $got, expected $want"
  fi
  for s in "$@"; do
    grep -qF -- "$s" "$out.err" || { cat "$out.err"; fail "$(basename "$out"): no \`$s\` in its stderr"; }
  done
  sed -n '/^error/,$p' "$out.err" | head -4
}
# No taskc service or config on the manager, no taskc task container on either node
# (the engines remove a removed task's container asynchronously: allowed 30 s).
nothing_left() {
  local what=$1 n
  for _ in $(seq 60); do
    n=$(( $(docker service ls -q --filter label=taskc.session | wc -l)
        + $(docker config ls -q --filter label=taskc.session | wc -l)
        + $(docker ps -aq --filter label=taskc.session --filter label=com.docker.swarm.task.id | wc -l)
        + $(d2 ps -aq --filter label=taskc.session | wc -l) ))
    [ "$n" -eq 0 ] && { ok "nothing left $what (manager: services, configs, task containers; worker: containers)"; return; }
    sleep 0.5
  done
  docker service ls --filter label=taskc.session; docker config ls --filter label=taskc.session
  d2 ps -a --filter label=taskc.session
  fail "taskc objects left $what"
}

mkdir -p "$W/one" "$W/two" "$W/noreg" "$W/out"
# Both nodes share this kernel: one overlay's VXLAN id cannot exist twice, so test runs
# attach to no swarm network (the wrapper takes the interfaces down either way).
printf '[cluster]\nregistry = "%s"\nnetwork = "none"\n' "$REGISTRY" > "$W/two/taskc.toml"
printf '[cluster]\nnetwork = "none"\n' > "$W/noreg/taskc.toml"
cp "$W/two/taskc.toml" "$W/one/taskc.toml"
COOKIE=$ROOT/examples/cookie-split/cookie-split.task

if [ "$MODE" != bench ]; then
  say "an engine in no swarm (the second one, before it joins)"
  DOCKER_HOST=unix://$SOCK taskc_in "$W/noreg" "$W/out/no-swarm" verify "$COOKIE" --backend swarm --no-lock --cache "$W/cache-err"
  expect_error "$W/out/no-swarm" 2 "swarm: inspect the swarm" "swarm state: inactive" \
    "docker swarm init --advertise-addr 127.0.0.1"
  ok "an engine in no swarm is refused, naming the operation and what to do (exit 2)"
fi

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

# Which node each run's task landed on (both nodes are called `$(hostname)`: by node id),
# sampled while runs go: lines `<task id> manager|worker <state>`, tasks seen before left out.
node_tasks() {
  docker node ps "$manager_id" --format '{{.ID}} manager {{.CurrentState}}' 2>/dev/null
  docker node ps "$worker_id" --format '{{.ID}} worker {{.CurrentState}}' 2>/dev/null
}
# Runs in the background until stop_watch removes its flag file.
watch_nodes() {
  node_tasks | awk '{print $1}' > "$1.before"
  while [ -e "$1.watch" ]; do node_tasks; sleep 0.5; done \
    | awk -v before="$1.before" 'BEGIN { while ((getline l < before) > 0) old[l] = 1 }
        !($1 in old) && !seen[$1]++ { print; fflush() }' > "$1"
}
start_watch() { touch "$1.watch"; watch_nodes "$1" & watch_pid=$!; }
stop_watch() { rm -f "$W"/*.watch; [ -n "$watch_pid" ] && wait "$watch_pid"; watch_pid=; }
# Waits (at most $2 s) until a task runs on node $1 (manager|worker).
wait_running_on() {
  local node=$1 id
  [ "$node" = manager ] && id=$manager_id || id=$worker_id
  for _ in $(seq $(( $2 * 5 ))); do
    # (a job's task is desired `complete`, not `running`: filter on the current state)
    if docker node ps "$id" --format '{{.CurrentState}}' 2>/dev/null | grep -q '^Running'; then
      return 0
    fi
    sleep 0.2
  done
  return 1
}
# Waits (at most $2 s) for background pid $1; its exit code in $bg_code; a hang fails.
wait_bg() {
  local pid=$1
  for _ in $(seq $(( $2 * 5 ))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && fail "taskc still runs after $2 s (a hang)"
  bg_code=0; wait "$pid" || bg_code=$?
  bg_pid=
}

verify_all() { # $1: output table file; runs from $2 (folder with taskc.toml or not)
  local out=$1 dir=$2 cache=$3 ex code
  : > "$out"
  for ex in $EXAMPLES; do
    code=0
    (cd "$dir" && "$TASKC" verify "$ROOT/examples/$ex/$ex.task" --backend swarm --jobs 2 \
      --no-lock --cache "$cache" --color never > "$out.$ex" 2> "$out.$ex.err") || code=$?
    if [ "$code" -gt 1 ]; then tail -5 "$out.$ex.err"; fail "verify $ex exited $code"; fi
    sed -E 's/, [0-9.]+ s\)$/, [time])/; s#'"$ROOT"'/##' "$out.$ex" >> "$out"
  done
  grep -c '^verify ' "$out" | sed 's/^/tables: /'
}

if [ "$MODE" = bench ]; then
  say "bench on two nodes"
  (cd "$W/two" && cargo bench --manifest-path "$ROOT/Cargo.toml" --bench swarm_overhead)
  exit 0
fi

say "a worker engine"
DOCKER_HOST=unix://$SOCK taskc_in "$W/noreg" "$W/out/worker" verify "$COOKIE" --backend swarm --no-lock --cache "$W/cache-err"
expect_error "$W/out/worker" 2 "swarm: inspect the swarm" "active, but this node is a worker"
ok "a worker engine is refused, naming the operation and what to do (exit 2)"

say "two nodes, no [cluster] registry"
taskc_in "$W/noreg" "$W/out/noreg" verify "$COOKIE" --backend swarm --no-lock --jobs 2 --cache "$W/cache-err"
expect_error "$W/out/noreg" 2 "swarm: distribute the image" "[cluster] registry"
nothing_left "after the refusal"
ok "two nodes without a registry are refused before any run (exit 2)"

say "the manager drained, the worker (without the image) the only node, no registry"
docker node update --availability drain "$manager_id" >/dev/null
taskc_in "$W/noreg" "$W/out/drained" verify "$COOKIE" --backend swarm --no-lock --jobs 2 --cache "$W/cache-err"
docker node update --availability active "$manager_id" >/dev/null
expect_error "$W/out/drained" 2 "swarm: distribute the image" "[cluster] registry"
ok "a drained manager whose only schedulable node lacks the image is refused before any run (exit 2)"

say "a node without the image becomes the only schedulable one mid-run, no registry"
docker node update --availability drain "$worker_id" >/dev/null
( cd "$W/noreg" && exec "$TASKC" verify "$COOKIE" --backend swarm --no-lock --jobs 2 \
    --cache "$W/cache-late" --color never > "$W/out/late.out" 2> "$W/out/late.err" ) &
bg_pid=$!
wait_running_on manager 600 || fail "no run started on the manager"
docker node update --availability active "$worker_id" >/dev/null
docker node update --availability drain "$manager_id" >/dev/null
start=$(date +%s)
wait_bg "$bg_pid" 180
echo "taskc ended $(( $(date +%s) - start )) s after the switch"
docker node update --availability active "$manager_id" >/dev/null
echo "$bg_code" > "$W/out/late.code"
expect_error "$W/out/late" 2 "swarm: run the job's task" "does not have the image" "[cluster] registry"
nothing_left "after the error"
ok "a run placed on a node without the image is a clear error naming the operation and [cluster] registry (exit 2, no hang)"

say "verify on two nodes (registry $REGISTRY)"
start_watch "$W/nodes-two.txt"
start=$(date +%s)
verify_all "$W/two.txt" "$W/two" "$W/cache-two"
echo "wall: $(( $(date +%s) - start )) s"
stop_watch
echo "tasks per node:"; awk '{print $2}' "$W/nodes-two.txt" | sort | uniq -c
grep -q ' worker ' "$W/nodes-two.txt" || fail "no task ran on the worker"
grep -q ' manager ' "$W/nodes-two.txt" || fail "no task ran on the manager"
ok "runs placed on both nodes"
nothing_left "after runs on both nodes"

say "verify on the manager only (worker drained)"
docker node update --availability drain "$worker_id" >/dev/null
start=$(date +%s)
verify_all "$W/one.txt" "$W/one" "$W/cache-one"
echo "wall: $(( $(date +%s) - start )) s"
docker node update --availability active "$worker_id" >/dev/null
if diff -u "$W/one.txt" "$W/two.txt"; then ok "tables identical on one node and on two"; else fail "tables differ"; fi

# A copy of cookie-split whose test commands sleep first (same images).
mkdir -p "$W/slow"
cp -r "$ROOT/examples/cookie-split/." "$W/slow/"
rm -f "$W/slow/cookie-split.lock"
sed -i 's/run "/run "sleep 120; /' "$W/slow/cookie-split.task"
cp -r "$W/slow" "$W/tmo"
sed -i 's/timeout 600/timeout 3/' "$W/tmo/cookie-split.task"

say "runs that time out on the worker (manager drained)"
docker node update --availability drain "$manager_id" >/dev/null
start_watch "$W/nodes-tmo.txt"
taskc_in "$W/two" "$W/out/tmo" verify "$W/tmo/cookie-split.task" --backend swarm --no-lock --jobs 2 --cache "$W/cache-tmo"
stop_watch
code=$(cat "$W/out/tmo.code")
[ "$code" -le 1 ] || { tail -5 "$W/out/tmo.err"; fail "verify of timed-out runs exited $code"; }
grep -q ' worker ' "$W/nodes-tmo.txt" || fail "no timed-out task ran on the worker"
grep -q ' manager ' "$W/nodes-tmo.txt" && fail "a task ran on the drained manager"
echo "lines naming a timeout: $(grep -c 'timed out\|timeout' "$W/out/tmo.out" || true)"
nothing_left "after runs timed out on the worker"

say "Ctrl-C while runs go on the worker (manager drained)"
( cd "$W/two" && exec "$TASKC" verify "$W/slow/cookie-split.task" --backend swarm --no-lock \
    --jobs 2 --cache "$W/cache-int" --color never > "$W/out/int.out" 2> "$W/out/int.err" ) &
bg_pid=$!
wait_running_on worker 300 || fail "no run started on the worker"
sleep 1
kill -INT "$bg_pid"
wait_bg "$bg_pid" 120
echo "$bg_code" > "$W/out/int.code"
expect_error "$W/out/int" 130 "interrupted"
docker node update --availability active "$manager_id" >/dev/null
nothing_left "after a Ctrl-C during runs on the worker"
ok "the worker keeps no taskc container after runs, timeouts and a Ctrl-C there"

say "kill -9 of the worker dockerd mid-run"
start_watch "$W/nodes-kill.txt"
( cd "$W/two" && exec "$TASKC" verify "$COOKIE" --backend swarm \
    --jobs 2 --no-lock --cache "$W/cache-kill" --color never > "$W/kill.txt" 2> "$W/kill.err" ) &
bg_pid=$!
wait_running_on worker 180 || fail "no task reached the worker"
echo "a task runs on the worker: kill -9 $(cat "$W/docker.pid") (its dockerd)"
kill -9 "$(cat "$W/docker.pid")"
wait_bg "$bg_pid" 600
echo "verify exit: $bg_code"
stop_watch
echo "tasks per node:"; awk '{print $2}' "$W/nodes-kill.txt" | sort | uniq -c
grep 'note: swarm' "$W/kill.err" || echo "(no retry noted)"
sed -E 's/, [0-9.]+ s\)$/, [time])/; s#'"$ROOT"'/##' "$W/kill.txt" > "$W/kill-table.txt"
if diff -u <(sed -n '/^verify examples\/cookie-split/,/^sound/p' "$W/one.txt") "$W/kill-table.txt"; then
  ok "verdict after kill -9 of the worker unchanged"
else
  fail "verdict after kill -9 differs"
fi
