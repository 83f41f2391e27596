#!/bin/bash
# Written by `taskc export harbor`; do not edit. Harbor's verifier runs it as root after the
# agent, in a fresh container of the task image: `taskc` itself (the binary that exported
# the task) grades the agent's recorded change as `taskc score` does — canaries, the test
# surface restored, one reading of every patch, the unprivileged test user, taskc's parsers —
# and writes reward.json (see taskc's docs/export.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /logs/verifier
# The test user (uid 10001) reads neither the hidden tests nor the oracle.
chmod 0700 "$here"
# The grader is linked against the exporting host's glibc: the image must have one as new.
if ! "$here/taskc" --version >/logs/verifier/taskc-version.txt 2>&1; then
  echo "taskc: the exported grader cannot run in this image (it needs glibc >= 2.36, as in taskc's bookworm base): $(head -c 400 /logs/verifier/taskc-version.txt)" >&2
  echo '{"reward": 0}' > /logs/verifier/reward.json
  exit 0
fi
# Without the collect hook's record (a verifier sharing the agent's container), record here.
if [ ! -d /logs/artifacts/taskc/diffs ] && [ -f /opt/taskc/taskc_record.py ] && command -v python3 >/dev/null 2>&1; then
  python3 /opt/taskc/taskc_record.py /opt/taskc/repos.json /logs/artifacts/taskc
fi
# Reward 0 until the grader says otherwise: a grader killed on the way leaves no pass.
echo '{"reward": 0}' > /logs/verifier/reward.json
# The image's environment (its ENV lines) reaches the tests; taskc keeps its own PATH.
exec "$here/taskc" export harbor-grade --tests "$here"
