#!/bin/bash
# Written by `taskc export harbor`; do not edit. Harbor's verifier runs it as root after the
# agent: it keeps each repository's recorded change in the verifier log folder, grades it as
# `taskc score` plans it, and writes reward.json (see taskc's docs/export.md).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /logs/verifier
# The test user (uid 10001) reads neither the hidden tests nor the oracle.
chmod 0700 "$here"
if ! command -v python3 >/dev/null 2>&1; then
  echo "taskc: the verifier needs python3 in the image; none found" >&2
  echo '{"reward": 0}' > /logs/verifier/reward.json
  exit 0
fi
TASKC_TEST_PATH="$PATH" exec python3 "$here/taskc_grade.py"
