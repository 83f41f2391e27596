//! Named images and the image map, with the real binary and the real engine: a spec whose
//! recipe names `python:3.12-bookworm` (`env python { version "3.12" }`) verifies through a
//! site's `[images.map]` stand-in (`taskc-standin/python:3.12`, built by
//! `scripts/standins/build.sh` from this machine's pyenv CPython), and its lock records
//! what stood in for what; without the map the same spec stops at E1700 naming the image
//! and the fix, before anything is built.
//!
//! The stand-in image is built if missing (scripts/standins/build.sh is idempotent) and left
//! in place: it is the site's, shared. Images taskc builds on it are labelled with the
//! test's own cache and removed with `taskc gc --cache`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::{docker_or_skip, text, DockerGuard};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const STAND_IN: &str = "taskc-standin/python:3.12";

/// A one-target task on `python:3.12-bookworm`: `calc.add` is missing at base.
fn write_task(dir: &Path) -> PathBuf {
    let repo = dir.join("repos/calc");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("calc.py"), "def sub(a, b):\n    return a - b\n").unwrap();
    std::fs::write(
        repo.join("tests/test_sub.py"),
        "import calc\n\n\ndef test_sub():\n    assert calc.sub(3, 1) == 2\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("patches")).unwrap();
    std::fs::write(
        dir.join("patches/gold.patch"),
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,6 @@\n def sub(a, b):\n     return a - b\n+\n+\n+def add(a, b):\n+    return a + b\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("patches/tests.patch"),
        "diff --git a/tests/test_add.py b/tests/test_add.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_add.py\n@@ -0,0 +1,15 @@\n+import sys\n+\n+import calc\n+\n+\n+def test_add():\n+    assert calc.add(2, 3) == 5\n+\n+\n+def test_add_negative():\n+    assert calc.add(-2, 1) == -1\n+\n+\n+def test_python_is_3_12():\n+    assert sys.version_info[:2] == (3, 12)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("prompt.md"),
        "Add `calc.add(a, b)`, the sum of two numbers.\n",
    )
    .unwrap();
    let spec = dir.join("calc.task");
    std::fs::write(
        &spec,
        r#"task "calc-py312" {
  kind feature
  prompt file("prompt.md")
  verify per-repo

  env python {
    version "3.12"
  }

  repo calc {
    source dir("repos/calc")
    gold file("patches/gold.patch")
    test {
      patch file("patches/tests.patch")
      run "python -m pytest -rA -p no:cacheprovider tests"
      parser pytest
      timeout 300
    }
  }
}
"#,
    )
    .unwrap();
    spec
}

fn taskc(guard: &DockerGuard, args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taskc"));
    cmd.args(args).current_dir(cwd).env_remove("NO_COLOR");
    guard.output(&mut cmd)
}

/// Removes what taskc built under `cache` (its own labelled images and results).
fn gc(cache: &Path, cwd: &Path) {
    let _ = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["gc", "--backend", "docker", "--cache"])
        .arg(cache)
        .current_dir(cwd)
        .output();
}

#[test]
fn a_spec_naming_python_3_12_verifies_through_the_image_map_and_the_lock_says_so() {
    if !docker_or_skip() {
        return;
    }
    let guard = DockerGuard::new();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    let spec = write_task(&dir);
    let cache = tmp.path().join("cache");
    let cache_s = cache.to_str().unwrap();

    // No map, and the engine has no `python:3.12-bookworm`: E1700, naming the image and
    // the fix, before any image is built.
    let o = taskc(
        &guard,
        &[
            "verify",
            "--backend",
            "docker",
            "--color",
            "never",
            "--cache",
            cache_s,
            "calc.task",
        ],
        &dir,
    );
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(shown.contains("E1700"), "{shown}");
    assert!(shown.contains("`python:3.12-bookworm`"), "{shown}");
    assert!(shown.contains("[images.map]"), "{shown}");
    assert!(shown.contains("scripts/standins/build.sh"), "{shown}");
    assert!(!spec.with_extension("lock").exists());

    // A map naming a stand-in that does not exist: E1700 naming the stand-in.
    std::fs::write(
        dir.join("taskc.toml"),
        "[images.map]\n\"python:3.12-bookworm\" = \"taskc-standin/python:no-such-tag\"\n",
    )
    .unwrap();
    let o = taskc(
        &guard,
        &[
            "verify",
            "--backend",
            "docker",
            "--color",
            "never",
            "--cache",
            cache_s,
            "calc.task",
        ],
        &dir,
    );
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(shown.contains("E1700"), "{shown}");
    assert!(
        shown.contains("taskc-standin/python:no-such-tag"),
        "{shown}"
    );

    // With the stand-in mapped, the task verifies sound on CPython 3.12.
    common::ensure_stand_in(STAND_IN);
    std::fs::write(
        dir.join("taskc.toml"),
        format!("[images.map]\n\"python:3.12-bookworm\" = \"{STAND_IN}\"\n"),
    )
    .unwrap();
    let o = taskc(
        &guard,
        &[
            "verify",
            "--backend",
            "docker",
            "--color",
            "never",
            "--cache",
            cache_s,
            "calc.task",
        ],
        &dir,
    );
    let shown = text(&o);
    gc(&cache, &dir);
    assert_eq!(o.status.code(), Some(0), "{shown}");
    let lock = std::fs::read_to_string(spec.with_extension("lock")).unwrap();
    for f2p in [
        "tests/test_add.py::test_add",
        "tests/test_add.py::test_add_negative",
        "tests/test_add.py::test_python_is_3_12",
    ] {
        assert!(lock.contains(f2p), "{f2p} in\n{lock}");
    }
    assert!(lock.contains(&format!("base = \"{STAND_IN}\"")), "{lock}");
    assert!(
        lock.contains("base-stands-in-for = \"python:3.12-bookworm\""),
        "{lock}"
    );
    assert!(
        lock.contains("Python 3.12."),
        "the gold run's pytest line: {lock}"
    );

    // `check` reads the lock as fresh: the stand-in is site data, not an input.
    let o = taskc(&guard, &["check", "--color", "never", "calc.task"], &dir);
    let shown = text(&o);
    assert!(!shown.contains("W0900"), "{shown}");
}

/// The upstream image a curator's (or `taskc import`'s) Dockerfile names, which no engine
/// here can pull; `[images.map]` names a local image for it.
const UPSTREAM: &str = "example.invalid/wsemore/upstream:1";

#[test]
fn an_imported_dockerfile_builds_from_its_stand_in_and_the_lock_says_so() {
    if !docker_or_skip() {
        return;
    }
    let guard = DockerGuard::new();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    let spec = write_task(&dir);
    // The same task on `env dockerfile`, as `taskc import wideswe` writes it: a multi-stage
    // Dockerfile whose root `FROM` names an image no registry here serves, a stage built on
    // it, and a stage reference that is not an image.
    std::fs::create_dir_all(dir.join("environment")).unwrap();
    std::fs::write(
        dir.join("environment/Dockerfile"),
        format!(
            "# written like `taskc import wideswe` writes a recipe chain\nFROM {UPSTREAM} AS upstream-base\nRUN python3 -c 'import pytest'\nFROM upstream-base AS deps\nRUN mkdir -p /opt/wsemore\n"
        ),
    )
    .unwrap();
    let text_of_spec = std::fs::read_to_string(&spec)
        .unwrap()
        .replace(
            "env python {\n    version \"3.12\"\n  }",
            "env dockerfile {\n    dockerfile file(\"environment/Dockerfile\")\n  }",
        )
        .replace(
            "python -m pytest -rA -p no:cacheprovider tests",
            "python3 -m pytest -rA -p no:cacheprovider tests/test_add.py -k 'not python_is_3_12'",
        );
    assert!(text_of_spec.contains("env dockerfile"), "{text_of_spec}");
    std::fs::write(&spec, text_of_spec).unwrap();
    let cache = tmp.path().join("cache");
    let cache_s = cache.to_str().unwrap();
    let verify = |guard: &DockerGuard| {
        taskc(
            guard,
            &[
                "verify",
                "--backend",
                "docker",
                "--color",
                "never",
                "--cache",
                cache_s,
                "calc.task",
            ],
            &dir,
        )
    };

    // Without a map the build cannot start from the image the Dockerfile names.
    let o = verify(&guard);
    let shown = text(&o);
    assert_ne!(o.status.code(), Some(0), "{shown}");
    assert!(shown.contains(UPSTREAM), "{shown}");
    assert!(!spec.with_extension("lock").exists());

    // A map naming a stand-in that does not exist: E1700 naming it, before any build.
    std::fs::write(
        dir.join("taskc.toml"),
        format!("[images.map]\n\"{UPSTREAM}\" = \"wsemore-no-such-image:1\"\n"),
    )
    .unwrap();
    let o = verify(&guard);
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(shown.contains("E1700"), "{shown}");
    assert!(shown.contains("wsemore-no-such-image:1"), "{shown}");

    // Mapped onto taskc's own base image (present wherever taskc runs on Docker): the
    // `FROM` is rewritten at build time, the task verifies, and the lock records it.
    std::fs::write(
        dir.join("taskc.toml"),
        format!("[images.map]\n\"{UPSTREAM}\" = \"taskc/base:bookworm\"\n"),
    )
    .unwrap();
    let o = verify(&guard);
    let shown = text(&o);
    gc(&cache, &dir);
    assert_eq!(o.status.code(), Some(0), "{shown}");
    let lock = std::fs::read_to_string(spec.with_extension("lock")).unwrap();
    assert!(lock.contains("tests/test_add.py::test_add"), "{lock}");
    assert!(
        lock.contains(&format!(
            "\"from-stand-in:{UPSTREAM}\" = \"taskc/base:bookworm\""
        )),
        "{lock}"
    );
    // The Dockerfile beside the spec is untouched: the rewrite is the build's, not the spec's.
    let df = std::fs::read_to_string(dir.join("environment/Dockerfile")).unwrap();
    assert!(
        df.contains(&format!("FROM {UPSTREAM} AS upstream-base")),
        "{df}"
    );
}
