//! mocha's JSON reporter (`mocha --reporter json`, best with
//! `--reporter-option output=<file>` so that what tests print stays out of it).
//!
//! In a log, every line that starts with `{` is tried as a report; each object
//! with `stats`, `tests`, `passes`, `failures` and `pending` is read (mocha
//! prints its report after the tests ran, so `console.log` output comes before it).
//!
//! **Ids** are `<file>::<full title>`: the test file as mocha prints it (an
//! absolute path, made relative by the runtime with [`ParsedLog::strip_root`])
//! and `fullTitle` (the describe titles and the test's, joined by spaces, what
//! `mocha --grep` matches), e.g. `test/jar.test.js::CookieJar #parse accepts 1 as positive`.
//!
//! **Outcomes** come from the list a test is in: `passes` → passed, `failures`
//! → failed, `pending` (`it.skip`, a test without a body) → skipped. A failing
//! hook (`"before all" hook for "…"`) is listed in `failures` under the hook's
//! title: it is recorded as an error, and the tests it kept from running are
//! absent.
//!
//! **Complete** when a report was read whole. **Tampering**: `stats` whose
//! `passes`, `failures` or `pending` differ from the lengths of those lists.

use serde::Deserialize;

use super::json_reports::parse_reports;
use super::parsed_log::{Outcome, ParsedLog};

#[derive(Deserialize)]
struct Report {
    stats: Stats,
    passes: Vec<Test>,
    failures: Vec<Test>,
    pending: Vec<Test>,
}

#[derive(Deserialize)]
struct Stats {
    passes: usize,
    failures: usize,
    pending: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    #[serde(default)]
    full_title: String,
    #[serde(default)]
    file: Option<String>,
}

/// Parses a log or report file holding mocha JSON reports.
pub fn parse(log: &[u8]) -> ParsedLog {
    parse_reports(
        log,
        b"\"stats\"",
        "mocha",
        "no mocha JSON report (an object with `stats`, `passes`, `failures`, `pending`): \
             run mocha with `--reporter json`",
        read,
    )
}

fn read(parsed: &mut ParsedLog, report: Report, line: usize) {
    for (what, said, listed) in [
        ("passes", report.stats.passes, report.passes.len()),
        ("failures", report.stats.failures, report.failures.len()),
        ("pending", report.stats.pending, report.pending.len()),
    ] {
        if said != listed {
            parsed.tampered(format!(
                "the mocha report at line {line} counts {said} {what} but lists {listed}"
            ));
        }
    }
    let lists = [
        (report.passes, Outcome::Passed),
        (report.failures, Outcome::Failed),
        (report.pending, Outcome::Skipped),
    ];
    for (tests, outcome) in lists {
        for test in tests {
            let hook = test.full_title.contains("\" hook");
            let outcome = if hook && outcome == Outcome::Failed {
                Outcome::Error
            } else {
                outcome
            };
            let id = match test.file.as_deref().filter(|f| !f.is_empty()) {
                Some(file) => format!("{file}::{}", test.full_title),
                None => test.full_title,
            };
            parsed.record(id, outcome);
        }
    }
}
