#!/usr/bin/env bash
# Stand-in images for a site without a container registry: local images named for the
# official ones (taskc-standin/python:3.12, taskc-standin/rust:1.95, …), built from what
# this machine already has — pyenv's CPythons, rustup's toolchains, Debian's packages — on
# top of taskc's bootstrapped base image. No registry pull. Map them in `taskc.toml`:
#
#   [images.map]
#   "python:3.12-bookworm" = "taskc-standin/python:3.12"
#   "rust:1.95" = "taskc-standin/rust:1.95"
#
# (`--print-map` prints these lines for what was built.) docs/cli.md, "Stand-in images".
#
# Usage: scripts/standins/build.sh [--print-map] [python:3.12 python:3.13 python:3.14 rust:1.95 …]
#   (no names: every Python of `pyenv` 3.12–3.14 and every rustup toolchain 1.89–1.95 found)
# A python:3.14 that pyenv lacks comes from Debian's packages instead: a `debootstrap`ped
# Debian root (DEBIAN_SUITE, default sid; DEBIAN_MIRROR) with its python3.14, `docker
# import`ed — needs root, `debootstrap` and the mirror; fails unless `python3 --version`
# says 3.14 in the image without a network.
# Idempotent: an image whose `taskc.standin.source` label already names the same source
# (version, path, base image id) is kept as it is; `FORCE=1` rebuilds. A rust stand-in ships
# the host's rustup (RUSTUP_BIN, default ~/.cargo/bin/rustup) as the official image does, and
# fails the build unless `cargo +stable --version` answers in it without a network.
set -euo pipefail

BASE=${BASE:-taskc/base:bookworm}
PYENV_ROOT=${PYENV_ROOT:-$HOME/.pyenv}
RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
RUSTUP_BIN=${RUSTUP_BIN:-$HOME/.cargo/bin/rustup}
PREFIX=${PREFIX:-taskc-standin}
# The throwaway container of the offline check of a rust stand-in (`docker run --rm`).
CHECK_PREFIX=${CHECK_PREFIX:-taskc-standin-check}
print_map=0
names=()
for a in "$@"; do
  case "$a" in
    --print-map) print_map=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) names+=("$a") ;;
  esac
done

# The base image's id (the pyenv and rustup stand-ins are built on it; the Debian one is not).
base_id=
need_base() {
  [[ -n "$base_id" ]] && return
  base_id=$(docker image inspect --format '{{.Id}}' "$BASE" 2>/dev/null) || {
    echo "error: the base image $BASE is missing: run \`taskc image bootstrap\` (or scripts/setup.sh) first" >&2
    exit 2
  }
}

# The newest pyenv CPython of major.minor $1, or nothing.
pyenv_dir() {
  local d
  d=$(ls -d "$PYENV_ROOT/versions/$1".* 2>/dev/null | grep -E "/$1\.[0-9]+$" | sort -V | tail -1 || true)
  [[ -n "$d" && -x "$d/bin/python$1" ]] && echo "$d"
  return 0 # none: the caller says so (under `set -e` a false test here ended the script silently)
}

# The rustup toolchain directory of version $1 (1.95 → 1.95.x or stable if it is 1.95).
rust_dir() {
  local d v
  for d in "$RUSTUP_HOME"/toolchains/"$1".*-x86_64-unknown-linux-gnu "$RUSTUP_HOME"/toolchains/stable-x86_64-unknown-linux-gnu; do
    [[ -x "$d/bin/rustc" ]] || continue
    v=$("$d/bin/rustc" --version | awk '{print $2}')
    [[ "$v" == "$1".* ]] && { readlink -f "$d"; return; }
  done
  return 0
}

if [[ ${#names[@]} -eq 0 ]]; then
  for v in 3.12 3.13 3.14; do [[ -n "$(pyenv_dir $v)" ]] && names+=("python:$v"); done
  for m in 89 90 91 92 93 94 95; do [[ -n "$(rust_dir 1.$m)" ]] && names+=("rust:1.$m"); done
fi

# Build $1 (tag) from the context tar on stdin unless its source label is $2 already.
build() {
  local tag=$1 source=$2 have
  have=$(docker image inspect --format '{{ index .Config.Labels "taskc.standin.source" }}' "$tag" 2>/dev/null || true)
  if [[ -z "${FORCE:-}" && "$have" == "$source" ]]; then
    echo "$tag: up to date ($source)" >&2
    cat >/dev/null
    return
  fi
  local start=$SECONDS
  DOCKER_BUILDKIT=0 docker build -q -t "$tag" --label "taskc.standin.source=$source" - >/dev/null
  echo "$tag: built in $((SECONDS - start))s ($source)" >&2
}

# The site's CA certificates (a TLS-intercepting proxy's) go into every stand-in's trust
# store, as `taskc image bootstrap --ca-cert` puts them into the base: this host's
# /usr/local/share/ca-certificates/*.crt, or CA_DIR.
CA_DIR=${CA_DIR:-/usr/local/share/ca-certificates}
ca_files=$(ls "$CA_DIR"/*.crt 2>/dev/null || true)
ca_digest=$(cat $ca_files </dev/null 2>/dev/null | sha256sum | cut -c1-16)

DEBIAN_SUITE=${DEBIAN_SUITE:-sid}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The Pythons a stand-in may take from Debian's packages when pyenv has none: sid carries
# python3.14 (3.14.10-1 on 2026-12-07). Not apt-pinned over the bookworm base: sid's
# python3.14 needs sid's libc6 (2.43 against bookworm's 2.36), which would replace the
# base's C library under every other package — so a whole sid root, consistent in itself.
debian_pythons=" 3.14 "

# Fills the folder $2 with Debian $DEBIAN_SUITE's root filesystem holding python$1, laid out
# as the official image is where it matters: python3, python, pip, pip3 on PATH in
# /usr/local/bin (the interpreter is Debian's /usr/bin/python$1), `python$1 -m venv`
# (python$1-venv), headers (python$1-dev, as the official image has), pip installing into
# the system Python (Debian's PEP 668 marker EXTERNALLY-MANAGED removed: the official image
# has none), apt sources of the suite, and the site's CA certificates from $3 in the trust
# store. minbase: no build tools, as in the official slim image.
debian_python_root() {
  local ver=$1 root=$2 ca=$3 n
  debootstrap --variant=minbase \
    --include="ca-certificates,netbase,tzdata,python$ver,python$ver-venv,python$ver-dev,python3-pip,python-is-python3" \
    "$DEBIAN_SUITE" "$root" "$DEBIAN_MIRROR" >"$root.log" 2>&1 || {
    echo "error: debootstrap $DEBIAN_SUITE from $DEBIAN_MIRROR failed:" >&2
    tail -20 "$root.log" >&2
    return 1
  }
  cp -r "$ca"/. "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1 || { echo "error: update-ca-certificates failed in the Debian root" >&2; return 1; }
  rm -f "$root/usr/lib/python$ver/EXTERNALLY-MANAGED"
  # A recipe's `apt-get update` must work in the image: a mirror that serves sid's InRelease
  # past its Valid-Until (sid's lasts 7 days; the one reachable here expired 2026-11-06) is
  # refused by apt, though debootstrap took it. The signature is still checked.
  echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99taskc-standin-valid-until"
  for n in python3 python "python$ver"; do ln -sf "/usr/bin/python$ver" "$root/usr/local/bin/$n"; done
  for n in pip pip3 "pip$ver"; do
    printf '#!/bin/sh\nexec /usr/bin/python%s -m pip "$@"\n' "$ver" >"$root/usr/local/bin/$n"
    chmod 0755 "$root/usr/local/bin/$n"
  done
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/log/* "$root"/tmp/* "$root/debootstrap"
}

# Builds $PREFIX/python:$1 from Debian's packages (debian_python_root) in the folder $2 (the
# context with ca/), unless the image's source label names the same suite, mirror, recipe
# and CA already: sid moves, so `FORCE=1` takes its newer packages. The image is imported
# under a temporary tag, and gets its name only once `python3 --version` says $1 in it
# without a network (container $CHECK_PREFIX-<pid>, removed).
debian_python() {
  local ver=$1 work=$2 tag="$PREFIX/python:$1" source have start=$SECONDS out full deb libc
  source="debian $DEBIAN_SUITE python$ver from $DEBIAN_MIRROR, recipe $(declare -f debian_python_root | sha256sum | cut -c1-16), CA $ca_digest"
  have=$(docker image inspect --format '{{ index .Config.Labels "taskc.standin.source" }}' "$tag" 2>/dev/null || true)
  if [[ -z "${FORCE:-}" && "$have" == "$source" ]]; then
    echo "$tag: up to date ($source)" >&2
    return
  fi
  command -v debootstrap >/dev/null || { echo "error: python:$ver from Debian's packages needs debootstrap (apt-get install debootstrap)" >&2; return 1; }
  [[ $(id -u) -eq 0 ]] || { echo "error: python:$ver from Debian's packages needs root (debootstrap, chroot)" >&2; return 1; }
  debian_python_root "$ver" "$work/root" "$work/ca" || return 1
  full=$(chroot "$work/root" "python$ver" -c 'import platform; print(platform.python_version())')
  deb=$(chroot "$work/root" dpkg-query -W -f '${Version}' "python$ver")
  libc=$(chroot "$work/root" dpkg-query -W -f '${Version}' libc6)
  tar -C "$work/root" --numeric-owner -cf - . | docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV LANG=C.UTF-8" \
    --change "ENV PYTHON_VERSION=$full" \
    --change "ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt" \
    --change "ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" \
    --change "LABEL taskc.standin.source=\"$source\"" \
    --change "LABEL taskc.standin.packages=\"python$ver $deb, libc6 $libc ($DEBIAN_SUITE)\"" \
    --change 'CMD ["python3"]' - "$tag-unchecked" >/dev/null
  if ! out=$(docker run --rm --network none --name "$CHECK_PREFIX-$$" "$tag-unchecked" \
      sh -c "python3 --version && python --version && pip --version && pip3 --version && python$ver -m venv /tmp/v && /tmp/v/bin/python --version" 2>&1) \
    || [[ $(echo "$out" | grep -c "^Python $ver\\.") -ne 3 ]] || [[ $(echo "$out" | grep -c "(python $ver)") -ne 2 ]]; then
    echo "error: $tag (Debian $DEBIAN_SUITE's python$ver $deb) does not answer python3, python, pip and venv as $ver offline:" >&2
    echo "$out" >&2
    docker rmi "$tag-unchecked" >/dev/null
    return 1
  fi
  docker tag "$tag-unchecked" "$tag" && docker rmi "$tag-unchecked" >/dev/null
  echo "$tag: built in $((SECONDS - start))s (Python $full: Debian $DEBIAN_SUITE python$ver $deb, libc6 $libc); offline: $(echo "$out" | tr '\n' ';')" >&2
}

map_lines=()
for name in "${names[@]}"; do
  lang=${name%%:*}
  ver=${name#*:}
  work=$(mktemp -d)
  mkdir "$work/ca"
  for f in $ca_files; do cp "$f" "$work/ca/"; done
  case "$lang" in
    python)
      dir=$(pyenv_dir "$ver")
      if [[ -z "$dir" && "$debian_pythons" == *" $ver "* ]]; then
        debian_python "$ver" "$work" || { rm -rf "$work"; exit 2; }
        rm -rf "$work"
        map_lines+=("\"python:$ver-slim\" = \"$PREFIX/python:$ver\"" "\"python:$ver\" = \"$PREFIX/python:$ver\"")
        continue
      fi
      [[ -n "$dir" ]] || { echo "error: no pyenv CPython $ver under $PYENV_ROOT/versions (pyenv install $ver)" >&2; rm -rf "$work"; exit 2; }
      full=$(basename "$dir")
      need_base
      # The official image's layout: CPython under /usr/local, python3 and pip3 on PATH.
      cat >"$work/Dockerfile" <<DOCKER
FROM $BASE
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
COPY python/ /usr/local/
RUN ldconfig && ln -sf python$ver /usr/local/bin/python3 && ln -sf python3 /usr/local/bin/python \\
 && ln -sf pip$ver /usr/local/bin/pip3 && ln -sf pip3 /usr/local/bin/pip \\
 && for f in /usr/local/bin/pip*; do [ -L "\$f" ] || sed -i "1s|^#!.*python.*|#!/usr/local/bin/python$ver|" "\$f"; done
RUN /usr/local/bin/python3 --version && /usr/local/bin/python3 -c 'import ssl, sqlite3, zlib, bz2, lzma, ctypes, venv'
# pip and ssl read the base image's trust store (with the site's CA when taskc's base was
# bootstrapped with --ca-cert), as Debian's patched pip does; the official image bundles
# certifi's instead.
ENV PYTHON_VERSION=$full LANG=C.UTF-8 PIP_CERT=/etc/ssl/certs/ca-certificates.crt SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
DOCKER
      mkdir "$work/python"
      tar -C "$dir" --exclude="lib/python$ver/test" --exclude='__pycache__' -cf - bin lib include share 2>/dev/null | tar -C "$work/python" -xf -
      tag="$PREFIX/python:$ver"
      tar -C "$work" -cf - . | build "$tag" "cpython $full from $dir on $base_id, Dockerfile $(sha256sum <"$work/Dockerfile" | cut -c1-16), CA $ca_digest"
      map_lines+=("\"python:$ver-bookworm\" = \"$tag\"" "\"python:$ver\" = \"$tag\"")
      ;;
    rust)
      need_base
      dir=$(rust_dir "$ver")
      [[ -n "$dir" ]] || { echo "error: no rustup toolchain $ver under $RUSTUP_HOME/toolchains (rustup toolchain install $ver)" >&2; rm -rf "$work"; exit 2; }
      full=$("$dir/bin/rustc" --version | awk '{print $2}')
      [[ -x "$RUSTUP_BIN" ]] || { echo "error: no rustup binary at $RUSTUP_BIN (RUSTUP_BIN=…): the rust stand-ins ship rustup as the official image does" >&2; rm -rf "$work"; exit 2; }
      rustup_version=$("$RUSTUP_BIN" --version 2>/dev/null | awk 'NR == 1 {print $2}')
      tc="$full-x86_64-unknown-linux-gnu"
      # The official image's layout: rustup under CARGO_HOME=/usr/local/cargo with its proxies
      # (cargo, rustc, … are rustup, which runs the default toolchain), RUSTUP_HOME=/usr/local/rustup
      # with the one toolchain $full as the default, and a C toolchain for build scripts. No
      # network: `stable` is a link to that toolchain, so `cargo +stable …` (cargo's own test
      # suite runs it) answers offline, where the official image would download stable.
      cat >"$work/Dockerfile" <<DOCKER
FROM $BASE
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev pkg-config make && rm -rf /var/lib/apt/lists/*
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin RUST_VERSION=$full
COPY toolchain/ /usr/local/rustup/toolchains/$tc/
COPY rustup /usr/local/cargo/bin/rustup
RUN cd /usr/local/cargo/bin && chmod 0755 rustup \\
 && for p in cargo cargo-clippy cargo-fmt cargo-miri clippy-driver rls rust-analyzer rust-gdb rust-gdbgui rust-lldb rustc rustdoc rustfmt; do ln rustup "\$p"; done
RUN rustup default $tc \\
 && ln -s $tc /usr/local/rustup/toolchains/stable-x86_64-unknown-linux-gnu \\
 && chmod a+rwX /usr/local/rustup /usr/local/rustup/toolchains /usr/local/rustup/settings.toml \\
 && chmod -R a+rwX /usr/local/cargo \\
 && rustup --version && rustc --version && cargo --version \\
 && test "\$(cargo +stable --version | awk '{print \$2}')" = "$full" \\
 && test "\$(rustup show active-toolchain | awk '{print \$1}')" = "$tc"
DOCKER
      mkdir "$work/toolchain"
      tar -C "$dir" --exclude='share/doc' --exclude='share/zsh' -cf - . | tar -C "$work/toolchain" -xf -
      # Writable by any user as in the official image, set here: a `chmod -R` in the image
      # would copy the whole toolchain into a second layer.
      chmod -R a+rwX "$work/toolchain"
      cp -L "$RUSTUP_BIN" "$work/rustup"
      tag="$PREFIX/rust:$ver"
      tar -C "$work" -cf - . | build "$tag" "rust $full and rustup $rustup_version from $dir on $base_id, Dockerfile $(sha256sum <"$work/Dockerfile" | cut -c1-16), CA $ca_digest"
      # Offline, as taskc's runs are: the proxies, the default toolchain and `+stable`.
      if ! out=$(docker run --rm --network none --name "$CHECK_PREFIX-$$" "$tag" \
          sh -c 'rustup --version 2>/dev/null && cargo --version && cargo +stable --version && rustc +stable --version' 2>&1); then
        echo "error: $tag does not answer \`cargo +stable --version\` offline:" >&2
        echo "$out" >&2
        rm -rf "$work"; exit 2
      fi
      echo "$tag: offline: $(echo "$out" | tr '\n' ';')" >&2
      map_lines+=("\"rust:$ver\" = \"$tag\"" "\"rust:$ver-bookworm\" = \"$tag\"" "\"rust:$full\" = \"$tag\"")
      ;;
    *)
      echo "error: no stand-in recipe for \`$name\` (python:3.12, python:3.13, python:3.14, rust:1.89 … rust:1.95)" >&2
      rm -rf "$work"; exit 2 ;;
  esac
  rm -rf "$work"
done

if [[ $print_map -eq 1 ]]; then
  echo "[images.map]"
  printf '%s\n' "${map_lines[@]}"
fi
