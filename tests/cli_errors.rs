//! Runtime errors are data: their `Display` says what failed and never carries `help:`
//! (every `#[error(…)]` of `runtime/src` is read); what to do is the error's `hint()`, and the
//! CLI renders it as `help:` in one place (`src/error.rs`). Runs the real binary against a
//! Docker host that does not exist.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

mod common;

#[test]
fn no_runtime_error_bakes_help_into_its_message() {
    let files = common::files_with_ext(&common::root().join("runtime/src"), "rs");
    let mut seen = 0;
    let mut baked = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (at, _) in text.match_indices("#[error(") {
            let attr = &text[at..];
            let end = attr.find(")]").map_or(attr.len(), |e| e + 2);
            seen += 1;
            if attr[..end].contains("help:") {
                baked.push(format!("{}: {}", f.display(), &attr[..end]));
            }
        }
    }
    assert!(seen > 50, "read {seen} #[error] attributes");
    assert!(
        baked.is_empty(),
        "help baked into Display:\n{}",
        baked.join("\n")
    );
}

#[test]
fn the_cli_renders_a_runtime_errors_hint_as_help() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = common::root().join("examples/cookie-split/cookie-split.task");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["verify", "--backend", "docker", "--no-lock", "--cache"])
        .arg(tmp.path())
        .arg(&spec)
        .env("DOCKER_HOST", "unix:///nonexistent/taskc-test.sock")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let error = stderr
        .lines()
        .position(|l| l.starts_with("error: cannot reach the Docker daemon"))
        .unwrap_or_else(|| panic!("{stderr}"));
    let help = stderr.lines().nth(error + 1).unwrap_or_default();
    assert!(
        help.starts_with("  help: ") && help.contains("--backend local"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("help:").count(),
        1,
        "one help line: {stderr}"
    );
}
