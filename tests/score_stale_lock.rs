//! Scoring against a stale lock (an input changed since `taskc verify` wrote it) is an
//! error (exit 2, naming what changed) unless `--allow-stale-lock`, which warns; the report
//! records the digest of the lock it graded against. Real binary, local backend, a copy of
//! an example.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

#[test]
fn a_stale_lock_is_refused_unless_allowed_and_the_report_names_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split"),
        &dir,
    );
    let spec = dir.join("cookie-split.task");
    // The hidden test of `proxy` changes after verification: its oracle may be wrong now.
    let text = std::fs::read_to_string(&spec).unwrap();
    let edited = text.replacen("timeout 600", "timeout 601", 1);
    assert_ne!(text, edited);
    std::fs::write(&spec, edited).unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("report");
    let score = |extra: &[&str]| {
        Command::new(TASKC)
            .args([
                "score",
                "--predictions",
                "gold",
                "--backend",
                "local",
                "--cache",
            ])
            .arg(&cache)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .arg(&spec)
            .output()
            .unwrap()
    };
    let refused = score(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the lock is stale: "), "{stderr}");
    assert!(stderr.contains("`spec`"), "{stderr}");
    assert!(stderr.contains("--allow-stale-lock"), "{stderr}");

    let allowed = score(&["--allow-stale-lock"]);
    let stderr = String::from_utf8_lossy(&allowed.stderr);
    assert_eq!(allowed.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("scoring against a stale lock"), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let lock = std::fs::read(dir.join("cookie-split.lock")).unwrap();
    let digest = report["locks"]["cookie-split"].as_str().unwrap();
    assert_eq!(digest.len(), 64);
    assert_eq!(digest, sha256(&lock));
}

fn sha256(bytes: &[u8]) -> String {
    let out = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(bytes)?;
            c.wait_with_output()
        })
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}
