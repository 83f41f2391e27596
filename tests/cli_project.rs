//! `taskc.toml` is read the same way by every command that takes specs: a malformed file is
//! a usage error (exit 2) from each of them, before any work, and an unknown key is a
//! warning that names the closest known key. Runs the real binary on a copy of an example.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

/// A copy of `examples/cookie-split` with `taskc.toml` holding `toml`.
fn project(toml: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tmp.path().join("task");
    common::copy_dir(&root.join("examples/cookie-split"), &dir);
    std::fs::write(dir.join("taskc.toml"), toml).unwrap();
    (tmp, dir.join("cookie-split.task"))
}

#[test]
fn a_malformed_taskc_toml_is_exit_2_from_every_command() {
    let (tmp, spec) = project("[images\nbase = \"x\"\n");
    let spec = spec.to_str().unwrap();
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["check", spec],
        vec!["plan", spec],
        vec!["diff", spec, spec],
        vec!["diff", "--git", "HEAD", spec],
        vec!["check", spec, spec],
        vec!["verify", "--backend", "local", "--cache", cache, spec],
        vec![
            "score",
            "--predictions",
            "gold",
            "--backend",
            "local",
            "--cache",
            cache,
            "--out",
            out,
            spec,
        ],
        vec!["workspace", "--out", out, spec],
        vec![
            "gc",
            "--dry-run",
            "--backend",
            "local",
            "--cache",
            cache,
            "--keep",
            spec,
        ],
    ];
    for args in commands {
        let o = Command::new(TASKC).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "taskc {args:?}: {stderr}");
        assert!(
            stderr.contains("taskc.toml: not valid TOML"),
            "taskc {}: {stderr}",
            args[0]
        );
        assert!(!Path::new(out).exists(), "taskc {} wrote output", args[0]);
    }
}

#[test]
fn an_unknown_key_warns_with_did_you_mean_and_still_runs() {
    let (_tmp, spec) = project("[images]\nbsae = \"x\"\n");
    let o = Command::new(TASKC)
        .args(["check"])
        .arg(&spec)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("unknown key `images.bsae` is ignored; did you mean `images.base`?"),
        "{stderr}"
    );
}
