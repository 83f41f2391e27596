//! Ctrl-C: `taskc verify` interrupted while its runs are under way exits 130 (128 + SIGINT),
//! says that finished results were kept, and leaves no run folder of its session behind.
//! Real binary, local backend, a copy of an example whose tests sleep first.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

#[test]
fn ctrl_c_exits_130() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split"),
        &dir,
    );
    let spec = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("run \"", "run \"sleep 120; ");
    std::fs::write(&spec, text).unwrap();
    let _ = std::fs::remove_file(dir.join("cookie-split.lock"));
    let cache = tmp.path().join("cache");
    let child = Command::new(TASKC)
        .args(["verify", "--no-lock", "--backend", "local", "--cache"])
        .arg(&cache)
        .arg(&spec)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until a run is under way: its session folder exists.
    let start = Instant::now();
    while std::fs::read_dir(cache.join("local/runs")).map_or(0, |d| d.count()) == 0 {
        assert!(start.elapsed() < Duration::from_secs(120), "no run started");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let left = std::fs::read_dir(cache.join("local/runs")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "the session's run folders are removed");
}
