//! `taskc --version` names the commit it was built from; `taskc completions SHELL` prints a
//! completion script that knows the subcommands.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

#[test]
fn version_names_the_commit() {
    let out = Command::new(TASKC).arg("--version").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    assert_eq!(
        text.trim(),
        format!("taskc {} (commit {head})", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_know_every_subcommand() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(TASKC)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success(), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        for cmd in ["check", "verify", "score", "gc", "completions"] {
            assert!(text.contains(cmd), "{shell} completions lack `{cmd}`");
        }
    }
    let bad = Command::new(TASKC)
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn score_help_describes_format_in_scores_words() {
    let out = Command::new(TASKC)
        .args(["score", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let format = text
        .split("--format")
        .nth(1)
        .expect("score --help lists --format");
    let format: String = format.lines().take(12).collect::<Vec<_>>().join("\n");
    assert!(
        !format.contains("truth table") && !format.contains("verification"),
        "score --help speaks of verify: {format}"
    );
    assert!(format.contains("report"), "{format}");
}
