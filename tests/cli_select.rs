//! `verify`/`score` filters through the real binary (issue 23): `--task` / `--exclude-task`
//! (ids or globs) and `score --model` select what runs; a selection that leaves nothing is a
//! usage error before any backend opens. Local backend, `empty`-like predictions: cheap.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::root;
use std::process::Command;

const TASKS: &[&str] = &["cookie-split", "config-merge", "context-docs"];

#[test]
fn score_over_two_models_and_three_tasks_filtered_to_one_of_each_runs_only_that() {
    let dir = tempfile::tempdir().unwrap();
    let preds = dir.path().join("preds.jsonl");
    let mut lines = String::new();
    for model in ["m1", "m2"] {
        for task in TASKS {
            lines.push_str(&format!(
                "{{\"task\": \"{task}\", \"model\": \"{model}\", \"patches\": {{}}}}\n"
            ));
        }
    }
    std::fs::write(&preds, lines).unwrap();
    let out = dir.path().join("report");
    let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .arg("score")
        .args(TASKS.iter().map(|e| format!("examples/{e}/{e}.task")))
        .arg("--predictions")
        .arg(&preds)
        .args(["--task", "cookie-*", "--model", "m2", "--backend", "local"])
        .args(["--run-id", "ops-select-1"])
        .args(["--jobs", "2", "--color", "never", "--format", "json"])
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "taskc score failed:\n{stderr}");
    assert!(
        stderr.contains("note: 1 of 3 specs' tasks selected"),
        "{stderr}"
    );
    assert!(!stderr.contains("no spec given"), "{stderr}");
    // stdout: one graded object per spec and mode, only cookie-split's.
    let stdout = String::from_utf8_lossy(&run.stdout);
    let graded: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(graded.len(), 1, "{stdout}");
    assert_eq!(graded[0]["task"], "cookie-split");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let rows: Vec<(String, String)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["task"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(rows, [("cookie-split".to_string(), "m2".to_string())]);
    // Only those ran: the result store holds one result per target of cookie-split (proxy,
    // gateway), all of m2's prediction (m1's lines have another digest: the model is in it).
    let pred = report["rows"][0]["prediction"].as_str().unwrap();
    let stored: Vec<String> = std::fs::read_dir(dir.path().join("cache/results/local"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    assert_eq!(stored.len(), 2, "{stored:?}");
    let suffix = format!("-{pred}.0.json");
    assert!(stored.iter().all(|n| n.ends_with(&suffix)), "{stored:?}");

    // The run's identity: in report.json and in the cache's index of runs.
    let run = &report["run"];
    assert_eq!(run["run_id"], "ops-select-1", "{run}");
    assert_eq!(run["command"], "score");
    assert_eq!(run["backend"], "local");
    assert_eq!(run["taskc"], env!("CARGO_PKG_VERSION"));
    assert_eq!(run["tasks"], serde_json::json!(["cookie-*"]));
    assert_eq!(run["models"], serde_json::json!(["m2"]));
    let sum = Command::new("sha256sum").arg(&preds).output().unwrap();
    let sum = String::from_utf8_lossy(&sum.stdout);
    assert_eq!(run["predictions"]["kind"], "file");
    assert_eq!(
        run["predictions"]["sha256"].as_str(),
        sum.split_whitespace().next()
    );
    assert_eq!(
        run["locks"]["cookie-split"],
        report["locks"]["cookie-split"]
    );
    assert_eq!(run["locks"].as_object().unwrap().len(), 1);
    assert!(
        stderr.contains("run id: ops-select-1 (recorded in "),
        "{stderr}"
    );
    let index = std::fs::read_to_string(dir.path().join("cache/runs/index.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = index
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, std::slice::from_ref(run));
}

#[test]
fn limit_scores_only_the_first_n_selected_tasks_in_the_order_given() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .arg("score")
        .args(TASKS.iter().map(|e| format!("examples/{e}/{e}.task")))
        .args(["--predictions", "empty", "--exclude-task", "cookie-split"])
        .args(["--limit", "1", "--backend", "local", "--jobs", "2"])
        .args(["--color", "never", "--format", "json", "--cache"])
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "taskc score failed:\n{stderr}");
    assert!(
        stderr.contains("note: 1 of 3 specs' tasks selected"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let tasks: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["task"].to_string())
        .collect();
    // cookie-split is excluded: the first of the others, in the order given, is scored.
    assert_eq!(tasks, ["\"config-merge\""], "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["run"]["limit"], 1, "{report}");
    // -q: the same run, cached, prints no progress line; without it, a line per run.
    let again = |extra: &[&str]| {
        let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
            .arg("score")
            .args(TASKS.iter().map(|e| format!("examples/{e}/{e}.task")))
            .args(["--predictions", "empty", "--exclude-task", "cookie-split"])
            .args([
                "--limit",
                "1",
                "--backend",
                "local",
                "--color",
                "never",
                "--cache",
            ])
            .arg(dir.path().join("cache"))
            .arg("--out")
            .arg(&out)
            .args(extra)
            .current_dir(root())
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    let loud = again(&["-v"]);
    assert!(loud.contains("cached"), "{loud}");
    let quiet = again(&["-q"]);
    assert!(!quiet.contains("cached"), "{quiet}");
    assert!(
        loud.lines().count() > quiet.lines().count(),
        "{loud}\n---\n{quiet}"
    );
    // 0 is refused by the parser.
    let zero = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "--limit",
            "0",
            "examples/cookie-split/cookie-split.task",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(zero.status.code(), Some(2), "{zero:?}");
}

#[test]
fn a_selection_that_leaves_nothing_is_a_usage_error_and_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    let report = report.to_str().unwrap();
    for cmd in [
        vec!["verify", "examples", "--exclude-task", "*"],
        vec![
            "score",
            "examples",
            "--predictions",
            "empty",
            "-t",
            "nope",
            "--out",
            report,
        ],
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(&cmd)
            .args(["--backend", "local", "--color", "never"])
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .current_dir(root())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{cmd:?}:\n{stderr}");
        assert!(stderr.contains("left none of the"), "{cmd:?}:\n{stderr}");
        assert!(!dir.path().join("report").exists(), "{cmd:?}");
    }
}

/// `taskc score examples/cookie-split --predictions empty` on the local backend with
/// `extra` args in `cache`; (exit code, stderr, report.json).
fn score_cookie(
    cache: &std::path::Path,
    extra: &[&str],
) -> (Option<i32>, String, serde_json::Value) {
    let out = cache.with_extension("report");
    let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["score", "examples/cookie-split", "--predictions", "empty"])
        .args(["--backend", "local", "--color", "never", "--jobs", "2"])
        .args(extra)
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    let report = std::fs::read_to_string(out.join("report.json"))
        .map(|t| serde_json::from_str(&t).unwrap())
        .unwrap_or(serde_json::Value::Null);
    let _ = std::fs::remove_dir_all(&out);
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
        report,
    )
}

/// Runs the progress lines say were taken from the cache.
fn cached_runs(stderr: &str) -> usize {
    stderr
        .lines()
        .filter(|l| l.starts_with("run ") && l.ends_with(": cached"))
        .count()
}

#[test]
fn a_timeout_multiplier_is_recorded_and_never_reuses_a_result_computed_under_another_limit() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (code, stderr, report) = score_cookie(&cache, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(report.get("timeout_multiplier").is_none(), "{report}");

    let (code, stderr, report) = score_cookie(&cache, &["--timeout-multiplier", "3"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        cached_runs(&stderr) == 0,
        "a limit ×3 reused a run:\n{stderr}"
    );
    assert_eq!(report["timeout_multiplier"], 3.0, "{report}");

    let (code, stderr, _) = score_cookie(&cache, &["--timeout-multiplier", "3"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(cached_runs(&stderr) > 0, "{stderr}");

    // Three runs, three generated ids, three lines in the index; the second's limit ×3.
    let index = std::fs::read_to_string(cache.join("runs/index.jsonl")).unwrap();
    let runs: Vec<serde_json::Value> = index
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: std::collections::BTreeSet<&str> =
        runs.iter().map(|r| r["run_id"].as_str().unwrap()).collect();
    assert_eq!((runs.len(), ids.len()), (3, 3), "{index}");
    assert_eq!(runs[1]["timeout_multiplier"], 3.0, "{index}");

    let (code, stderr, _) = score_cookie(&cache, &["--run-id", "a/b"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a run id"), "{stderr}");

    let (code, stderr, _) = score_cookie(&cache, &["--timeout-multiplier", "0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a number > 0"), "{stderr}");
}

#[test]
fn verify_records_its_run_in_the_index_of_runs() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["verify", "examples", "-t", "cookie-split", "--no-lock"])
        .args([
            "--run-id",
            "ops-verify-1",
            "--backend",
            "local",
            "--color",
            "never",
        ])
        .args(["--timeout-multiplier", "2"])
        .arg("--cache")
        .arg(&cache)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("note: 1 of ") && stderr.contains(" specs' tasks selected"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("verify examples/cookie-split/"), "{stdout}");
    assert!(
        !stdout.contains("verify examples/config-merge/"),
        "{stdout}"
    );
    let index = std::fs::read_to_string(cache.join("runs/index.jsonl")).unwrap();
    let record: serde_json::Value = serde_json::from_str(index.trim()).unwrap();
    assert_eq!(record["run_id"], "ops-verify-1");
    assert_eq!(record["command"], "verify");
    assert_eq!(record["backend"], "local");
    assert_eq!(record["timeout_multiplier"], 2.0);
    assert_eq!(record["tasks"], serde_json::json!(["cookie-split"]));
}
