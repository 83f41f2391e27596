#!/usr/bin/env bash
# Installs Harbor (PyPI `harbor`, needs Python >= 3.12) for tests/export_harbor.rs, into
# ${TASKC_HARBOR_HOME:-/opt/taskc-harbor}: a venv, Docker Compose v2 as a CLI plugin (from
# Debian trixie's `docker-compose` package, fetched with apt into a private state folder:
# the host's apt sources are not changed), and `bin/harbor`, a wrapper that points the
# Docker CLI at that plugin. Idempotent.
set -euo pipefail
HOME_DIR=${TASKC_HARBOR_HOME:-/opt/taskc-harbor}
HARBOR_VERSION=${TASKC_HARBOR_VERSION:-0.26.0}
mkdir -p "$HOME_DIR"

# 1. A Python >= 3.12: on PATH, or one of pyenv's.
py=""
for c in python3.13 python3.12 /root/.pyenv/versions/3.13*/bin/python3 /root/.pyenv/versions/3.12*/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
    py=$(command -v "$c"); break
  fi
done
if [ -z "$py" ]; then
  echo "harbor setup: no Python >= 3.12 found (Harbor needs one; Debian bookworm has 3.11)." >&2
  echo "  install one (e.g. pyenv), or set TASKC_SKIP_HARBOR=1 to skip the Harbor test" >&2
  exit 1
fi

# 2. Harbor in a venv.
if ! "$HOME_DIR/venv/bin/harbor" --version 2>/dev/null | grep -qx "$HARBOR_VERSION"; then
  echo "harbor setup: installing harbor==$HARBOR_VERSION with $py"
  "$py" -m venv "$HOME_DIR/venv"
  "$HOME_DIR/venv/bin/pip" install --quiet --disable-pip-version-check "harbor==$HARBOR_VERSION"
fi

# 3. Docker Compose v2 (Harbor runs `docker compose`), from Debian trixie.
plugin="$HOME_DIR/docker/cli-plugins/docker-compose"
if ! DOCKER_CONFIG="$HOME_DIR/docker" docker compose version >/dev/null 2>&1; then
  echo "harbor setup: fetching docker-compose v2 from Debian trixie"
  apt_dir="$HOME_DIR/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc" "$HOME_DIR/docker/cli-plugins"
  cat > "$apt_dir/etc/trixie.sources" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/etc"
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives")
  apt-get "${opts[@]}" update -qq
  (cd "$apt_dir/archives" && apt-get "${opts[@]}" download docker-compose 2>/dev/null)
  deb=$(ls "$apt_dir"/archives/docker-compose_2*.deb | head -n1)
  rm -rf "$apt_dir/x" && dpkg-deb -x "$deb" "$apt_dir/x"
  install -m 0755 "$apt_dir/x/usr/libexec/docker/cli-plugins/docker-compose" "$plugin"
  rm -rf "$apt_dir/x"
fi

# 4. The wrapper.
mkdir -p "$HOME_DIR/bin"
cat > "$HOME_DIR/bin/harbor" <<WRAP
#!/usr/bin/env bash
export DOCKER_CONFIG="$HOME_DIR/docker"
exec "$HOME_DIR/venv/bin/harbor" "\$@"
WRAP
chmod 0755 "$HOME_DIR/bin/harbor"
echo "harbor setup: $("$HOME_DIR/bin/harbor" --version) with $(DOCKER_CONFIG="$HOME_DIR/docker" docker compose version)"
