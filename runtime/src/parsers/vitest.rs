//! vitest's JSON report: `vitest run --reporter=json --outputFile="$TASKC_REPORT"` (the
//! report file, chosen over `--reporter=junit` because it keeps the describe path apart
//! from the title and carries counts to check).
//!
//! The report has jest's shape: `testResults[]` (one per test file, `name` its absolute
//! path) holding `assertionResults[]` (`ancestorTitles`, `title`, `status`).
//!
//! **Ids** are `<file>::<describe> > <describe> > <title>`, the file made relative by the
//! runtime ([`ParsedLog::strip_root`]): `test/jar.test.ts::cookie jar > set > stores it`
//! (what `vitest -t` matches after the file), the ids `jest-json` gives the same report.
//!
//! **Outcomes.** `passed` → passed; `failed` → failed; `skipped`, `pending`, `todo` →
//! skipped. A test file that failed to load (no assertion results, status `failed`) is
//! recorded under the file alone as error.
//!
//! **Complete** when a whole report was read; a report cut off, or none, is incomplete.
//!
//! **Tampering.** `numTotalTests`, `numPassedTests` and `numFailedTests` must match the
//! listed results; `success: true` with a failing or erroring result is tampered. The
//! report path is in the tests' environment, so a test can rewrite the file: it is trusted
//! no more than the log.

use serde::Deserialize;

use super::jest_json::Suite;
use super::json_reports::parse_reports;
use super::parsed_log::{Outcome, ParsedLog};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    num_total_tests: usize,
    num_passed_tests: usize,
    num_failed_tests: usize,
    #[serde(default)]
    success: Option<bool>,
    test_results: Vec<Suite>,
}

/// Parses vitest's JSON report.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_reports(
        report,
        b"\"testResults\"",
        "vitest",
        "no vitest JSON report (an object with `numTotalTests` and `testResults`): \
         run `vitest run --reporter=json --outputFile=\"$TASKC_REPORT\"`",
        read,
    )
}

fn read(parsed: &mut ParsedLog, report: Report, line: usize) {
    let (mut total, mut passed, mut failed, mut bad) = (0, 0, 0, false);
    for file in report.test_results {
        if file.record_load_failure(parsed, &file.name) {
            bad = true;
            continue;
        }
        for test in file.assertion_results {
            let id = test.id(&file.name);
            total += 1;
            let outcome = match test.status.as_str() {
                "passed" => {
                    passed += 1;
                    Outcome::Passed
                }
                "failed" => {
                    failed += 1;
                    Outcome::Failed
                }
                "skipped" | "pending" | "todo" => Outcome::Skipped,
                other => {
                    parsed.warn(format!(
                        "{id}: unknown vitest status `{other}`, counted as an error"
                    ));
                    Outcome::Error
                }
            };
            bad |= matches!(outcome, Outcome::Failed | Outcome::Error);
            parsed.record(id, outcome);
        }
    }
    for (what, said, listed) in [
        ("numTotalTests", report.num_total_tests, total),
        ("numPassedTests", report.num_passed_tests, passed),
        ("numFailedTests", report.num_failed_tests, failed),
    ] {
        if said != listed {
            parsed.tampered(format!(
                "the vitest report at line {line} says {what} {said} but lists {listed}"
            ));
        }
    }
    if report.success == Some(true) && bad {
        parsed.tampered(format!(
            "the vitest report at line {line} says `success: true` but lists failures"
        ));
    }
}
