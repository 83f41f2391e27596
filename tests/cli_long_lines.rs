//! Very long lines never crash `taskc check`: the shown context of a long line is shortened
//! (as rustc does), while line and column numbers stay those of the file.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

fn check(name: &str, text: &str) -> (Output, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(name), text).expect("write spec");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never", name])
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stderr)
}

fn snapshot(snap: &str, input: &str, name: &str, text: &str) {
    let (out, stderr) = check(name, text);
    let code = out.status.code().unwrap_or(-1);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.lines().all(|l| l.chars().count() <= 200),
        "a rendered line is longer than 200 characters"
    );
    insta::assert_snapshot!(
        snap,
        format!("---- {name}: {input} ----\n---- taskc check --color never {name}  (exit {code}) ----\n{stderr}")
    );
}

#[test]
fn a_line_of_100000_open_braces() {
    let text = format!("{}\n", "{".repeat(100_000));
    snapshot("braces", "one line of 100,000 `{`", "braces.task", &text);
}

#[test]
fn a_5mb_string_literal_with_an_error_after_it() {
    let text = format!(
        "task \"x\" {{ title \"{}\" zork 1 }}\n",
        "a".repeat(5 * 1024 * 1024)
    );
    snapshot(
        "string",
        "`task \"x\" { title \"<5 MiB of a>\" zork 1 }` on one line",
        "string.task",
        &text,
    );
}

#[test]
fn a_long_line_in_the_middle_keeps_its_neighbours() {
    let text = format!(
        "task \"x\" {{\n  title \"{}\"\n  kund bugfix\n}}\n",
        "é".repeat(200_000)
    );
    snapshot(
        "neighbour",
        "a title of 200,000 `é` on line 2, a typo on line 3",
        "neighbour.task",
        &text,
    );
}
