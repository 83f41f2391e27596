//! `taskc import wideswe` on a case whose runner script (copied into its image by the case's
//! Dockerfile) runs phpunit once per test file in a `for` loop over a function's arguments
//! (WideSWE's cases 48 and 49; tests/fixtures/wideswe-runner-loop). The loop is not taken (a
//! spec's `run` is one command read once; phpunit 9 takes one path per run): the case stays
//! refused (E1104), and a W1108 note names the loop and the runner. Before, the refusal only
//! said no test command was found.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

#[test]
fn a_runner_run_per_element_of_a_loop_is_refused_naming_the_loop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-runner-loop");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["import", "--color", "never", "wideswe"])
        .arg(&root)
        .args(["--out", "out"])
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The note's message, its wrapped lines joined (the source excerpt left out).
    let loop_note = stderr
        .split("W1108 (import-note)")
        .find(|n| n.contains("once per element of the loop"))
        .map(|n| {
            n.lines()
                .take_while(|l| !l.contains('╭'))
                .map(|l| l.trim().trim_start_matches(['⚠', '│']).trim())
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| panic!("no note naming the loop in\n{stderr}"));
    insta::assert_snapshot!(loop_note);
    assert!(stderr.contains("E1104"), "{stderr}");
}
