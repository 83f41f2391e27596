//! rspec's JSON formatter (`rspec --format json --out <file>`, rspec 3).
//!
//! The report is one JSON object; text around it is ignored (when it is
//! written to stdout with the rest of the log), and each object with an
//! `examples` array and a `summary` is read.
//!
//! **Ids** are `<file>::<full description>`: the spec file without its leading
//! `./` and the example's `full_description` (the group descriptions and the
//! example's, joined by spaces, what `rspec -e` matches), e.g.
//! `spec/jar_spec.rb::CookieJar #parse when empty returns nil`. Two examples
//! with the same description in one file share an id (listed as duplicates).
//!
//! **Outcomes.** `passed` → passed, `failed` → failed (including a failing
//! `before(:context)` hook, which rspec reports on each example of its group,
//! and a `pending` example that passed), `pending` (pending, `skip`, `xit`) → skipped.
//!
//! **Complete** when a report was read whole and `errors_outside_of_examples_count`
//! is 0 (a spec file that failed to load stops rspec before any example runs).
//!
//! **Tampering**: a `summary` whose `example_count`, `failure_count` or
//! `pending_count` differs from the examples listed with those statuses.

use serde::Deserialize;

use super::json_reports::parse_reports;
use super::parsed_log::{Outcome, ParsedLog};

#[derive(Deserialize)]
struct Report {
    examples: Vec<Example>,
    summary: Summary,
}

#[derive(Deserialize)]
struct Example {
    #[serde(default)]
    full_description: String,
    #[serde(default)]
    file_path: String,
    #[serde(default)]
    status: String,
}

#[derive(Deserialize)]
struct Summary {
    example_count: usize,
    failure_count: usize,
    pending_count: usize,
    #[serde(default)]
    errors_outside_of_examples_count: usize,
}

/// Parses a log or report file holding rspec JSON reports.
pub fn parse(log: &[u8]) -> ParsedLog {
    parse_reports(
        log,
        b"\"examples\"",
        "rspec",
        "no rspec JSON report (an object with `examples` and `summary`): \
             run rspec with `--format json --out <file>`",
        read,
    )
}

fn read(parsed: &mut ParsedLog, report: Report, line: usize) {
    let (mut failed, mut pending) = (0, 0);
    for example in &report.examples {
        let outcome = match example.status.as_str() {
            "passed" => Outcome::Passed,
            "failed" => {
                failed += 1;
                Outcome::Failed
            }
            "pending" => {
                pending += 1;
                Outcome::Skipped
            }
            other => {
                parsed.warn(format!(
                    "{}: unknown rspec status `{other}`, counted as an error",
                    example.full_description
                ));
                Outcome::Error
            }
        };
        let file = example.file_path.trim_start_matches("./");
        parsed.record(format!("{file}::{}", example.full_description), outcome);
    }
    let summary = &report.summary;
    for (what, said, listed) in [
        (
            "example_count",
            summary.example_count,
            report.examples.len(),
        ),
        ("failure_count", summary.failure_count, failed),
        ("pending_count", summary.pending_count, pending),
    ] {
        if said != listed {
            parsed.tampered(format!(
                "the rspec report at line {line} has {what} {said} but lists {listed} such example(s)"
            ));
        }
    }
    if summary.errors_outside_of_examples_count > 0 {
        parsed.complete = false;
        parsed.warn(format!(
            "rspec reports {} error(s) outside of examples (a spec file that failed to load): \
             the run did not reach every example",
            summary.errors_outside_of_examples_count
        ));
    }
}
