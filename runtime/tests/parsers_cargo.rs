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
