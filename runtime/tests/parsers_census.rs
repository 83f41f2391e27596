//! The parsers added for WideSWE's census of runners (issue 25): `vitest`, `surefire`,
//! `gradle`, `dotnet-trx`, `playwright-json`, `bun`, `dart-json` on fixtures written from
//! each runner's documented report format (none of these runners is packaged in Debian
//! bookworm), `phpt` and `tcltest` on the output of the real runners Debian bookworm ships
//! (php 8.2's run-tests.php, tcl 8.6's tcltest; scripts/fixtures/regen.sh). Every fixture
//! holds failing, erroring, skipped, parametrised and nested tests and names with spaces,
//! brackets, quotes and unicode; forged variants are made here by the edit an attacker
//! would make.
// Test code: an unwrap/expect/panic that fires is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse as dispatch, LogParser, Outcome, ParsedLog};

fn fixture(path: &str) -> (String, Vec<u8>) {
    let full = format!("{}/tests/fixtures/logs/{path}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&full).expect("fixture exists");
    (full, bytes)
}

fn parse(parser: LogParser, input: &[u8]) -> ParsedLog {
    let mut parsed = dispatch(parser, input).expect("no parser error");
    parsed.strip_root("/tmp/repo");
    parsed
}

/// The fixture parsed and snapshotted; it must be complete and untampered.
fn snapshot(parser: LogParser, path: &str, case: &str) -> ParsedLog {
    let (full, log) = fixture(path);
    let parsed = parse(parser, &log);
    insta::with_settings!({
        input_file => &full,
        description => case,
        omit_expression => true,
        snapshot_suffix => path.replace(['/', '.'], "-"),
    }, {
        insta::assert_snapshot!(parsed.to_string());
    });
    assert!(parsed.complete, "{path}: {parsed}");
    assert!(parsed.tampering.is_empty(), "{path}: {parsed}");
    parsed
}

/// The fixture with `from` replaced by `to` (which must occur), parsed.
fn forged(parser: LogParser, path: &str, from: &str, to: &str) -> ParsedLog {
    let (_, log) = fixture(path);
    let text = String::from_utf8(log).expect("utf-8 fixture");
    assert!(text.contains(from), "`{from}` is in {path}");
    parse(parser, text.replacen(from, to, 1).as_bytes())
}

/// The fixture cut at `at` (a fraction of its length) is incomplete.
fn cut_is_incomplete(parser: LogParser, path: &str, at: f64) {
    let (_, log) = fixture(path);
    let end = (log.len() as f64 * at) as usize;
    let parsed = parse(parser, &log[..end]);
    assert!(!parsed.complete, "{path} cut at {end}: {parsed}");
}

fn outcome(parsed: &ParsedLog, id: &str) -> Option<Outcome> {
    parsed.tests.get(id).copied()
}

#[test]
fn vitest_json() {
    let p = LogParser::Vitest;
    let parsed = snapshot(
        p,
        "vitest/report.json",
        "vitest's documented JSON report (jest's shape): nested describes, failed, skipped, \
         todo, a file that failed to load, names with quotes/brackets/unicode",
    );
    assert_eq!(
        outcome(
            &parsed,
            "test/jar.test.ts::cookie jar > parse > fails on purpose"
        ),
        Some(Outcome::Failed)
    );
    assert_eq!(
        outcome(&parsed, "test/broken.test.ts"),
        Some(Outcome::Error)
    );
    let forged_pass = forged(
        p,
        "vitest/report.json",
        "\"status\":\"failed\",\"title\":\"fails on purpose\"",
        "\"status\":\"passed\",\"title\":\"fails on purpose\"",
    );
    assert_eq!(forged_pass.tampering.len(), 2, "{forged_pass}");
    let forged_success = forged(
        p,
        "vitest/report.json",
        "\"success\":false",
        "\"success\":true",
    );
    assert_eq!(forged_success.tampering.len(), 1, "{forged_success}");
    cut_is_incomplete(p, "vitest/report.json", 0.5);
    assert!(!parse(p, b"").complete);
}

#[test]
fn surefire_xml() {
    let p = LogParser::Surefire;
    let parsed = snapshot(
        p,
        "surefire/jar.xml",
        "two surefire 3 TEST-*.xml reports concatenated (surefire's documented XSD): failure, \
         error, skipped, a parametrised JUnit 5 name with quotes/unicode, a nested class, a \
         flaky retry that passed, a test printing a fake testcase in system-out",
    );
    assert_eq!(parsed.tests.len(), 7, "{parsed}");
    assert_eq!(
        outcome(&parsed, "com.example.jar.PathTest$Nested::flakyThenPasses"),
        Some(Outcome::Passed)
    );
    let hidden = forged(p, "surefire/jar.xml", "<skipped message=\"not yet\"/>", "");
    assert_eq!(
        hidden.tampering.len(),
        1,
        "skipped=1 no longer holds: {hidden}"
    );
    let passed = forged(
        p,
        "surefire/jar.xml",
        "<error message=\"boom\" type=\"java.lang.NullPointerException\"><![CDATA[java.lang.NullPointerException: boom\n]]></error>",
        "",
    );
    assert_eq!(
        outcome(&passed, "com.example.jar.CookieJarTest::throwsNpe"),
        Some(Outcome::Passed)
    );
    assert_eq!(
        passed.tampering.len(),
        1,
        "errors=1 no longer holds: {passed}"
    );
    cut_is_incomplete(p, "surefire/jar.xml", 0.3);
}

#[test]
fn gradle_xml() {
    let p = LogParser::Gradle;
    let parsed = snapshot(
        p,
        "gradle/jar.xml",
        "two gradle TEST-*.xml results concatenated (gradle's documented JUnit XML): failure, \
         skipped, parametrised display names with quotes/brackets/unicode, a class that \
         failed to initialise",
    );
    assert_eq!(
        outcome(&parsed, "com.example.jar.CookieJarTest::[2] ünï, [x]"),
        Some(Outcome::Passed)
    );
    let added = forged(
        p,
        "gradle/jar.xml",
        "<testcase name=\"parsesPlainPair()\"",
        "<testcase name=\"hidden()\" classname=\"com.example.jar.CookieJarTest\"/><testcase name=\"parsesPlainPair()\"",
    );
    assert_eq!(added.tampering.len(), 1, "{added}");
    cut_is_incomplete(p, "gradle/jar.xml", 0.6);
}

#[test]
fn dotnet_trx() {
    let p = LogParser::DotnetTrx;
    let parsed = snapshot(
        p,
        "dotnet-trx/xunit.trx",
        "a TRX report in Visual Studio's documented schema (xUnit's qualified names, an NUnit \
         style short name given its class): failed, skipped (NotExecuted), theory rows with \
         quotes/brackets/unicode, a test printing a fake result in StdOut",
    );
    assert_eq!(
        outcome(&parsed, "Jar.Tests.NunitStyle.ParsesNunitStyle(\"x\")"),
        Some(Outcome::Passed)
    );
    assert_eq!(
        outcome(&parsed, "Jar.Tests.CookieJarTest.FailsOnPurpose"),
        Some(Outcome::Failed)
    );
    let flipped = forged(
        p,
        "dotnet-trx/xunit.trx",
        "testName=\"Jar.Tests.CookieJarTest.FailsOnPurpose\" computerName=\"host\" duration=\"00:00:00.001\" startTime=\"2026-01-01T00:00:00.000Z\" endTime=\"2026-01-01T00:00:00.000Z\" testType=\"13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b\" outcome=\"Failed\"",
        "testName=\"Jar.Tests.CookieJarTest.FailsOnPurpose\" computerName=\"host\" duration=\"00:00:00.001\" startTime=\"2026-01-01T00:00:00.000Z\" endTime=\"2026-01-01T00:00:00.000Z\" testType=\"13cdc9d9-ddb5-4fa4-a97d-d965ccfc6d4b\" outcome=\"Passed\"",
    );
    assert_eq!(flipped.tampering.len(), 2, "passed and failed: {flipped}");
    cut_is_incomplete(p, "dotnet-trx/xunit.trx", 0.5);
    assert!(!parse(p, b"Passed Jar.Tests.X").complete);
}

#[test]
fn playwright_json() {
    let p = LogParser::PlaywrightJson;
    let parsed = snapshot(
        p,
        "playwright-json/report.json",
        "playwright's documented JSON report: nested describes, a failure retried, a timeout \
         (error), a flaky test (failed), skipped, test.fail() (failed, as XFAIL), names with \
         quotes/brackets/unicode, a named project",
    );
    assert_eq!(
        outcome(
            &parsed,
            "[chromium] jar.spec.ts::cookie jar > nested > passes"
        ),
        Some(Outcome::Passed)
    );
    assert_eq!(
        outcome(&parsed, "[chromium] jar.spec.ts::cookie jar > times out"),
        Some(Outcome::Error)
    );
    let flipped = forged(
        p,
        "playwright-json/report.json",
        "\"status\": \"unexpected\"",
        "\"status\": \"expected\"",
    );
    assert_eq!(
        flipped.tampering.len(),
        2,
        "expected and unexpected: {flipped}"
    );
    cut_is_incomplete(p, "playwright-json/report.json", 0.5);
}

#[test]
fn bun_junit() {
    let p = LogParser::Bun;
    let parsed = snapshot(
        p,
        "bun/report.xml",
        "bun test's documented JUnit report: one suite per file with nested describe suites, \
         failure, skip and todo, names with quotes/brackets/unicode",
    );
    assert_eq!(
        outcome(
            &parsed,
            "test/jar.test.ts::cookie jar > each [1, 2] > adds 1 + 2"
        ),
        Some(Outcome::Passed)
    );
    assert_eq!(
        outcome(&parsed, "test/path.test.ts::throws"),
        Some(Outcome::Failed)
    );
    let removed = forged(p, "bun/report.xml", "<failure type=\"TypeError\" />", "");
    assert_eq!(
        removed.tampering.len(),
        2,
        "the file's and the run's: {removed}"
    );
    cut_is_incomplete(p, "bun/report.xml", 0.5);
}

#[test]
fn dart_json() {
    let p = LogParser::DartJson;
    let parsed = snapshot(
        p,
        "dart-json/jar.log",
        "dart test --reporter json's documented protocol: groups nested two deep, failure, \
         error, skip, a test file that failed to load, a test printing a fake testDone (a \
         `print` event: ignored), names with quotes/brackets/unicode",
    );
    assert_eq!(
        outcome(&parsed, "test/jar_test.dart::cookie jar throws"),
        Some(Outcome::Error)
    );
    // A test writing a forged testDone straight to stdout: done twice.
    let twice = forged(
        p,
        "dart-json/jar.log",
        "{\"success\":false",
        "{\"testID\":7,\"result\":\"success\",\"skipped\":false,\"hidden\":false,\"type\":\"testDone\",\"time\":1}\n{\"success\":false",
    );
    assert_eq!(twice.tampering.len(), 1, "{twice}");
    assert_eq!(
        outcome(&twice, "test/jar_test.dart::cookie jar fails on purpose"),
        Some(Outcome::Failed)
    );
    // A forged testStart/testDone pair for a new test: the suite's testCount disagrees.
    let extra = forged(
        p,
        "dart-json/jar.log",
        "{\"success\":false",
        "{\"test\":{\"id\":99,\"name\":\"hidden\",\"suiteID\":0},\"type\":\"testStart\",\"time\":1}\n{\"testID\":99,\"result\":\"success\",\"skipped\":false,\"hidden\":false,\"type\":\"testDone\",\"time\":1}\n{\"success\":false",
    );
    assert_eq!(extra.tampering.len(), 1, "{extra}");
    let after = forged(
        p,
        "dart-json/jar.log",
        "{\"success\":false,\"type\":\"done\",\"time\":322}",
        "{\"success\":false,\"type\":\"done\",\"time\":322}\n{\"testID\":7,\"result\":\"success\",\"skipped\":false,\"hidden\":false,\"type\":\"testDone\",\"time\":1}",
    );
    assert_eq!(after.tampering.len(), 1, "{after}");
    cut_is_incomplete(p, "dart-json/jar.log", 0.6);
}

#[test]
fn phpt_real() {
    let p = LogParser::Phpt;
    let parsed = snapshot(
        p,
        "phpt/jar.log",
        "real php 8.2 run-tests.php -q (Debian's php8.2-dev): PASS, FAIL (a failed \
         expectation and a fatal error), SKIP, XFAIL, BORK, progress lines ending in a \
         carriage return, colours, a test printing a fake PASS line (captured by \
         run-tests.php: not in the log), names with quotes/brackets/unicode",
    );
    assert_eq!(outcome(&parsed, "tests/fails.phpt"), Some(Outcome::Failed));
    assert_eq!(outcome(&parsed, "tests/xfail.phpt"), Some(Outcome::Failed));
    assert_eq!(outcome(&parsed, "tests/bork.phpt"), Some(Outcome::Error));
    assert_eq!(
        outcome(&parsed, "tests/skipped.phpt"),
        Some(Outcome::Skipped)
    );
    assert_eq!(outcome(&parsed, "tests/parse.phpt"), Some(Outcome::Passed));
    let flipped = forged(
        p,
        "phpt/jar.log",
        "[1;31mFAIL\x1b[0m fails on purpose",
        "[1;32mPASS\x1b[0m fails on purpose",
    );
    assert_eq!(flipped.tampering.len(), 2, "passed and failed: {flipped}");
    let after = forged(
        p,
        "phpt/jar.log",
        "FAILED TEST SUMMARY\n",
        "FAILED TEST SUMMARY\nPASS fails on purpose [tests/fails.phpt]\n",
    );
    assert_eq!(after.tampering.len(), 1, "{after}");
    let cut = forged(p, "phpt/jar.log", "Tests passed", "Tests");
    assert!(!cut.complete, "{cut}");
    cut_is_incomplete(p, "phpt/jar.log", 0.4);
}

#[test]
fn tcltest_real() {
    let p = LogParser::Tcltest;
    let parsed = snapshot(
        p,
        "tcltest/all-verbose.log",
        "real tcl 8.6 tcltest, all.tcl -verbose ps over two files (separate interpreters): \
         PASSED, FAILED (wrong result, an error, a failing setup), SKIPPED by a constraint, \
         names with brackets/quotes/unicode",
    );
    assert_eq!(outcome(&parsed, "cookie-1.2"), Some(Outcome::Failed));
    assert_eq!(outcome(&parsed, "jar-1.2"), Some(Outcome::Failed));
    assert_eq!(outcome(&parsed, "cookie-1.4"), Some(Outcome::Skipped));
    assert_eq!(
        outcome(&parsed, "cookie-2.1[a b]\"q\""),
        Some(Outcome::Passed)
    );
    // A real test printing `++++ cookie-1.2 PASSED`: the failure stands and the count is off.
    let (_, log) = fixture("tcltest/all-verbose-fake-pass.log");
    let fake = parse(p, &log);
    assert_eq!(outcome(&fake, "cookie-1.2"), Some(Outcome::Failed));
    assert_eq!(fake.tampering.len(), 1, "{fake}");
    // Without `-verbose p` no passing test is named: incomplete, not a verdict.
    let (_, log) = fixture("tcltest/all-quiet.log");
    let quiet = parse(p, &log);
    assert!(!quiet.complete && quiet.tampering.is_empty(), "{quiet}");
    let after = forged(
        p,
        "tcltest/all-verbose.log",
        "Sourced 2 Test Files.",
        "Sourced 2 Test Files.\n++++ jar-1.2 PASSED",
    );
    assert!(!after.tampering.is_empty(), "{after}");
    cut_is_incomplete(p, "tcltest/all-verbose.log", 0.7);
}

/// redis' `runtest` output, from the format of its `tests/test_helper.tcl` (redis is not
/// packaged with its test suite in Debian).
#[test]
fn tcltest_redis_runtest() {
    let p = LogParser::Tcltest;
    let log = "Cleanup: may take some time... OK\nStarting test server at port 21079\n\
        [ready]: 4242\nTesting unit/type/string\n\
        [\x1b[0;32mok\x1b[0m]: SET and GET an item (1 ms)\n\
        [\x1b[0;31merr\x1b[0m]: GETEX with \"quotes\" [x] in tests/unit/type/string.tcl\n\
        Expected 'a' to equal 'b'\n\
        [\x1b[0;33mskip\x1b[0m]: Needs debug ünï\n\
        [ok]: SET and GET an empty item (0 ms)\n\
        [1/1 done]: unit/type/string (1 seconds)\n\n\
        !!! WARNING The following tests failed:\n\n\
        *** [err]: GETEX with \"quotes\" [x] in tests/unit/type/string.tcl\n\
        Expected 'a' to equal 'b'\nCleanup: may take some time... OK\n";
    let parsed = parse(p, log.as_bytes());
    assert!(parsed.complete && parsed.tampering.is_empty(), "{parsed}");
    assert_eq!(
        outcome(&parsed, "SET and GET an item"),
        Some(Outcome::Passed)
    );
    assert_eq!(
        outcome(&parsed, "GETEX with \"quotes\" [x]"),
        Some(Outcome::Failed)
    );
    assert_eq!(outcome(&parsed, "Needs debug ünï"), Some(Outcome::Skipped));
    assert_eq!(parsed.tests.len(), 4, "{parsed}");
    let flipped = parse(
        p,
        log.replace("[\x1b[0;31merr\x1b[0m]: GETEX", "[ok]: GETEX")
            .as_bytes(),
    );
    assert_eq!(flipped.tampering.len(), 1, "{flipped}");
    let cut = parse(p, &log.as_bytes()[..log.find("!!!").expect("in the log")]);
    assert!(!cut.complete, "{cut}");
}

/// Real surefire output: Debian bookworm's maven 3.8.7 with surefire 2.22.3 and JUnit 4.13.2
/// from `/usr/share/maven-repo`, offline (`mvn -o -Dmaven.repo.local=/usr/share/maven-repo
/// test`), on `scripts/fixtures/surefire/` (written for taskc): the reports concatenated,
/// then the same project narrowed by the `-Dtest=` taskc writes for seven of its ids.
#[test]
fn surefire_real_junit4_reports_and_the_narrowed_run() {
    let p = LogParser::Surefire;
    let (_, full) = fixture("surefire/junit4-real.xml");
    let all = parse(p, &full);
    assert!(all.complete && all.tampering.is_empty(), "{all}");
    assert_eq!(all.tests.len(), 11, "{all}");
    let jar = "com.example.JarTest::";
    for (id, want) in [
        (format!("{jar}failsOnPurpose"), Outcome::Failed),
        (format!("{jar}errorsWithoutEquals"), Outcome::Error),
        (format!("{jar}isSkipped"), Outcome::Skipped),
        (format!("{jar}printsAFakeReport"), Outcome::Passed),
        (
            "com.example.ParseParamTest::readsTheKey[3: parse(k=v) is \"wrong\"]".to_string(),
            Outcome::Failed,
        ),
        (
            "com.example.ParseParamTest::readsTheKey[2: parse(ünï=1) is \"ünï\"]".to_string(),
            Outcome::Passed,
        ),
        (
            "com.example.NestedTest$WhenFull::holdsOne".to_string(),
            Outcome::Passed,
        ),
    ] {
        assert_eq!(outcome(&all, &id), Some(want), "{id}: {all}");
    }
    // The fake testcase the test printed is output, not a result.
    assert!(all.tests.keys().all(|i| !i.contains("forged")), "{all}");
    // The narrowed run: the ids taskc selected, by the arguments it writes.
    let mut ids: Vec<String> = all
        .tests
        .keys()
        .filter(|i| {
            i.contains("ParseParamTest")
                || i.ends_with("::failsOnPurpose")
                || i.ends_with("::parsesAPair")
                || i.ends_with("::holdsOne")
        })
        .cloned()
        .collect();
    ids.sort();
    let taskc_compiler::parser::Narrowing::Arguments(selector) = p.descriptor().narrowing else {
        panic!("surefire is narrowed by -Dtest");
    };
    assert_eq!(
        taskc_compiler::lower::selector_arguments(selector, &ids),
        "'-Dtest=com.example.JarTest#failsOnPurpose+parsesAPair,com.example.NestedTest$WhenFull#holdsOne,com.example.ParseParamTest#readsTheKey*' -Dsurefire.failIfNoSpecifiedTests=false"
    );
    let (_, narrowed) = fixture("surefire/junit4-real-narrowed.xml");
    let narrowed = parse(p, &narrowed);
    assert!(
        narrowed.complete && narrowed.tampering.is_empty(),
        "{narrowed}"
    );
    let got: Vec<&String> = narrowed.tests.keys().collect();
    assert_eq!(got, ids.iter().collect::<Vec<_>>(), "{narrowed}");
    for id in &ids {
        assert_eq!(narrowed.tests[id], all.tests[id], "{id}");
    }
}
