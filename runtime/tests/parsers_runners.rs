//! The parsers of issue 25's runners on logs and reports produced by the real
//! runners (Debian bookworm's phpunit 9.6, rspec 3.12, minitest 5, mocha 10,
//! python 3.11's unittest) on the small suites of scripts/fixtures/<runner>/, which
//! scripts/fixtures/regen.sh re-runs. Forged variants are made here from the real
//! fixtures by the edit an attacker would make.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse as dispatch, LogParser, Outcome, ParsedLog};

fn phpunit(log: &[u8]) -> ParsedLog {
    dispatch(LogParser::PhpunitJunit, log).expect("no parser error")
}
fn rspec(log: &[u8]) -> ParsedLog {
    dispatch(LogParser::RspecJson, log).expect("no parser error")
}
fn minitest(log: &[u8]) -> ParsedLog {
    dispatch(LogParser::Minitest, log).expect("no parser error")
}
fn mocha(log: &[u8]) -> ParsedLog {
    dispatch(LogParser::MochaJson, log).expect("no parser error")
}
fn unittest(log: &[u8]) -> ParsedLog {
    dispatch(LogParser::Unittest, log).expect("no parser error")
}

fn fixture(path: &str) -> (String, Vec<u8>) {
    let full = format!("{}/tests/fixtures/logs/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).expect("fixture exists");
    (full, bytes)
}

fn snapshot(path: &str, case: &str, parse: fn(&[u8]) -> ParsedLog) -> ParsedLog {
    let (full, log) = fixture(path);
    let mut parsed = parse(&log);
    parsed.strip_root("/tmp/repo");
    insta::with_settings!({
        input_file => &full,
        description => case,
        omit_expression => true,
        snapshot_suffix => path.replace(['/', '.'], "-"),
    }, {
        insta::assert_snapshot!(parsed.to_string());
    });
    parsed
}

/// The fixture with `from` replaced by `to` (which must occur), parsed.
fn forged(path: &str, from: &str, to: &str, parse: fn(&[u8]) -> ParsedLog) -> ParsedLog {
    let (_, log) = fixture(path);
    let text = String::from_utf8(log).expect("utf-8 fixture");
    assert!(text.contains(from), "`{from}` is in {path}");
    parse(text.replacen(from, to, 1).as_bytes())
}

#[test]
fn phpunit_junit() {
    let parsed = snapshot(
        "phpunit/cookie-jar.xml",
        "real phpunit 9.6 --log-junit: failure, error, skipped, incomplete, risky (an error), \
         named data sets with quotes/brackets/unicode, numbered data sets, a namespaced class, \
         printed fake results in system-out",
        phpunit,
    );
    assert!(parsed.tampering.is_empty());
    assert!(parsed.complete);
}

#[test]
fn phpunit_forged() {
    // A failure removed from the report: the suites' counts no longer agree.
    let (_, log) = fixture("phpunit/cookie-jar.xml");
    let text = String::from_utf8(log).expect("utf-8 fixture");
    let start = text
        .find("<failure type=\"PHPUnit\\Framework\\ExpectationFailedException\">CookieJarTest::testFailsOnPurpose")
        .expect("the failure is in the fixture");
    let end = start + text[start..].find("</failure>").expect("closed") + "</failure>".len();
    let parsed = phpunit(format!("{}{}", &text[..start], &text[end..]).as_bytes());
    assert_eq!(
        parsed.tests.get("CookieJarTest::testFailsOnPurpose"),
        Some(&Outcome::Passed)
    );
    assert_eq!(
        parsed.tampering.len(),
        2,
        "the class's suite and the folder's: {parsed}"
    );
    // A passing testcase added.
    let parsed = forged(
        "phpunit/cookie-jar.xml",
        "<testcase name=\"testStoresOneCookie\"",
        "<testcase name=\"testForged\" class=\"CookieJarTest\"/><testcase name=\"testStoresOneCookie\"",
        phpunit,
    );
    assert_eq!(parsed.tampering.len(), 2, "{parsed}");
    let (_, log) = fixture("phpunit/cookie-jar.xml");
    let cut = phpunit(&log[..log.len() / 2]);
    assert!(!cut.complete);
}

#[test]
fn rspec_json() {
    let parsed = snapshot(
        "rspec/jar.json",
        "real rspec 3.12 --format json: nested describe/context, failing before(:context), \
         pending and xit as skipped, the same description twice (a duplicate), names with \
         quotes/brackets/unicode",
        rspec,
    );
    assert!(parsed.tampering.is_empty() && parsed.complete);
    assert_eq!(
        parsed
            .tests
            .get("spec/jar_spec.rb::CookieJar fails on purpose"),
        Some(&Outcome::Failed)
    );
}

#[test]
fn rspec_forged_and_cut() {
    let parsed = forged(
        "rspec/jar.json",
        "\"full_description\":\"CookieJar fails on purpose\",\"status\":\"failed\"",
        "\"full_description\":\"CookieJar fails on purpose\",\"status\":\"passed\"",
        rspec,
    );
    assert_eq!(parsed.tampering.len(), 1, "{parsed}");
    // The log of --format documentation holds the fake report a test printed: no report.
    let (_, log) = fixture("rspec/jar.documentation.log");
    let parsed = rspec(&log);
    assert!(!parsed.complete && parsed.tests.is_empty(), "{parsed}");
    let (_, log) = fixture("rspec/jar.json");
    assert!(!rspec(&log[..log.len() - 40]).complete);
}

#[test]
fn minitest_verbose() {
    let parsed = snapshot(
        "minitest/jar-verbose.log",
        "real minitest 5 -v: failure, error, skip, spec-style names with quotes/brackets/unicode, \
         a test printing a fake result line and then text without a newline (the real result \
         ends up on the next line and is given back to it)",
        minitest,
    );
    assert!(parsed.tampering.is_empty() && parsed.complete, "{parsed}");
    assert!(!parsed.tests.contains_key("CookieJarTest#test_forged"));
}

#[test]
fn minitest_forged() {
    // A failing test given a pass in the running section: the failure details still name it.
    let parsed = forged(
        "minitest/jar-verbose.log",
        "CookieJarTest#test_fails_on_purpose = 0.00 s = F",
        "CookieJarTest#test_fails_on_purpose = 0.00 s = .",
        minitest,
    );
    assert_eq!(
        parsed.tests.get("CookieJarTest#test_fails_on_purpose"),
        Some(&Outcome::Failed)
    );
    // An extra result line: more results than runs.
    let parsed = forged(
        "minitest/jar-verbose.log",
        "CookieJarTest#test_raises = 0.00 s = E",
        "CookieJarTest#test_raises = 0.00 s = E\nCookieJarTest#test_new = 0.00 s = .",
        minitest,
    );
    assert_eq!(parsed.tampering.len(), 1, "{parsed}");
    let parsed = forged(
        "minitest/jar-verbose.log",
        "10 runs, 8 assertions, 3 failures, 1 errors, 1 skips",
        "10 runs, 8 assertions, 3 failures, 1 errors, 1 skips\nCookieJarTest#test_x = 0.00 s = .",
        minitest,
    );
    assert_eq!(parsed.tampering.len(), 1, "{parsed}");
    let cut = forged("minitest/jar-verbose.log", "\n10 runs", "\n", minitest);
    assert!(!cut.complete);
}

#[test]
fn mocha_json() {
    let parsed = snapshot(
        "mocha/jar.log",
        "real mocha 10 --reporter json on stdout: a one-line fake report printed by a test first \
         (not a whole report: ignored), failure, thrown error, it.skip and a body-less test as \
         skipped, a failing before-all hook as an error, names with quotes/brackets/unicode",
        mocha,
    );
    assert!(parsed.tampering.is_empty() && parsed.complete, "{parsed}");
}

#[test]
fn mocha_forged() {
    let parsed = forged("mocha/jar.log", "\"passes\": 6,", "\"passes\": 7,", mocha);
    assert_eq!(parsed.tampering.len(), 1, "{parsed}");
}

#[test]
fn unittest_verbose() {
    let parsed = snapshot(
        "unittest/jar.log",
        "real python 3.11 unittest -v: FAIL, ERROR, skipped, expected failure (failed), \
         unexpected success (passed), a docstring line, a failing subtest, a failing setUpClass, \
         stderr text before a status, and a fake result line after the final line (printed to \
         a buffered stdout): tampered",
        unittest,
    );
    assert!(parsed.complete);
    assert_eq!(parsed.tampering.len(), 1, "{parsed}");
}

#[test]
fn unittest_counts() {
    let parsed = forged(
        "unittest/jar.log",
        "test_fails_on_purpose (tests.test_jar.CookieJarTest.test_fails_on_purpose) ... FAIL",
        "test_fails_on_purpose (tests.test_jar.CookieJarTest.test_fails_on_purpose) ... ok",
        unittest,
    );
    assert!(
        parsed.tampering.iter().any(|t| t.contains("failures")),
        "{parsed}"
    );
    let cut = forged("unittest/jar.log", "Ran 9 tests", "", unittest);
    assert!(!cut.complete);
}
