//! The go-test-json parser on test2json logs in tests/fixtures/logs/go-test-json/
//! (hand-written to the test2json format of Go 1.20–1.24).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn snapshot(fixture: &str, case: &str) {
    let path = format!(
        "{}/tests/fixtures/logs/go-test-json/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::GoTestJson, &log).expect("go-test-json is a known parser");
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
fn mixed() {
    snapshot(
        "mixed.log",
        "stderr build output between events; a build failure ([build failed]) -> package error; \
         subtests with brackets; skip; pause/cont; a test printing a JSON event in its output; \
         a panic kills a package mid-test -> that test errors; a package with no test files",
    );
}

#[test]
fn count2_then_cut() {
    snapshot(
        "count2-then-cut.log",
        "-count=2: ids repeat (worst wins); then the log stops inside a package -> incomplete",
    );
}

#[test]
fn go124_build_fail() {
    snapshot(
        "go124-build-fail.log",
        "Go 1.24 build-output/build-fail events and FailedBuild",
    );
}
