//! `taskc import swebench`: synthetic SWE-bench rows (JSON lines and a JSON array; the
//! F2P/P2P lists both as JSON strings and as lists) and a task folder in SWE-bench's per-task
//! layout become specs (snapshots); every bad row is a diagnostic and the batch goes on.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/swebench")
}

fn import(dir: &Path, input: &Path, extra: &[&str]) -> (Option<i32>, String) {
    // A fixture is copied beside the output and named relatively, so that diagnostics do
    // not contain (and wrap around) the absolute path of the checkout.
    let input = match (
        input.starts_with(fixtures()) && input.is_file(),
        input.file_name(),
    ) {
        (true, Some(name)) => {
            std::fs::copy(input, dir.join(name)).expect("copy fixture");
            name.to_string_lossy().into_owned()
        }
        _ => input.to_string_lossy().into_owned(),
    };
    let mut args = vec![
        "import",
        "--color",
        "never",
        "swebench",
        input.as_str(),
        "--out",
        "out",
    ];
    args.extend_from_slice(extra);
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(&args)
        .current_dir(dir)
        .output()
        .expect("run taskc");
    let shown = args
        .join(" ")
        .replace(&fixtures().to_string_lossy().into_owned(), "<fixtures>");
    let text = format!(
        "---- taskc {shown} (exit {}) ----\n---- stdout ----\n{}---- stderr ----\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .replace(&fixtures().to_string_lossy().into_owned(), "<fixtures>")
    .replace(&dir.to_string_lossy().into_owned(), "<tmp>");
    (out.status.code(), text)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn taskc_ok(cwd: &Path, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run taskc");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn instances_file_imports_good_rows_and_reports_bad_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, mut log) = import(dir.path(), &fixtures().join("instances.jsonl"), &[]);
    assert_eq!(code, Some(1), "{log}");
    let task = dir.path().join("out/demo__calc-1");
    for f in [
        "demo__calc-1.task",
        "demo__calc-1.oracle.toml",
        "environment/Dockerfile",
        "prompt.md",
    ] {
        log.push_str(&format!(
            "---- out/demo__calc-1/{f} ----\n{}",
            read(&task.join(f))
        ));
    }
    insta::assert_snapshot!("swebench-jsonl", log);
    for c in ["E1101", "E1102", "E1104", "E1109", "W1108"] {
        assert!(log.contains(c), "{c}");
    }
    taskc_ok(&task, &["check", "--color", "never", "demo__calc-1.task"]);
    taskc_ok(&task, &["fmt", "--check", "demo__calc-1.task"]);
    // F2P/P2P as lists (row 2) and as JSON strings (row 1) read the same.
    let two = read(&dir.path().join("out/demo__calc-2/demo__calc-2.task"));
    assert!(
        two.contains("expect f2p \"testing/test_calc.py::test_add\""),
        "{two}"
    );
}

#[test]
fn a_json_array_reads_like_json_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows: Vec<String> = read(&fixtures().join("instances.jsonl"))
        .lines()
        .filter(|l| l.contains("\"demo__calc-1\"") || l.contains("\"demo__calc-2\""))
        .map(str::to_string)
        .collect();
    let array = dir.path().join("instances.json");
    std::fs::write(&array, format!("[\n{}\n]\n", rows.join(",\n"))).expect("write");
    let (code, log) = import(dir.path(), &array, &[]);
    assert_eq!(code, Some(0), "{log}");
    let lines = tempfile::tempdir().expect("tempdir");
    let (code, _) = import(lines.path(), &fixtures().join("instances.jsonl"), &[]);
    assert_eq!(code, Some(1));
    let spec = "out/demo__calc-1/demo__calc-1.task";
    assert_eq!(read(&dir.path().join(spec)), read(&lines.path().join(spec)));
}

#[test]
fn task_folder_layout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, mut log) = import(
        dir.path(),
        &fixtures().join("taskrepo"),
        &["--base-image", "taskc/base:bookworm"],
    );
    assert_eq!(code, Some(0), "{log}");
    let task = dir.path().join("out/demo__calc-7");
    for f in [
        "demo__calc-7.task",
        "demo__calc-7.oracle.toml",
        "environment/Dockerfile",
    ] {
        log.push_str(&format!(
            "---- out/demo__calc-7/{f} ----\n{}",
            read(&task.join(f))
        ));
    }
    insta::assert_snapshot!("swebench-task-folder", log);
    taskc_ok(&task, &["check", "--color", "never", "demo__calc-7.task"]);
}

#[test]
fn an_unreadable_path_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, log) = import(dir.path(), &dir.path().join("nope.jsonl"), &[]);
    assert_eq!(code, Some(2), "{log}");
}
