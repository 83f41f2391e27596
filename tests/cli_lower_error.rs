//! A spec that checks but cannot be lowered (17 targets under `verify joint`: more than the
//! 16 joint verification supports) exits 1, "a spec has errors", from every command that
//! lowers it — `plan`, `diff` and `verify` alike (`verify` used to exit 2). Runs the real
//! binary on a spec built from `examples/cookie-split`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

/// `examples/cookie-split` with its `proxy` target repeated 17 times (and no `gateway`).
fn too_many_targets(tmp: &Path) -> PathBuf {
    let dir = tmp.join("task");
    common::copy_dir(&common::root().join("examples/cookie-split"), &dir);
    std::fs::remove_file(dir.join("cookie-split.lock")).unwrap();
    let spec = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let (head, rest) = text.split_once("  repo proxy {").unwrap();
    let (proxy, _gateway) = rest.split_once("  repo gateway {").unwrap();
    let repos: String = (0..17)
        .map(|i| format!("  repo proxy{i} {{{proxy}"))
        .collect();
    std::fs::write(&spec, format!("{head}{repos}}}\n")).unwrap();
    spec
}

#[test]
fn a_lowering_error_exits_1_from_every_command_that_lowers() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = too_many_targets(tmp.path());
    let spec = spec.to_str().unwrap();
    let cache = tmp.path().join("cache");
    let cache = cache.to_str().unwrap();

    let check = Command::new(TASKC).args(["check", spec]).output().unwrap();
    assert_eq!(check.status.code(), Some(0), "the spec checks: {check:?}");

    let commands: Vec<Vec<&str>> = vec![
        vec!["plan", spec],
        vec!["diff", spec, spec],
        vec!["verify", "--backend", "local", "--cache", cache, spec],
    ];
    for args in commands {
        let o = Command::new(TASKC).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "taskc {args:?}: {stderr}");
        assert!(
            stderr.contains("cannot lower the task: 17 targets"),
            "taskc {}: {stderr}",
            args[0]
        );
    }
}
