//! `jest --json` (and vitest's `--reporter=json`, which writes the same shape).
//!
//! The log may hold other text (shell traces, console output on stderr); every
//! line that starts with `{` is tried as the start of a report, and each
//! object with a `testResults` array is read (a command may run jest twice).
//!
//! **Ids** are `<file>::<ancestor> > <ancestor> > <title>` from
//! `testResults[].name` and `assertionResults[].ancestorTitles` / `title`, e.g.
//! `/repo/src/jar.test.js::cookie jar > set > stores one cookie`. Jest prints
//! absolute file paths: the runtime makes them relative with
//! [`ParsedLog::strip_root`] and the repository's folder in the container.
//!
//! **Outcomes.** `passed`/`focused` → passed, `failed` → failed,
//! `pending`/`skipped`/`disabled`/`todo` → skipped. A test file that failed to
//! run (syntax error, failing import: no assertion results and a message) is
//! recorded under the file alone as error.
//!
//! **Complete** when a report was read to its end and `wasInterrupted` is not
//! true. A report that is cut off makes the log incomplete; one that is broken
//! in its middle is a [`ParserError::Malformed`].

use serde::Deserialize;

use super::lines::line_number;
use super::parsed_log::{Outcome, ParsedLog};
use super::ParserError;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    test_results: Option<Vec<Suite>>,
    #[serde(default)]
    was_interrupted: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Suite {
    #[serde(default)]
    pub(super) name: String,
    #[serde(default)]
    test_file_path: Option<String>,
    #[serde(default)]
    pub(super) status: String,
    #[serde(default)]
    pub(super) message: String,
    #[serde(default)]
    pub(super) assertion_results: Vec<Assertion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Assertion {
    #[serde(default)]
    ancestor_titles: Vec<String>,
    #[serde(default)]
    title: String,
    #[serde(default)]
    pub(super) status: String,
}

impl Suite {
    /// A test file that failed to load (no assertion results, status `failed`): warned
    /// about and recorded under the file alone as an error. True when it was one.
    pub(super) fn record_load_failure(&self, parsed: &mut ParsedLog, file: &str) -> bool {
        if !(self.assertion_results.is_empty() && self.status == "failed") {
            return false;
        }
        let first = self
            .message
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        parsed.warn(format!("{file} failed to run: {}", first.trim()));
        parsed.record(file.to_string(), Outcome::Error);
        true
    }
}

impl Assertion {
    /// `<file>::<describe> > … > <title>`, the id jest and vitest reports share.
    pub(super) fn id(&self, file: &str) -> String {
        let mut id = format!("{file}::");
        for ancestor in &self.ancestor_titles {
            id.push_str(ancestor);
            id.push_str(" > ");
        }
        id.push_str(&self.title);
        id
    }
}

/// Parses a log holding one or more jest JSON reports.
pub fn parse(log: &[u8]) -> Result<ParsedLog, ParserError> {
    let mut parsed = ParsedLog::new();
    let mut reports = 0;
    let mut pos = 0;
    while let Some(start) = next_object_line(log, pos) {
        let mut stream = serde_json::Deserializer::from_slice(&log[start..]).into_iter::<Report>();
        match stream.next() {
            Some(Ok(Report {
                test_results: Some(suites),
                was_interrupted,
            })) => {
                reports += 1;
                read_report(&mut parsed, suites);
                if was_interrupted {
                    parsed.complete = false;
                    parsed.warn("jest reports `wasInterrupted: true`: the run was stopped early");
                }
                pos = start + stream.byte_offset();
            }
            Some(Err(err)) if err.is_eof() && mentions_test_results(&log[start..]) => {
                parsed.complete = false;
                parsed.warn(format!(
                    "the jest report starting at line {} is cut off: the run ended early",
                    line_number(log, start)
                ));
                break;
            }
            Some(Err(err)) if err.is_syntax() && starts_like_report(&log[start..]) => {
                return Err(ParserError::Malformed {
                    parser: "jest-json",
                    line: line_number(log, start) + err.line().saturating_sub(1),
                    message: err.to_string(),
                });
            }
            _ => pos = start + 1,
        }
    }
    if reports == 0 && parsed.complete {
        parsed.complete = false;
        parsed.warn(
            "no jest JSON report (an object with `testResults`) in the log: \
             run jest with `--json` and keep its stdout in the log",
        );
    }
    parsed.finish();
    Ok(parsed)
}

fn read_report(parsed: &mut ParsedLog, suites: Vec<Suite>) {
    for mut suite in suites {
        let file = if suite.name.is_empty() {
            suite.test_file_path.take().unwrap_or_default()
        } else {
            std::mem::take(&mut suite.name)
        };
        if suite.record_load_failure(parsed, &file) {
            continue;
        }
        for test in suite.assertion_results {
            let id = test.id(&file);
            let outcome = match test.status.as_str() {
                "passed" | "focused" => Outcome::Passed,
                "failed" => Outcome::Failed,
                "pending" | "skipped" | "disabled" | "todo" => Outcome::Skipped,
                other => {
                    parsed.warn(format!(
                        "{id}: unknown jest status `{other}`, counted as an error"
                    ));
                    Outcome::Error
                }
            };
            parsed.record(id, outcome);
        }
    }
}

/// The next offset at or after `from` where a line starts with `{`.
fn next_object_line(log: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let brace = at + memchr::memchr(b'{', log.get(at..)?)?;
        if brace == 0 || log[brace - 1] == b'\n' {
            return Some(brace);
        }
        at = brace + 1;
    }
}

fn mentions_test_results(text: &[u8]) -> bool {
    memchr::memmem::find(text, b"\"testResults\"").is_some()
}

/// A jest report begins with one of its counters.
fn starts_like_report(text: &[u8]) -> bool {
    let head = &text[..text.len().min(64)];
    memchr::memmem::find(head, b"\"num").is_some()
}
