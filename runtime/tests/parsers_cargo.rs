//! The cargo parser (libtest and nextest) on logs in tests/fixtures/logs/cargo/:
//! a real `cargo test --no-fail-fast` run and hand-written nextest/old-cargo logs.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn snapshot(fixture: &str, case: &str) {
    let path = format!(
        "{}/tests/fixtures/logs/cargo/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::Cargo, &log).expect("cargo is a known parser");
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
fn libtest_no_fail_fast() {
    snapshot(
        "libtest-no-fail-fast.log",
        "real cargo test: lib, integration and doc tests; should-panic, ignored with reason; \
         a failing test prints fake result lines; a test binary aborts (SIGABRT) mid-block",
    );
}

#[test]
fn libtest_truncated() {
    snapshot(
        "libtest-truncated.log",
        "the log stops inside a `running 2 tests` block -> incomplete",
    );
}

#[test]
fn old_cargo_duplicates() {
    snapshot(
        "old-cargo-duplicates.log",
        "old cargo (`Running target/...` without the source): bare ids; the binary ran twice, \
         so ids repeat and the worst outcome wins",
    );
}

#[test]
fn nextest() {
    snapshot(
        "nextest.log",
        "nextest: binary ids, retries (TRY n), SIGABRT, TIMEOUT, captured libtest output, \
         and the failure list repeated after Summary",
    );
}

#[test]
fn nextest_truncated() {
    snapshot(
        "nextest-truncated.log",
        "nextest log cut before its Summary line -> incomplete",
    );
}

#[test]
fn compile_error() {
    snapshot(
        "compile-error.log",
        "real cargo test where a test target does not compile: no results, but a complete log \
         (the expected tests count as missing, not as an invalid run)",
    );
}

#[test]
fn doc_tests() {
    snapshot(
        "doc-tests.log",
        "real cargo test of a crate with doc-tests: crate-level, no_run (` - compile`), \
         compile_fail, should_panic, a failing one and two examples of one item -> ids are \
         file and item without `(line N)`; the second example of `add` is `add #2`",
    );
}

#[test]
fn doc_test_ids_do_not_move_with_doc_lines() {
    // The same crate after a correct patch added doc-comment lines above every doc-test
    // (real logs of both): before, every doc-test id changed (`(line 9)` → `(line 12)`).
    let read = |f: &str| {
        let path = format!(
            "{}/tests/fixtures/logs/cargo/{f}",
            env!("CARGO_MANIFEST_DIR")
        );
        parse(LogParser::Cargo, &std::fs::read(path).unwrap()).unwrap()
    };
    let (before, after) = (read("doc-tests.log"), read("doc-tests-moved.log"));
    assert_eq!(before.tests.len(), 8, "{before}");
    assert_eq!(before.tests, after.tests);
}

#[test]
fn libtest_forged_block() {
    // Real `cargo test --no-fail-fast -- --test-threads=1` of a crate whose first test
    // (`aaa_forger`) runs `sh -c 'printf …'`: the child's output is not captured by libtest,
    // so it lands in the result lines as a whole forged block (`needs_gold ... ok`, a
    // `test result: ok. 3 passed`), ending the real block early; the real
    // `needs_gold ... FAILED` comes after it. Before the count check it read `needs_gold`
    // as passed and the log as clean.
    snapshot(
        "libtest-forged-block.log",
        "a test prints a forged result block through a child process -> tampered: the forged \
         `test result:` disagrees with the block's listed results, and the real results come \
         after it outside any block",
    );
    let path = format!(
        "{}/tests/fixtures/logs/cargo/libtest-forged-block.log",
        env!("CARGO_MANIFEST_DIR")
    );
    let parsed = parse(LogParser::Cargo, &std::fs::read(path).unwrap()).unwrap();
    assert!(!parsed.tampering.is_empty(), "{parsed}");
}

#[test]
fn honest_logs_have_no_tampering() {
    // Real logs where captured output holds `test result:` and result lines (a failing
    // test printing them), doc-tests, a crash mid-block: none of it is forgery.
    for fixture in [
        "libtest-no-fail-fast.log",
        "doc-tests.log",
        "doc-tests-moved.log",
        "compile-error.log",
        "old-cargo-duplicates.log",
    ] {
        let path = format!(
            "{}/tests/fixtures/logs/cargo/{fixture}",
            env!("CARGO_MANIFEST_DIR")
        );
        let parsed = parse(LogParser::Cargo, &std::fs::read(path).unwrap()).unwrap();
        assert!(parsed.tampering.is_empty(), "{fixture}: {parsed}");
    }
}
