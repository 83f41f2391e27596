//! Two sessions on one machine run the same content-addressed run at the same time (two
//! `verify`s of one spec with their own caches: two curators, or a test suite run in
//! parallel). Each run's cgroups were named by the run id alone, so the first run to end
//! killed what was left in the shared group — the other session's sandbox — and that run
//! was called invalid ("the harness recorded no exit code … the sandbox ended early").
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Stdio};

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

#[test]
fn two_sessions_running_the_same_runs_at_once_leave_each_other_alone() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split");
    let tmp = tempfile::tempdir().unwrap();
    let sessions: Vec<_> = ["one", "two"]
        .iter()
        .map(|name| {
            Command::new(TASKC)
                .args(["verify", "--no-lock", "--backend", "local", "--cache"])
                .arg(tmp.path().join(name))
                .arg(&spec)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for session in sessions {
        let out = session.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!stdout.contains("invalid"), "{stdout}");
    }
}
