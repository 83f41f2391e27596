//! End to end: `taskc score` with the built-in predictions on every sound example, on both
//! backends, with the real binary: `gold` must solve every task, `empty` none. The Docker
//! tests FAIL when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{docker_or_skip, root};

use std::process::Command;

const SOUND: &[&str] = &["cookie-split", "config-merge", "context-docs", "sdk-retry"];

/// Score `predictions` over `examples`; returns (solved, predictions, invalid) of the report.
fn score(examples: &[&str], predictions: &str, mode: &str, backend: &str) -> (u64, u64, u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let _images = common::CacheImages::new(&dir.path().join("cache"), backend);
    let out = dir.path().join("report");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taskc"));
    cmd.arg("score")
        .args(examples.iter().map(|e| format!("examples/{e}/{e}.task")))
        .args([
            "--predictions",
            predictions,
            "--mode",
            mode,
            "--backend",
            backend,
        ])
        .args(["--jobs", "2", "--color", "never"])
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root());
    let guard = common::DockerGuard::new();
    let run = guard.output(&mut cmd);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "taskc score failed:\n{stderr}");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json written");
    assert!(out.join("report.md").is_file() && out.join("report.html").is_file());
    let report: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
    let m = &report["summaries"][0]["metrics"];
    let n = |k: &str| m[k].as_u64().unwrap_or(u64::MAX);
    (n("solved"), n("predictions"), n("invalid"))
}

#[test]
fn local_gold_solves_every_sound_example_joint() {
    assert_eq!(score(SOUND, "gold", "joint", "local"), (4, 4, 0));
}

#[test]
fn local_gold_solves_every_sound_example_independent() {
    assert_eq!(score(SOUND, "gold", "independent", "local"), (4, 4, 0));
}

#[test]
fn local_empty_solves_nothing() {
    assert_eq!(score(SOUND, "empty", "joint", "local"), (0, 4, 0));
    assert_eq!(score(SOUND, "empty", "independent", "local"), (0, 4, 0));
}

#[test]
fn docker_gold_solves_every_sound_example() {
    if docker_or_skip() {
        assert_eq!(score(SOUND, "gold", "joint", "docker"), (4, 4, 0));
    }
}

#[test]
fn docker_empty_solves_nothing() {
    if docker_or_skip() {
        assert_eq!(
            score(
                &["cookie-split", "config-merge"],
                "empty",
                "joint",
                "docker"
            ),
            (0, 2, 0)
        );
    }
}

/// A malformed prediction line is reported with its line number and skipped; the rest of
/// the batch is scored.
#[test]
fn malformed_prediction_lines_are_skipped_with_their_line_number() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gold = std::fs::read_to_string(root().join("examples/cookie-split/gold/proxy.patch"))
        .expect("gold patch");
    let line = serde_json::json!({
        "task": "cookie-split",
        "model": "half",
        "patches": { "proxy": gold },
    });
    let preds = dir.path().join("preds.jsonl");
    std::fs::write(&preds, format!("{line}\n{{\"task\": oops\n")).expect("write");
    let out = dir.path().join("report");
    let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "score",
            "examples/cookie-split/cookie-split.task",
            "--backend",
            "local",
        ])
        .arg("--predictions")
        .arg(&preds)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .expect("taskc runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(":2:"),
        "the bad line is named by number:\n{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).expect("report"))
            .expect("json");
    assert_eq!(report["skipped"].as_array().map(Vec::len), Some(1));
    let row = &report["rows"][0];
    assert_eq!(row["status"], "unsolved");
    assert_eq!(
        row["attribution"], "scope-miss",
        "gateway was left untouched: {row}"
    );
}

#[test]
fn docker_gold_solves_every_sound_example_independent_and_empty_none() {
    if docker_or_skip() {
        assert_eq!(score(SOUND, "gold", "independent", "docker"), (4, 4, 0));
        assert_eq!(score(SOUND, "empty", "independent", "docker"), (0, 4, 0));
        assert_eq!(score(SOUND, "empty", "joint", "docker"), (0, 4, 0));
    }
}
