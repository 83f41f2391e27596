//! Visual Studio's TRX report, written by `dotnet test --logger
//! "trx;LogFileName=$TASKC_REPORT"` (xUnit, NUnit and MSTest alike).
//!
//! A `<TestRun>` holds `<Results>` (one `<UnitTestResult testId testName outcome>` per
//! test run), `<TestDefinitions>` (each `<UnitTest id>`'s `<TestMethod className name>`)
//! and `<ResultSummary>` with its `<Counters>`.
//!
//! **Ids** are fully qualified names, what `dotnet test --filter FullyQualifiedName~`
//! matches: xUnit's `testName` already is one (`Jar.Tests.JarTest.Parses(text: "a b")`);
//! NUnit's and MSTest's (`Parses("a b")`) get their `className` in front
//! (`Jar.Tests.JarTest.Parses("a b")`). MSTest's data-driven rows (`<InnerResults>`) are
//! read through their parent result only.
//!
//! **Outcomes.** `Passed` (and `PassedButRunAborted`, `Warning`) → passed; `Failed` →
//! failed; `Error`, `Timeout`, `Aborted` → error; `NotExecuted`, `Inconclusive`,
//! `NotRunnable`, `Pending` and anything else → skipped.
//!
//! **Complete** when the `<TestRun>` ends and holds a `<ResultSummary>`; a report cut
//! off or broken is incomplete.
//!
//! **Tampering.** `<Counters>`' `total`, `passed` and `failed` must match the results
//! listed. The report path is in the tests' environment, so a test can rewrite the file:
//! it is trusted no more than the log.

use std::collections::HashMap;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::lines::line_number;
use super::parsed_log::{Outcome, ParsedLog};

/// One top-level `<UnitTestResult>`.
struct TrxResult {
    test_id: String,
    name: String,
    outcome: Outcome,
}

/// `<Counters>`' totals.
struct Counters {
    total: Option<usize>,
    passed: Option<usize>,
    failed: Option<usize>,
}

/// Parses a TRX report.
pub fn parse(report: &[u8]) -> ParsedLog {
    let text = String::from_utf8_lossy(report);
    let mut parsed = ParsedLog::new();
    let Some(start) = text.find("<TestRun") else {
        parsed.complete = false;
        parsed.warn(
            "no TRX report (`<TestRun>`): run `dotnet test --logger \"trx;LogFileName=$TASKC_REPORT\"`",
        );
        return parsed;
    };
    let mut reader = Reader::from_str(&text[start..]);
    reader.config_mut().check_end_names = true;
    let mut results: Vec<TrxResult> = Vec::new();
    let mut classes: HashMap<String, String> = HashMap::new();
    let mut counters: Option<Counters> = None;
    let mut depth_in_results = 0usize;
    let mut definition: Option<String> = None;
    let mut ended = false;
    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(err) => {
                let at = start + usize::try_from(reader.error_position()).unwrap_or(0);
                parsed.complete = false;
                parsed.warn(format!(
                    "TRX report broken at line {}: {err}",
                    line_number(text.as_bytes(), at)
                ));
                break;
            }
        };
        let (tag, empty) = match &event {
            Event::Start(tag) => (Some(tag), false),
            Event::Empty(tag) => (Some(tag), true),
            Event::End(tag) => {
                match tag.local_name().as_ref() {
                    b"UnitTestResult" => depth_in_results = depth_in_results.saturating_sub(1),
                    b"UnitTest" => definition = None,
                    b"TestRun" => {
                        ended = true;
                        break;
                    }
                    _ => {}
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let Some(tag) = tag else { continue };
        match tag.local_name().as_ref() {
            b"UnitTestResult" => {
                if depth_in_results == 0 {
                    results.push(TrxResult {
                        test_id: attr(tag, b"testId").unwrap_or_default(),
                        name: attr(tag, b"testName").unwrap_or_default(),
                        outcome: outcome(attr(tag, b"outcome").as_deref().unwrap_or("")),
                    });
                }
                if !empty {
                    depth_in_results += 1;
                }
            }
            b"UnitTest" if !empty => definition = attr(tag, b"id"),
            b"TestMethod" => {
                if let (Some(id), Some(class)) = (definition.clone(), attr(tag, b"className")) {
                    classes.insert(id, class);
                }
            }
            b"Counters" => {
                counters = Some(Counters {
                    total: count(tag, b"total"),
                    passed: count(tag, b"passed"),
                    failed: count(tag, b"failed"),
                });
            }
            _ => {}
        }
    }
    if !ended && parsed.complete {
        parsed.complete = false;
        parsed.warn("the TRX report is cut off (no `</TestRun>`): the run ended early");
    }
    let (mut passed, mut failed) = (0, 0);
    for r in &results {
        passed += usize::from(r.outcome == Outcome::Passed);
        failed += usize::from(r.outcome == Outcome::Failed);
        // xUnit's names are qualified already; NUnit's and MSTest's get their class.
        let class = classes.get(&r.test_id).map(String::as_str).unwrap_or("");
        let id = if class.is_empty() || r.name.starts_with(&format!("{class}.")) {
            r.name.clone()
        } else {
            format!("{class}.{}", r.name)
        };
        parsed.record(id, r.outcome);
    }
    match counters {
        None if ended => {
            parsed.complete = false;
            parsed.warn("the TRX report has no `<ResultSummary>` counters");
        }
        None => {}
        Some(c) => {
            for (what, said, listed) in [
                ("total", c.total, results.len()),
                ("passed", c.passed, passed),
                ("failed", c.failed, failed),
            ] {
                if let Some(said) = said.filter(|s| *s != listed) {
                    parsed.tampered(format!(
                        "the TRX counters say {what}=\"{said}\" but the report lists {listed}"
                    ));
                }
            }
        }
    }
    parsed.finish();
    parsed
}

fn outcome(word: &str) -> Outcome {
    match word {
        "Passed" | "PassedButRunAborted" | "Warning" => Outcome::Passed,
        "Failed" => Outcome::Failed,
        "Error" | "Timeout" | "Aborted" => Outcome::Error,
        _ => Outcome::Skipped,
    }
}

fn count(tag: &BytesStart<'_>, key: &[u8]) -> Option<usize> {
    attr(tag, key).and_then(|v| v.trim().parse().ok())
}

fn attr(tag: &BytesStart<'_>, key: &[u8]) -> Option<String> {
    tag.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .map(|a| match a.unescape_value() {
            Ok(value) => value.into_owned(),
            Err(_) => String::from_utf8_lossy(&a.value).into_owned(),
        })
}
