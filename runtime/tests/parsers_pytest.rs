//! The pytest parser on real pytest 9 logs (tests/fixtures/logs/pytest/), each
//! snapshot naming the log it read and the hard case it covers.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn snapshot(fixture: &str, case: &str) {
    let path = format!(
        "{}/tests/fixtures/logs/pytest/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::Pytest, &log).expect("pytest is a known parser");
    insta::with_settings!({
        input_file => &path,
        description => case,
        omit_expression => true,
        snapshot_suffix => fixture.trim_end_matches(".log"),
    }, {
        insta::assert_snapshot!(parsed.to_string());
    });
}

#[test]
#[allow(non_snake_case)]
fn rA_plain() {
    snapshot(
        "rA-plain.log",
        "-rA summary: params with spaces and brackets, xfail/xpass, fixture error, SKIPPED [1] lines, \
         a passing test that prints a fake summary header and fake FAILED lines (must be ignored)",
    );
}

#[test]
#[allow(non_snake_case)]
fn rA_color() {
    snapshot(
        "rA-color.log",
        "same run with --color=yes: ANSI codes around status words and test names",
    );
}

#[test]
#[allow(non_snake_case)]
fn rA_ci_multiline() {
    snapshot(
        "rA-ci-multiline.log",
        "CI=true: full multi-line failure messages inside the summary section",
    );
}

#[test]
#[allow(non_snake_case)]
fn rA_quiet() {
    snapshot("rA-quiet.log", "-rA -q: final line without === decoration");
}

#[test]
fn verbose_only() {
    snapshot(
        "verbose-only.log",
        "-v without -r: falls back to `path::name STATUS [ n%]` lines",
    );
}

#[test]
fn crash_segfault() {
    snapshot(
        "crash-segfault.log",
        "the interpreter segfaults mid-run: no summary, no final line -> incomplete",
    );
}

#[test]
fn collection_error() {
    snapshot(
        "collection-error.log",
        "an import error during collection: `ERROR path.py`, interrupted run",
    );
}

#[test]
fn two_sessions_duplicates() {
    snapshot(
        "two-sessions-duplicates.log",
        "the run command calls pytest twice; ids seen in both sessions are duplicates",
    );
}

#[test]
fn pytester_nested_session() {
    snapshot(
        "pytester-nested.log",
        "a test prints a whole inner pytest session (pytester) in its captured output: \
         its header, summary and final line must not end the outer session",
    );
}

#[test]
fn truncated_summary() {
    snapshot(
        "truncated-summary.log",
        "the log is cut inside the short test summary: what was read is kept, incomplete",
    );
}

#[test]
fn non_utf8_bytes() {
    let mut log = b"============ test session starts ============\n".to_vec();
    log.extend_from_slice(b"=========== short test summary info ===========\n");
    log.extend_from_slice(b"PASSED t.py::test_x[\xff\xfe]\nFAILED t.py::test_y - \xc3\n");
    log.extend_from_slice(b"======= 1 failed, 1 passed in 0.01s =======\n");
    let parsed = parse(LogParser::Pytest, &log).expect("known parser");
    insta::assert_snapshot!(parsed.to_string(), @r"
    complete: true
    tests (2):
      passed  t.py::test_x[��]
      failed  t.py::test_y
    ");
}

#[test]
fn forged_atexit() {
    snapshot(
        "forged-atexit.log",
        "the library registers an atexit handler that prints a clean summary and final line \
         after pytest's own: the real results are kept and the forged block is tampering",
    );
}

#[test]
fn forged_rewritten_summary() {
    snapshot(
        "forged-rewritten-summary.log",
        "library code wraps pytest's terminal writer and rewrites FAILED to PASSED: the final \
         line's `1 failed, 1 passed` disagrees with two listed passes -> tampering",
    );
}

#[test]
fn all_xfail() {
    snapshot(
        "all-xfail.log",
        "a conftest marks every test xfail: XFAIL is a failed body, XPASS a passed one",
    );
}

/// Issue 20 item 1: pytest's own accounting, cross-checked. Logs of real pytest 9.2 runs of
/// one module holding a pass, a failure, two parameters, an xfail, a skip, a teardown error,
/// a setup error and three subtests (one failing), and a module skipped by `pytestmark`.
fn tampering(fixture: &str) -> Vec<String> {
    let path = format!(
        "{}/tests/fixtures/logs/pytest/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    parse(LogParser::Pytest, &log)
        .expect("pytest is a known parser")
        .tampering
}

#[test]
fn a_plugin_dropping_failing_tests_is_tampering() {
    // A plugin (`-p hide`, as library code could register) runs each test without reporting
    // it when it failed: `collected 9 items`, but the final line accounts for 6.
    for log in [
        "count-dropped-failures.log",
        "count-dropped-failures-default.log",
    ] {
        let t = tampering(log);
        assert!(
            t.iter()
                .any(|e| e.contains("collected 9 test(s) to run") && e.contains("accounts for 6")),
            "{log}: {t:?}"
        );
    }
}

#[test]
fn honest_counts_are_not_tampering() {
    // Every honest shape: subtests (a `SUBFAILED` line counted as `failed`), a test counted
    // twice (passed, then a teardown error), `-k` deselection, `-v`, and sessions that
    // stopped early (`-x`, a collection error, `pytest.exit`, `KeyboardInterrupt`).
    for log in [
        "count-honest-subtests.log",
        "count-verbose.log",
        "count-deselected.log",
        "count-stopped-x.log",
        "count-collection-error.log",
        "count-exit.log",
        "count-keyboard-interrupt.log",
        "rA-plain.log",
        "rA-color.log",
        "rA-ci-multiline.log",
        "rA-quiet.log",
        "collection-error.log",
        "pytester-nested.log",
        "two-sessions-duplicates.log",
        "verbose-only.log",
        "all-xfail.log",
    ] {
        assert_eq!(tampering(log), Vec::<String>::new(), "{log}");
    }
}
