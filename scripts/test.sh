#!/usr/bin/env bash
# The whole test suite, from a fresh machine: set-up, then every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# The disk report never fails the suite; only the tests do.
./scripts/disk.sh before || echo "test: the disk report failed (above); going on"
trap './scripts/disk.sh after || true' EXIT
cargo test --workspace
