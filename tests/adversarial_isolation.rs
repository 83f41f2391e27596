//! End to end, real binary, real Docker Engine: the isolation attacks of issue 9
//! (`docs/security.md`, defences 1, 2, 6, 7). The rigged predictions live under
//! `tests/adversarial/<class>/predictions.jsonl` (written by `tests/adversarial/generate.py`
//! from `tests/adversarial/src/`); each must score `unsolved` (or `tampered`), never
//! `solved`, and the failure it provokes must be charged to it, never excluded as invalid.
//! Each attack prints a `taskc-attack:` line at exit, so a test also proves the attack ran.
//! The tests FAIL when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{docker_or_skip, root};

const COOKIE: &str = "examples/cookie-split/cookie-split.task";
const MINI: &str = "tests/adversarial/task/mini.task";

/// The report's rows and the result store of one `taskc score` on Docker.
struct Scored {
    rows: Vec<serde_json::Value>,
    /// Removes the cache's images; dropped before the cache (fields drop in this order).
    _images: common::CacheImages,
    _dir: tempfile::TempDir,
    results: PathBuf,
}

impl Scored {
    /// Every stored log (test output and harness messages) of the session, concatenated.
    fn logs(&self) -> String {
        let mut all = String::new();
        for e in std::fs::read_dir(&self.results)
            .expect("the result store exists")
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "log") {
                let bytes = std::fs::read(e.path()).expect("a stored log is readable");
                all.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
        all
    }

    fn row(&self, model: &str) -> &serde_json::Value {
        self.rows
            .iter()
            .find(|r| r["model"] == model)
            .unwrap_or_else(|| panic!("no report row for {model}: {:?}", self.rows))
    }
}

fn score(spec: &str, predictions: &str, mode: &str) -> Scored {
    let dir = tempfile::tempdir().expect("temp dir");
    let images = common::CacheImages::new(&dir.path().join("cache"), "docker");
    let out = dir.path().join("report");
    let guard = common::DockerGuard::new();
    let run = guard.output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .arg("score")
            .arg(spec)
            .args(["--predictions", predictions, "--mode", mode])
            .args(["--backend", "docker", "--jobs", "2", "--color", "never"])
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .arg("--out")
            .arg(&out)
            .current_dir(root()),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "taskc score failed:\n{stderr}");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json written");
    let report: serde_json::Value = serde_json::from_str(&text).expect("report is JSON");
    let rows = report["rows"].as_array().cloned().unwrap_or_default();
    Scored {
        rows,
        results: dir.path().join("cache").join("results").join("docker"),
        _images: images,
        _dir: dir,
    }
}

fn attacks(class: &str) -> String {
    let p: PathBuf = Path::new("tests/adversarial")
        .join(class)
        .join("predictions.jsonl");
    assert!(root().join(&p).is_file(), "missing {}", p.display());
    p.display().to_string()
}

/// `status` of a row, and the failure kind of its target `t`.
fn status(row: &serde_json::Value) -> &str {
    row["status"].as_str().unwrap_or("?")
}

fn failure_kind<'a>(row: &'a serde_json::Value, t: &str) -> &'a str {
    row["targets"][t]["failure"]["kind"].as_str().unwrap_or("")
}

#[test]
fn one_targets_code_cannot_rig_another_targets_run() {
    if !docker_or_skip() {
        return;
    }
    for mode in ["joint", "independent"] {
        let s = score(COOKIE, &attacks("cross-target"), mode);
        for model in ["rig-conftest", "rig-pth"] {
            let row = s.row(model);
            assert_eq!(status(row), "unsolved", "{model} {mode}: {row}");
            // The agent never touched gateway: it must fail its F2P tests.
            assert_eq!(
                row["targets"]["gateway"]["f2p"]["passed"], 0,
                "{model} {mode}"
            );
            assert_eq!(
                row["targets"]["proxy"]["f2p"]["passed"], 0,
                "{model} {mode}"
            );
        }
        // The rig is in proxy's package: it runs in proxy's run, and in joint mode in
        // gateway's too (whose tests import proxy; independently, proxy is at gold there).
        let logs = s.logs();
        let mut ran = vec!["rig-conftest ran in proxy", "rig-pth ran in proxy"];
        if mode == "joint" {
            ran.extend(["rig-conftest ran in gateway", "rig-pth ran in gateway"]);
        }
        for r in ran {
            assert!(
                logs.contains(&format!("taskc-attack: {r}")),
                "{r}: the attack did not run ({mode}):\n{logs}"
            );
        }
    }
}

#[test]
fn the_tests_cannot_read_the_uploaded_patches() {
    if !docker_or_skip() {
        return;
    }
    for mode in ["joint", "independent"] {
        let s = score(COOKIE, &attacks("blobs"), mode);
        assert_eq!(status(s.row("read-blobs")), "unsolved", "{mode}");
        let logs = s.logs();
        assert!(
            logs.contains("taskc-attack: read-blobs ran in /work/gateway, 0 files read")
                && logs.contains("taskc-attack: read-blobs ran in /work/proxy, 0 files read"),
            "the attack did not run, or read something ({mode}):\n{logs}"
        );
        let leaked: Vec<&str> = logs.lines().filter(|l| l.starts_with("LEAKED:/")).collect();
        assert!(leaked.is_empty(), "{mode}: {leaked:?}");
    }
}

#[test]
fn the_mini_task_is_sound_for_the_attacks() {
    if !docker_or_skip() {
        return;
    }
    assert_eq!(status(score(MINI, "gold", "joint").row("gold")), "solved");
    assert_eq!(
        status(score(MINI, "empty", "joint").row("empty")),
        "unsolved"
    );
}

#[test]
fn a_test_ignoring_sigterm_is_a_timeout_killed_at_its_limit() {
    if !docker_or_skip() {
        return;
    }
    let start = std::time::Instant::now();
    let s = score(MINI, &attacks("timeout"), "joint");
    let row = s.row("ignore-sigterm");
    assert_eq!(status(row), "unsolved", "{row}");
    assert_eq!(failure_kind(row, "calc"), "timeout", "{row}");
    // The limit is 20 s: killed then, not after the attack's hour of sleep.
    assert!(start.elapsed().as_secs() < 150, "{:?}", start.elapsed());
}

#[test]
fn os_exit_in_the_test_process_is_the_predictions_failure_not_invalid() {
    if !docker_or_skip() {
        return;
    }
    let s = score(MINI, &attacks("crash"), "joint");
    let row = s.row("exit-early");
    assert_eq!(status(row), "unsolved", "{row}");
    assert_eq!(failure_kind(row, "calc"), "runner-crashed", "{row}");
    // The conftest is reverted to base when the test surface is restored; either way the
    // prediction fails and is never excluded.
    let row = s.row("exit-early-conftest");
    assert_eq!(status(row), "unsolved", "{row}");
}

#[test]
fn a_gibibyte_of_output_fails_the_run_at_the_cap() {
    if !docker_or_skip() {
        return;
    }
    let s = score(MINI, &attacks("output"), "joint");
    let row = s.row("flood-1gib");
    assert_eq!(status(row), "unsolved", "{row}");
    assert_eq!(failure_kind(row, "calc"), "output-too-large", "{row}");
    let kept: u64 = std::fs::read_dir(&s.results)
        .expect("the result store exists")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    assert!(kept < 70 << 20, "the cache keeps {kept} bytes");
}
