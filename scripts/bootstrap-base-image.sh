#!/usr/bin/env bash
# Shell fallback of `taskc image bootstrap`: builds taskc/base:bookworm with debootstrap and
# imports it with `docker import` (no registry needed). Needs root, debootstrap and docker:
#   apt-get install -y debootstrap
# The image carries the same labels as the Rust bootstrap, so taskc reuses it by tag.
set -euo pipefail

TAG=${TAG:-taskc/base:bookworm}
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PACKAGES=python3,python3-pytest,python3-venv,python3-pip,git,ca-certificates,patch

# Same recipe text as BootstrapOptions::content_id (packages sorted).
sorted=$(tr ',' '\n' <<<"$PACKAGES" | LC_ALL=C sort | paste -sd, -)
CONTENT_ID=$(printf 'taskc-base-v1\nsuite=%s\nmirror=%s\nvariant=minbase\npackages=%s\n' \
  "$SUITE" "$MIRROR" "$sorted" | sha256sum | cut -d' ' -f1)

existing=$(docker image inspect --format '{{ index .Config.Labels "taskc.base.content-id" }}' "$TAG" 2>/dev/null || true)
if [[ "${1:-}" != "--force" && "$existing" == "$CONTENT_ID" ]]; then
  echo "$TAG already present (content id $CONTENT_ID)"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then echo "error: run as root (debootstrap needs it)" >&2; exit 2; fi
command -v debootstrap >/dev/null || PATH=$PATH:/usr/sbin:/sbin
command -v debootstrap >/dev/null || { echo "error: apt-get install -y debootstrap" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$work/rootfs" "$MIRROR"
rm -f "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/cache/apt/*.bin
find "$work/rootfs/var/lib/apt/lists" -maxdepth 1 -type f ! -name lock -delete
tar --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
  -C "$work/rootfs" -c . |
  docker import \
    --change "LABEL taskc.base.content-id=\"$CONTENT_ID\"" \
    --change "LABEL taskc.base.packages=\"$PACKAGES\"" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV DEBIAN_FRONTEND=noninteractive' \
    --change 'CMD ["bash"]' \
    - "$TAG"
echo "$TAG built in $(( $(date +%s) - start ))s (content id $CONTENT_ID)"
