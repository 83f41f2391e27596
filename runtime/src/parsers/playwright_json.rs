//! playwright's JSON reporter:
//! `PLAYWRIGHT_JSON_OUTPUT_NAME="$TASKC_REPORT" playwright test --reporter=json`.
//!
//! The report nests `suites` (a test file, then its `describe` blocks), each holding
//! `specs` (a test), each holding one `tests[]` entry per project it ran in, with the
//! runs (`results[]`, retries included) and a final `status`.
//!
//! **Ids** are `<file>::<describe> > <title>` (`tests/jar.spec.ts::cookie jar > sets it`),
//! with `[<project>] ` in front when the test ran in a named project
//! (`[chromium] tests/jar.spec.ts::…`), as playwright's list reporter names a test.
//!
//! **Outcomes** from the test's `status`: `expected` → passed (skipped when its
//! `expectedStatus` is `skipped`; failed when it is `failed`: a `test.fail()` test that
//! failed as expected, counted like pytest's XFAIL); `skipped` → skipped; `unexpected` →
//! failed, or error when its last run `timedOut` or was `interrupted`; `flaky` (failed,
//! then passed on a retry) → failed: a hidden test must pass, not pass sometimes.
//!
//! **Complete** when a whole report was read and no run is `interrupted`.
//!
//! **Tampering.** `stats.expected`, `unexpected`, `flaky` and `skipped` must match the
//! listed tests' statuses. The report path is in the tests' environment, so a test can
//! rewrite the file: it is trusted no more than the log.

use serde::Deserialize;

use super::json_reports::parse_reports;
use super::parsed_log::{Outcome, ParsedLog};

#[derive(Deserialize)]
struct Report {
    suites: Vec<Suite>,
    stats: Stats,
}

#[derive(Deserialize)]
struct Stats {
    expected: usize,
    unexpected: usize,
    flaky: usize,
    skipped: usize,
}

#[derive(Deserialize)]
struct Suite {
    #[serde(default)]
    title: String,
    #[serde(default)]
    file: String,
    #[serde(default)]
    specs: Vec<Spec>,
    #[serde(default)]
    suites: Vec<Suite>,
}

#[derive(Deserialize)]
struct Spec {
    #[serde(default)]
    title: String,
    #[serde(default)]
    tests: Vec<Test>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    #[serde(default)]
    project_name: String,
    #[serde(default)]
    expected_status: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    results: Vec<Run>,
}

#[derive(Deserialize)]
struct Run {
    #[serde(default)]
    status: String,
}

/// The statuses seen, to check against `stats`.
#[derive(Default)]
struct Tally {
    expected: usize,
    unexpected: usize,
    flaky: usize,
    skipped: usize,
    interrupted: bool,
}

/// Parses playwright's JSON report.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_reports(
        report,
        b"\"suites\"",
        "playwright",
        "no playwright JSON report (an object with `suites` and `stats`): run \
         `PLAYWRIGHT_JSON_OUTPUT_NAME=\"$TASKC_REPORT\" playwright test --reporter=json`",
        read,
    )
}

fn read(parsed: &mut ParsedLog, report: Report, line: usize) {
    let mut tally = Tally::default();
    for suite in &report.suites {
        let file = if suite.file.is_empty() {
            suite.title.as_str()
        } else {
            suite.file.as_str()
        };
        read_suite(parsed, &mut tally, file, &mut Vec::new(), suite);
    }
    for (what, said, listed) in [
        ("expected", report.stats.expected, tally.expected),
        ("unexpected", report.stats.unexpected, tally.unexpected),
        ("flaky", report.stats.flaky, tally.flaky),
        ("skipped", report.stats.skipped, tally.skipped),
    ] {
        if said != listed {
            parsed.tampered(format!(
                "the playwright report at line {line} counts {said} {what} test(s) but lists {listed}"
            ));
        }
    }
    if tally.interrupted {
        parsed.complete = false;
        parsed.warn("a playwright run was interrupted: the run ended early");
    }
}

/// Records `suite`'s specs; `path` holds the describe titles above it (the file's own
/// suite has its file name as title and adds nothing).
fn read_suite<'a>(
    parsed: &mut ParsedLog,
    tally: &mut Tally,
    file: &str,
    path: &mut Vec<&'a str>,
    suite: &'a Suite,
) {
    for spec in &suite.specs {
        let mut name = String::new();
        for describe in path.iter() {
            name.push_str(describe);
            name.push_str(" > ");
        }
        name.push_str(&spec.title);
        for test in &spec.tests {
            let id = if test.project_name.is_empty() {
                format!("{file}::{name}")
            } else {
                format!("[{}] {file}::{name}", test.project_name)
            };
            let last = test.results.last().map(|r| r.status.as_str());
            tally.interrupted |= test.results.iter().any(|r| r.status == "interrupted");
            let outcome = match test.status.as_str() {
                "expected" => {
                    tally.expected += 1;
                    match test.expected_status.as_str() {
                        "skipped" => Outcome::Skipped,
                        "failed" => Outcome::Failed,
                        _ => Outcome::Passed,
                    }
                }
                "skipped" => {
                    tally.skipped += 1;
                    Outcome::Skipped
                }
                "unexpected" => {
                    tally.unexpected += 1;
                    match last {
                        Some("timedOut" | "interrupted") => Outcome::Error,
                        _ => Outcome::Failed,
                    }
                }
                "flaky" => {
                    tally.flaky += 1;
                    Outcome::Failed
                }
                other => {
                    parsed.warn(format!(
                        "{id}: unknown playwright status `{other}`, counted as an error"
                    ));
                    Outcome::Error
                }
            };
            parsed.record(id, outcome);
        }
    }
    for inner in &suite.suites {
        path.push(&inner.title);
        read_suite(parsed, tally, file, path, inner);
        path.pop();
    }
}
