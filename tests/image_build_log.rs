//! A failed image build, with the real binary: the error shows the FIRST error lines (the
//! cause, not the noise printed after it) and the path of the whole build log, which the
//! cache keeps.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::{docker_or_skip, root};

use std::path::Path;
use std::process::{Command, Output};

/// Copies the `cookie-split` example into `dir` with its environment replaced by `env`.
fn task_with_env(dir: &Path, env: &str) -> std::path::PathBuf {
    let from = root().join("examples/cookie-split");
    common::copy_dir(&from, dir);
    let spec = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let old = "  env python {\n    version \"3.11\"\n  }\n";
    assert!(text.contains(old));
    std::fs::write(&spec, text.replace(old, env)).unwrap();
    spec
}

fn verify(spec: &Path, backend: &str, cache: &Path) -> Output {
    common::DockerGuard::new().output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args([
                "verify",
                "--no-lock",
                "--color",
                "never",
                "--backend",
                backend,
            ])
            .arg("--cache")
            .arg(cache)
            .arg(spec),
    )
}

/// The shell text of a build step that reports its cause, then prints 200 lines of noise.
const NOISY_FAILURE: &str = "echo 'E: the real cause is here'; \
     for i in $(seq 1 200); do echo \"noise line $i\"; done; exit 3";

fn assert_reports_cause(o: &Output) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("E: the real cause is here"), "{err}");
    assert!(!err.contains("noise line 200"), "{err}");
    let path = err
        .lines()
        .find_map(|l| l.trim().strip_prefix("full build log: "))
        .unwrap_or_else(|| panic!("no log path in: {err}"));
    let log = std::fs::read_to_string(path).unwrap();
    assert!(log.contains("E: the real cause is here"), "{log}");
    assert!(log.contains("noise line 200"), "{log}");
}

#[test]
fn a_failed_local_image_setup_shows_its_first_error_and_keeps_its_log() {
    let tmp = tempfile::tempdir().unwrap();
    let env = format!(
        "  env generic {{\n    dockerfile \"RUN true\"\n    local-setup [\"{}\"]\n  }}\n",
        NOISY_FAILURE.replace('"', "\\\"")
    );
    let spec = task_with_env(&tmp.path().join("task"), &env);
    let o = verify(&spec, "local", &tmp.path().join("cache"));
    assert_reports_cause(&o);
}

#[test]
fn a_failed_docker_image_build_shows_its_first_error_and_keeps_its_log() {
    if !docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let env = format!(
        "  env generic {{\n    dockerfile \"RUN {}\"\n  }}\n",
        NOISY_FAILURE.replace('"', "\\\"")
    );
    let spec = task_with_env(&tmp.path().join("task"), &env);
    let _images = common::CacheImages::new(&tmp.path().join("cache"), "docker");
    let o = verify(&spec, "docker", &tmp.path().join("cache"));
    assert_reports_cause(&o);
}
