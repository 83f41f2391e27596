#!/usr/bin/env bash
# The whole test suite, from a fresh machine: set-up, then every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/disk.sh before
trap './scripts/disk.sh after' EXIT
cargo test --workspace
