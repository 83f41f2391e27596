//! End to end (real `taskc` binary, local backend): verdicts that used to be wrong with
//! exit 0, or UNSOUND for reasons that were not true (issue 10, "Wrong with exit 0" 3–5).
//! Each test edits a copy of an example so that it hits one case.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::root;

use std::path::{Path, PathBuf};
use std::process::Command;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// A copy of `example` with `edit` applied to its spec (which must change it).
fn edited(dir: &Path, example: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let ex = dir.join(example);
    common::copy_dir(&root().join("examples").join(example), &ex);
    let spec = ex.join(format!("{example}.task"));
    let text = std::fs::read_to_string(&spec).expect("spec");
    let new = edit(&text);
    assert_ne!(
        text, new,
        "the edit of {example} changed nothing; update this test"
    );
    std::fs::write(&spec, new).expect("write spec");
    ex
}

fn verify(ex: &Path, example: &str, cache: &Path) -> Out {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["verify", &format!("{example}.task"), "--backend", "local"])
        .args(["--no-lock", "--color", "never", "--cache"])
        .arg(cache)
        .current_dir(ex)
        .output()
        .expect("the taskc binary runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// gateway imports proxy but does not declare it: the `uses` check names the missing
/// declaration, first.
#[test]
fn a_missing_uses_is_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = edited(dir.path(), "cookie-split", |t| {
        t.replacen("    uses proxy\n", "", 1)
    });
    let r = verify(&ex, "cookie-split", &dir.path().join("cache"));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let first = r
        .stdout
        .lines()
        .skip_while(|l| *l != "UNSOUND:")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        first.contains("`gateway`'s tests change with `proxy`'s gold patch: add `uses proxy` to `repo gateway`"),
        "{}",
        r.stdout
    );
}

/// With the declaration in place the check runs and finds nothing.
#[test]
fn declared_uses_pass_the_check() {
    let dir = tempfile::tempdir().expect("temp dir");
    // proxy does not use gateway: its closure leaves gateway out, so it is checked.
    let ex = edited(dir.path(), "cookie-split", |t| {
        t.replacen(
            "timeout 600\n      expect f2p \"tests/test_cookies",
            "timeout 601\n      expect f2p \"tests/test_cookies",
            1,
        )
    });
    let r = verify(&ex, "cookie-split", &dir.path().join("cache"));
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Targeted: the gateway-only configuration is already failed by proxy's base run, so its
    // gateway cell is not run (7 runs, the `uses` check among them).
    assert!(r.stdout.contains("7 runs: 7 executed"), "{}", r.stdout);
    assert!(!r.stdout.contains("uses"), "{}", r.stdout);
}

/// A `drop` of a test no run reports is an error after the runs, with did-you-mean.
#[test]
fn a_drop_of_an_unreported_test_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = edited(dir.path(), "config-merge", |t| {
        t.replacen(
            "drop \"tests/test_merge.py::test_merge_none_removes_key\"",
            "drop \"tests/test_merge.py::test_merge_none_remove_key\"",
            1,
        )
    });
    let r = verify(&ex, "config-merge", &dir.path().join("cache"));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "`drop \"tests/test_merge.py::test_merge_none_remove_key\"` names a test no run reports; did you mean `tests/test_merge.py::test_merge_none_removes_key`?"
        ),
        "{}",
        r.stdout
    );
}

/// A test command that cannot start says why (exit 127: command not found), quotes the
/// log's last lines and names the full log; no verdict is derived from its runs.
#[test]
fn a_command_that_cannot_start_says_why_and_decides_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = edited(dir.path(), "cookie-split", |t| {
        t.replacen(
            "run \"python3 -m pytest -rA -p no:cacheprovider tests\"",
            "run \"pyhton3 -m pytest -rA -p no:cacheprovider tests\"",
            1,
        )
    });
    let r = verify(&ex, "cookie-split", &dir.path().join("cache"));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let s = &r.stdout;
    assert!(
        s.contains("the test command of `proxy` could not start (exit 127: command not found"),
        "{s}"
    );
    assert!(s.contains("pyhton3: command not found"), "{s}");
    let log = s
        .lines()
        .find_map(|l| l.trim().strip_prefix("full log: "))
        .unwrap_or_else(|| panic!("no log path in:\n{s}"));
    let text = std::fs::read_to_string(log).expect("the named log exists");
    assert!(text.contains("pyhton3"), "{text}");
    for wrong in ["not jointly necessary", "has no fail-to-pass", "fails 0 of"] {
        assert!(
            !s.contains(wrong),
            "a verdict from an invalid run: {wrong}\n{s}"
        );
    }
}

/// A test command that exits non-zero without any test result (cargo cannot get a crate:
/// the runs have no network, WideSWE case 6 as imported) passed nothing: its cells fail,
/// even over an empty oracle, and the verdict says the command reported no test instead of
/// "every F2P and P2P test passes" (it showed "pass 0/0" with gold, ✓).
#[test]
fn a_run_that_reports_no_test_and_fails_passes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Without the setup that wires `miniqueue` to the `queue` repository, `cargo test
    // --offline` in app cannot get it from crates.io and stops before any test.
    let ex = edited(dir.path(), "rust-force-push", |t| {
        let at = t.find("    setup \"mkdir -p .cargo").expect("app's setup");
        let end = at + t[at..].find('\n').expect("line end") + 1;
        format!("{}{}", &t[..at], &t[end..])
    });
    let r = verify(&ex, "rust-force-push", &dir.path().join("cache"));
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let s = &r.stdout;
    assert!(
        s.contains("`app` reported no test result (its test command exited "),
        "{s}"
    );
    let log = s
        .split("full log: ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no log path in:\n{s}"));
    assert!(std::path::Path::new(log).is_file(), "{log}\n{s}");
    let gold_row = s
        .lines()
        .find(|l| l.starts_with("app + queue"))
        .unwrap_or_else(|| panic!("no gold row in:\n{s}"));
    assert!(gold_row.contains("fail 0/0"), "{gold_row}\n{s}");
    assert!(gold_row.trim_end().ends_with('✗'), "{gold_row}\n{s}");
    assert!(!s.contains("every F2P and P2P test passes"), "{s}");
}

/// Targeted verification (the default) and `--full` give the same verdict, problems and
/// oracle on every joint example, the unsound one included; a second targeted verify
/// executes nothing.
#[test]
fn targeted_and_full_verification_agree_on_the_examples() {
    let summary = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains(" F2P, ") || l.starts_with("  - ") || l.starts_with("sound"))
            .map(str::to_string)
            .collect()
    };
    for ex in [
        "cookie-split",
        "config-merge",
        "context-docs",
        "unsound-partial",
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let cache = dir.path().join("cache");
        let spec = root().join(format!("examples/{ex}/{ex}.task"));
        let run = |extra: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
                .arg("verify")
                .arg(&spec)
                .args([
                    "--backend",
                    "local",
                    "--no-lock",
                    "--color",
                    "never",
                    "--cache",
                ])
                .arg(&cache)
                .args(extra)
                .output()
                .expect("the taskc binary runs");
            (
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
            )
        };
        let (tc, targeted) = run(&[]);
        let (fc, full) = run(&["--full"]);
        assert_eq!(tc, fc, "{ex}:\n{targeted}\n{full}");
        let legend = "(`F2P`: a proper subset ran only";
        // Targeted runs less: a narrowed cell, or a cell another target's failure left
        // unrun (unsound-partial: its one narrowed cell passed and ran again in full).
        let not_run = "(`not run`: another target already fails";
        assert!(
            targeted.contains(legend) || targeted.contains(not_run),
            "{ex} ran no targeted cell:\n{targeted}"
        );
        assert!(
            !full.contains(not_run),
            "{ex} --full left a cell unrun:\n{full}"
        );
        assert!(
            !full.contains(legend),
            "{ex} --full ran a targeted cell:\n{full}"
        );
        assert_eq!(summary(&targeted), summary(&full), "{ex}");
        // Issue 22: default verify never needs more runs than `--full` (executed and
        // cached alike: the two share a cache here).
        assert!(
            runs_of(&targeted) <= runs_of(&full),
            "{ex}: default needed {} runs, --full {}:\n{targeted}\n{full}",
            runs_of(&targeted),
            runs_of(&full)
        );
        let (_, again) = run(&[]);
        assert!(again.contains(" 0 executed"), "{ex}:\n{again}");
    }
}

/// The `N runs:` of a verify header (`verify NAME (joint: 2 targets, 8 runs: 8 executed, …)`).
fn runs_of(out: &str) -> usize {
    out.lines()
        .find(|l| l.starts_with("verify "))
        .and_then(|l| l.split(" runs: ").next())
        .and_then(|h| h.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run count in:\n{out}"))
}
