#!/usr/bin/env bash
# Installs what taskc's tests and examples need on a fresh Debian machine of this kind
# (rust-docker: Rust toolchain + Docker Engine present, no container registry).
# Idempotent: re-running it does nothing that is already done.
set -euo pipefail

need_apt=()
command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || need_apt+=(debootstrap)
command -v git >/dev/null 2>&1 || need_apt+=(git)
# The HTML report test renders the report in headless Chromium (a font for its screenshot).
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium fonts-dejavu-core)
# The local backend runs the sdk-retry example with the host's node and go.
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v go >/dev/null 2>&1 || need_apt+=(golang-go)
command -v unshare >/dev/null 2>&1 || need_apt+=(util-linux)
# The local backend sandboxes every run with bubblewrap (docs/security.md, defence 9).
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
# scripts/swarm-multinode.sh (run by tests/swarm_multinode.rs as root): a registry on
# loopback, fuse-overlayfs for the second dockerd, curl and iproute2.
command -v docker-registry >/dev/null 2>&1 || need_apt+=(docker-registry)
command -v fuse-overlayfs >/dev/null 2>&1 || need_apt+=(fuse-overlayfs)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v ip >/dev/null 2>&1 || need_apt+=(iproute2)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# The local backend runs the python examples with the host's python3 and pytest.
if ! python3 -c 'import pytest' >/dev/null 2>&1; then
  echo "setup: installing pytest from PyPI"
  python3 -m pip install --quiet pytest
fi

if ! docker info >/dev/null 2>&1; then
  echo "setup: the Docker Engine does not answer (docker info failed)." >&2
  echo "       Start it (e.g. 'service docker start') or run the suite with TASKC_SKIP_DOCKER=1." >&2
  exit 1
fi

# Base image built from nothing (debootstrap + docker import); reused by tag when present.
cargo run --quiet --bin taskc -- image bootstrap

# Harbor (tests/export_harbor.rs): PyPI's harbor in a venv with Python >= 3.12, and Docker
# Compose v2 as a CLI plugin.
if [ "${TASKC_SKIP_HARBOR:-}" != 1 ]; then
  "$(dirname "$0")/harbor/setup.sh"
fi
