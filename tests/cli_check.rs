//! `taskc check`: exit codes, `--format json`, `--deny-warnings`, and which files it finds.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn taskc(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run taskc")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn clean_spec_exits_0() {
    let out = taskc(&corpus(), &["check", "--color", "never", "valid.task"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Its git sources are not cached: a note says their bases were not checked.
    assert!(
        stderr(&out).starts_with("N0306 (base-unreadable)"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).ends_with("checked 1 spec: 0 errors, 0 warnings\n"));
}

#[test]
fn notes_do_not_fail_deny_warnings() {
    let out = taskc(
        &corpus(),
        &["check", "--color", "never", "--deny-warnings", "valid.task"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn errors_exit_1() {
    let out = taskc(
        &corpus(),
        &["check", "--color", "never", "e0200-unknown-field.task"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("checked 1 spec: 1 error, 0 warnings\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn missing_path_exits_2() {
    let out = taskc(&corpus(), &["check", "no-such.task"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: no-such.task: no such file or folder\n"
    );
}

#[test]
fn missing_path_among_good_ones_still_exits_2() {
    let out = taskc(
        &corpus(),
        &["check", "--color", "never", "valid.task", "nope"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("checked 1 spec: 0 errors, 0 warnings"));
}

#[test]
fn bad_usage_exits_2() {
    let out = taskc(&corpus(), &["check", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    let out = taskc(&corpus(), &["check", "--format", "xml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = taskc(&corpus(), &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn folder_without_specs_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = taskc(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: no `.task` files found in ."),
        "{}",
        stderr(&out)
    );
}

#[test]
fn warnings_pass_unless_denied() {
    let spec = "w0501-single-target.task";
    let out = taskc(&corpus(), &["check", "--color", "never", spec]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).ends_with("checked 1 spec: 0 errors, 1 warning\n"),
        "{}",
        stderr(&out)
    );
    let out = taskc(
        &corpus(),
        &["check", "--color", "never", "--deny-warnings", spec],
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn color_always_colours_and_never_does_not() {
    let spec = "e0200-unknown-field.task";
    let out = taskc(&corpus(), &["check", "--color", "always", spec]);
    assert!(
        stderr(&out).contains("\u{1b}["),
        "no ANSI escapes with --color always"
    );
    let out = taskc(&corpus(), &["check", "--color", "never", spec]);
    assert!(
        !stderr(&out).contains('\u{1b}'),
        "ANSI escapes with --color never"
    );
}

#[test]
fn json_lines() {
    let out = taskc(
        &corpus(),
        &[
            "check",
            "--format",
            "json",
            "e0200-unknown-field.task",
            "e0601-edit-text-not-found.task",
            "w0501-single-target.task",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "", "JSON mode prints no summary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    for v in &lines {
        for key in [
            "spec",
            "code",
            "name",
            "severity",
            "message",
            "file",
            "line",
            "column",
            "end_line",
            "end_column",
            "span",
            "labels",
            "help",
        ] {
            assert!(v.get(key).is_some(), "missing {key} in {v}");
        }
    }
    insta::assert_json_snapshot!(lines);
}

#[test]
fn folders_are_searched_skipping_hidden_and_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    for sub in ["a/b", ".hidden", "target", "c"] {
        std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
    }
    // Broken specs where they must not be looked at; an empty spec where it must.
    std::fs::write(dir.path().join(".hidden/x.task"), "}").expect("write");
    std::fs::write(dir.path().join("target/x.task"), "}").expect("write");
    std::fs::write(dir.path().join("a/b/notes.txt"), "}").expect("write");
    std::fs::write(dir.path().join("c/empty.task"), "").expect("write");
    let out = taskc(dir.path(), &["check", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("c/empty.task"), "{err}");
    assert!(
        err.ends_with("checked 1 spec: 1 error, 0 warnings\n"),
        "{err}"
    );
}

#[test]
fn help_documents_exit_codes() {
    let out = taskc(&corpus(), &["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Exit codes:"), "{help}");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_is_searched_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("a")).expect("mkdir");
    std::fs::write(dir.path().join("a/empty.task"), "").expect("write");
    std::os::unix::fs::symlink("..", dir.path().join("a/up")).expect("symlink");
    let out = taskc(dir.path(), &["check", "--color", "never", "a"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("checked 1 spec: 1 error, 0 warnings\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_stale_lock_fails_only_deny_stale_lock_not_deny_warnings() {
    // `taskc check --deny-warnings && taskc verify` must work after an edit: before, the
    // stale lock (W0900) failed `--deny-warnings`.
    let dir = tempfile::tempdir().unwrap();
    let ex = dir.path().join("cookie-split");
    common::copy_dir(&common::root().join("examples/cookie-split"), &ex);
    let patch = ex.join("tests/proxy.patch");
    let text = std::fs::read_to_string(&patch).unwrap();
    std::fs::write(&patch, format!("{text}\n")).unwrap();
    let plain = taskc(&ex, &["check", "--color", "never", "cookie-split.task"]);
    assert!(stderr(&plain).contains("W0900"), "{}", stderr(&plain));
    let deny = taskc(
        &ex,
        &[
            "check",
            "--color",
            "never",
            "--deny-warnings",
            "cookie-split.task",
        ],
    );
    assert_eq!(deny.status.code(), Some(0), "{}", stderr(&deny));
    let stale = taskc(
        &ex,
        &[
            "check",
            "--color",
            "never",
            "--deny-stale-lock",
            "cookie-split.task",
        ],
    );
    assert_eq!(stale.status.code(), Some(1), "{}", stderr(&stale));
}
