//! The jest-json parser on `jest --json` logs in tests/fixtures/logs/jest-json/
//! (hand-written to jest 29's report shape).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn path(fixture: &str) -> String {
    format!(
        "{}/tests/fixtures/logs/jest-json/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn snapshot(fixture: &str, case: &str) {
    let path = path(fixture);
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::JestJson, &log).expect("a readable jest log");
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
fn report() {
    snapshot(
        "report.log",
        "console output with a fake `testResults` object before the report; nested describes; \
         titles with `>` and brackets; pending and todo; a file that failed to run; a title used twice",
    );
}

#[test]
fn report_relative_to_repo_root() {
    let log = std::fs::read(path("report.log")).expect("fixture exists");
    let mut parsed = parse(LogParser::JestJson, &log).expect("a readable jest log");
    parsed.strip_root("/repo/");
    let ids: Vec<&str> = parsed.tests.keys().map(String::as_str).collect();
    insta::assert_snapshot!(ids.join("\n"), @r"
    src/broken.test.js
    src/jar.test.js::cookie jar > clears > all
    src/jar.test.js::cookie jar > needs network
    src/jar.test.js::cookie jar > set > drops expired [utc] cookies
    src/jar.test.js::cookie jar > set > stores one cookie
    src/jar.test.js::cookie jar > supports partitions
    src/jar.test.js::top level test
    src/parse.test.ts::parser > parses headers
    ");
}

#[test]
fn cut_off() {
    snapshot(
        "cut-off.log",
        "the report stops half-way (the process was killed) -> incomplete",
    );
}

#[test]
fn no_report() {
    snapshot(
        "no-report.log",
        "node is missing: no report at all -> incomplete, with a hint",
    );
}

#[test]
fn malformed() {
    let log = std::fs::read(path("malformed.log")).expect("fixture exists");
    let err = parse(LogParser::JestJson, &log).expect_err("a broken report is an error");
    insta::assert_snapshot!(err.to_string(), @"jest-json log is malformed at line 7: expected value at line 1 column 2172; check that the test command writes an unmodified report");
}
