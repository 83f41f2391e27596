//! The junit-xml parser on real pytest 9 reports (xunit1 and xunit2) and
//! hand-written surefire / jest-junit reports in tests/fixtures/logs/junit-xml/.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn snapshot(fixture: &str, case: &str) {
    let path = format!(
        "{}/tests/fixtures/logs/junit-xml/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::JunitXml, &log).expect("junit-xml is a known parser");
    insta::with_settings!({
        input_file => &path,
        description => case,
        omit_expression => true,
        snapshot_suffix => fixture.replace('.', "-"),
    }, {
        insta::assert_snapshot!(parsed.to_string());
    });
}

#[test]
fn pytest_xunit2() {
    snapshot(
        "pytest-xunit2.xml",
        "pytest's default xunit2 report (no file attribute): dotted classname -> path::Class::name, \
         params with spaces and brackets, xfail as failed, fixture error, multi-line failures",
    );
}

#[test]
fn pytest_xunit1() {
    snapshot("pytest-xunit1.xml", "xunit1: file attribute gives the path");
}

#[test]
fn pytest_stdout_interleaved() {
    snapshot(
        "pytest-stdout-interleaved.log",
        "real --junitxml=/dev/stdout run: pytest's terminal output lands inside the XML, \
         which breaks it -> incomplete, with the line",
    );
}

#[test]
fn surefire_and_jest() {
    snapshot(
        "surefire-and-jest.log",
        "two reports in one log among build output: surefire (CDATA holding fake testcase tags, \
         rerunFailure) and jest-junit (file attribute, a name reported twice)",
    );
}

#[test]
fn pytest_truncated() {
    snapshot(
        "pytest-truncated.xml",
        "the report is cut off -> incomplete, results so far kept",
    );
}
