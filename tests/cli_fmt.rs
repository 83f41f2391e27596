//! `taskc fmt`: rewrites in place, `--check` prints a diff, refuses syntax errors, and is
//! idempotent on every example.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn taskc(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run taskc")
}

/// A spec laid out badly: odd indentation, `;` separators, a trailing comma.
const MESSY: &str = r#"// a comment that must survive
task "messy" {
      title "Messy"
  kind bugfix ; verify joint
  languages ["python",]
  prompt "Fix it."
env python {
version "3.11"
}
}
"#;

#[test]
fn check_prints_a_diff_and_exits_1_without_writing() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("messy.task"), MESSY).expect("write");
    let out = taskc(dir.path(), &["fmt", "--check", "messy.task"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(
        diff.starts_with("--- a/messy.task\n+++ b/messy.task\n"),
        "{diff}"
    );
    insta::assert_snapshot!(format!(
        "---- messy.task ----\n{MESSY}---- taskc fmt --check messy.task ----\n{diff}"
    ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("messy.task")).expect("read"),
        MESSY
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "checked 1 spec: 1 would be reformatted\n"
    );
}

#[test]
fn fmt_rewrites_in_place_then_check_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("messy.task");
    std::fs::write(&path, MESSY).expect("write");
    let out = taskc(dir.path(), &["fmt", "."]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let formatted = std::fs::read_to_string(&path).expect("read");
    assert_ne!(formatted, MESSY);
    assert!(formatted.contains("// a comment that must survive"));
    let out = taskc(dir.path(), &["fmt", "--check", "."]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(out.stdout.is_empty());
    // No temporary files left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn fmt_refuses_a_file_with_syntax_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = "task \"x\" {\n  kind = bugfix\n}\n";
    std::fs::write(dir.path().join("broken.task"), broken).expect("write");
    let out = taskc(dir.path(), &["fmt", "--color", "never", "broken.task"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("E0104"), "{err}");
    assert!(
        err.ends_with("formatted 1 spec: 0 changed, 1 with syntax errors left alone\n"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("broken.task")).expect("read"),
        broken
    );
}

#[test]
fn fmt_missing_file_exits_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = taskc(dir.path(), &["fmt", "nope.task"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fmt_is_idempotent_on_every_example() {
    let specs = common::files_with_ext(&root().join("examples"), "task");
    let dir = tempfile::tempdir().expect("tempdir");
    for (i, spec) in specs.iter().enumerate() {
        let copy = dir.path().join(format!("{i}.task"));
        std::fs::copy(spec, &copy).expect("copy");
        let name = format!("{i}.task");
        let out = taskc(dir.path(), &["fmt", "--color", "never", &name]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {}",
            spec.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let once = std::fs::read_to_string(&copy).expect("read");
        let out = taskc(dir.path(), &["fmt", "--check", &name]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "formatting {} twice changes it:\n{}",
            spec.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        assert_eq!(std::fs::read_to_string(&copy).expect("read"), once);
    }
}
