#!/usr/bin/env bash
# disk.sh before|after: the disk the test suite uses, printed before and after it runs, so
# a run that dies of a full disk says what filled it. Before the run, when the file
# system of cargo's target directory or of Docker's data falls short of what the suite
# needs, it takes back only what nothing refers to: dangling images (no tag, no
# container) and build-cache records unused for a day, then, if still short, every build
# cache record no build is using (a cache: later builds download again, nothing a run
# produced is lost). TASKC_TEST_NO_RECLAIM=1 turns that off. Tests remove the images their own caches build (tests/support); images the
# suite shares by a fixed tag (taskc/base:bookworm, parsers-runners:bookworm) stay.
set -euo pipefail
cd "$(dirname "$0")/.."
when=${1:-before}
# What one run needs, measured (docs/performance.md, "The test suite's disk"): the
# target directory ~5 GB with clippy's, Docker images ~6 GB and build cache ~10 GB.
need_gb=${TASKC_TEST_NEED_GB:-25}
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
free_gb() { df -P -BG "$1" | awk 'NR==2 { sub("G", "", $4); print $4 }'; }
docker_root=$(docker info -f '{{.DockerRootDir}}' 2>/dev/null || true)
report() {
  echo "disk ($when the tests): $(free_gb "$target") GB free for $target ($(du -sh "$target" 2>/dev/null | cut -f1) used)"
  if [ -n "$docker_root" ]; then
    echo "disk ($when the tests): $(free_gb "$docker_root") GB free for Docker ($docker_root)"
    docker system df 2>/dev/null | sed 's/^/  /'
  fi
}
report
if [ "$when" = before ] && [ "${TASKC_TEST_NO_RECLAIM:-}" != 1 ] && [ -n "$docker_root" ]; then
  short() { [ "$(free_gb "$target")" -lt "$need_gb" ] || [ "$(free_gb "$docker_root")" -lt "$need_gb" ]; }
  if short; then
    echo "disk: under ${need_gb} GB free; removing dangling images and build cache unused for 24 h"
    docker image prune --force --filter dangling=true | tail -1
    docker builder prune --force --filter until=24h | tail -1
    if short; then
      echo "disk: still under ${need_gb} GB free; removing the build cache no build is using"
      docker builder prune --force | tail -1
    fi
    report
  fi
fi
