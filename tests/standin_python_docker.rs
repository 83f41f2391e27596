//! The CPython 3.14 stand-in (issue 24, WideSWE case 56 names `python:3.14-slim`): this
//! machine's pyenv stops at 3.13, so `scripts/standins/build.sh python:3.14` builds (or
//! keeps, when its source label still matches) `taskc-standin/python:3.14` from Debian's
//! packages — a `debootstrap`ped sid root with its python3.14, `docker import`ed. The image
//! must behave as the official one where recipes lean on it: `python3`, `python`, `pip`,
//! `pip3` on PATH answering 3.14 without a network, `python3.14 -m venv` working, `pip`
//! installing into the system Python (Debian's PEP 668 marker would refuse it), and — with
//! the network, as a recipe's build has it — a venv's pip upgraded from PyPI still trusting
//! the site's CA (upstream pip bundles certifi's; `PIP_CERT` points it at the trust store),
//! which WideSWE's `deps/home-assistant-python` recipe does first, and `apt-get update`
//! working (sid's InRelease as served here is past its Valid-Until). The first build
//! debootstraps (about 2 minutes); later runs keep the image. Needs root, `debootstrap`,
//! deb.debian.org and pypi.org. FAILS when the engine does not answer, unless
//! `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::process::{Command, Output};

use common::{docker_or_skip, root, text};

const STAND_IN: &str = "taskc-standin/python:3.14";

/// `script` in a throwaway container of the stand-in (`--rm`), with `network` (`none` as
/// taskc's runs have it, or `bridge` as an image build has it).
fn run(network: &str, script: &str) -> Output {
    Command::new("docker")
        .args([
            "run",
            "--rm",
            "--network",
            network,
            STAND_IN,
            "sh",
            "-c",
            script,
        ])
        .output()
        .unwrap()
}

#[test]
fn docker_the_python_3_14_stand_in_answers_3_14_venv_and_pip_as_the_official_image() {
    if !docker_or_skip() {
        return;
    }
    let o = Command::new(root().join("scripts/standins/build.sh"))
        .args(["--print-map", "python:3.14"])
        .env("CHECK_PREFIX", "taskc-test-standin-check")
        .output()
        .unwrap();
    let shown = text(&o);
    assert!(o.status.success(), "build.sh python:3.14: {shown}");
    assert!(
        shown.contains("\"python:3.14-slim\" = \"taskc-standin/python:3.14\""),
        "{shown}"
    );

    // Offline: the official image's commands and paths, a venv, and a system-wide pip
    // install (of a wheel written here, no index: the official image has no setuptools
    // to build one).
    let o = run(
        "none",
        r#"set -e; for c in python3 python pip pip3; do echo "$c at $(command -v $c)"; done
python3 --version; python --version; pip --version
python3.14 -m venv /tmp/v; /tmp/v/bin/python -c 'import sys; print("venv", sys.prefix, sys.version_info[:2])'
python3 - <<'PY'
import zipfile
d = "probe314-1.dist-info"
files = {
    "probe314/__init__.py": "X = 1\n",
    d + "/METADATA": "Metadata-Version: 2.1\nName: probe314\nVersion: 1\n",
    d + "/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
files[d + "/RECORD"] = "".join(f + ",,\n" for f in files) + d + "/RECORD,,\n"
with zipfile.ZipFile("/tmp/probe314-1-py3-none-any.whl", "w") as z:
    for f, t in files.items():
        z.writestr(f, t)
PY
pip install -q --no-index --root-user-action=ignore /tmp/probe314-1-py3-none-any.whl
cd / && python3 -c 'import probe314, ssl; print("system", probe314.__file__); print(ssl.OPENSSL_VERSION)'"#,
    );
    let shown = text(&o);
    assert!(o.status.success(), "{shown}");
    for c in ["python3", "python", "pip", "pip3"] {
        assert!(
            shown.contains(&format!("{c} at /usr/local/bin/{c}\n")),
            "{c} is not on PATH where the official image has it: {shown}"
        );
    }
    assert_eq!(shown.matches("Python 3.14.").count(), 2, "{shown}");
    assert!(shown.contains("(python 3.14)"), "{shown}");
    assert!(shown.contains("venv /tmp/v (3, 14)"), "{shown}");
    assert!(
        shown.contains("system /usr/local/lib/python3.14/"),
        "{shown}"
    );

    // With the network, as the deps recipe's build: apt installs from the suite (its
    // `dbus-daemon`, whose `dbus-run-session` case 56's supervisor tests run under), a venv,
    // its pip upgraded from PyPI (upstream pip, certifi's bundle), then a package from PyPI
    // through the site's CA.
    let o = run(
        "bridge",
        "set -e; apt-get update -qq; apt-get install -y -qq --no-install-recommends dbus-daemon >/dev/null; \
         dbus-run-session -- sh -c 'echo \"session bus ${DBUS_SESSION_BUS_ADDRESS%%:*}\"'; \
         python -m venv /tmp/v; /tmp/v/bin/python -m pip install -q --upgrade pip; \
         /tmp/v/bin/python -m pip install -q six; /tmp/v/bin/python -c 'import six; print(\"six\", six.__version__)'",
    );
    let shown = text(&o);
    assert!(o.status.success(), "{shown}");
    assert!(shown.contains("session bus unix"), "{shown}");
    assert!(shown.contains("six 1."), "{shown}");
}
