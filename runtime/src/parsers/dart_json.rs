//! The JSON event protocol of `dart test --reporter json` and `flutter test --machine`:
//! one JSON object per line (`suite`, `group`, `testStart`, `testDone`, `print`, `error`,
//! `done`…). Lines that are not such events (flutter's own output) are ignored.
//!
//! **Ids** are `<suite path>::<test name>` (`test/jar_test.dart::cookie jar parses "a=b"`):
//! dart's test name is its groups' names and its own, joined by spaces (what
//! `--plain-name` matches). dart's `loading <file>` pseudo-test is hidden when the file
//! loads and is not recorded; a file that fails to load shows it, failed or erroring
//! (`test/x_test.dart::loading test/x_test.dart`), and it is recorded so.
//!
//! **Outcomes** from `testDone`: `success` → passed (skipped when `skipped` is true);
//! `failure` → failed; `error` → error.
//!
//! **Complete** when the `done` event was read and every started test is done.
//!
//! **Tampering.** dart runs tests in the runner's own process, so a test can write
//! events to stdout. An event after `done`, a `testDone` for a test never started or
//! done twice, two `testStart`s with one id, or a `done` with `success: true` when a test
//! failed are tampered; so is a suite whose root group's `testCount` differs from the
//! visible tests started in it.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Event {
    Suite {
        suite: Suite,
    },
    Group {
        group: Group,
    },
    TestStart {
        test: Test,
    },
    #[serde(rename_all = "camelCase")]
    TestDone {
        #[serde(rename = "testID")]
        test_id: i64,
        result: String,
        #[serde(default)]
        skipped: bool,
        #[serde(default)]
        hidden: bool,
    },
    Done {
        #[serde(default)]
        success: Option<bool>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct Suite {
    id: i64,
    #[serde(default)]
    path: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Group {
    #[serde(rename = "suiteID")]
    suite_id: i64,
    #[serde(rename = "parentID", default)]
    parent_id: Option<i64>,
    #[serde(default)]
    test_count: Option<usize>,
}

#[derive(Deserialize)]
struct Test {
    id: i64,
    #[serde(default)]
    name: String,
    #[serde(rename = "suiteID")]
    suite_id: i64,
}

/// A started test.
struct Started {
    id: String,
    suite: i64,
    done: bool,
}

/// Parses a log of dart's (or flutter's) JSON reporter.
pub fn parse(log: &[u8]) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut suites: HashMap<i64, String> = HashMap::new();
    let mut declared: BTreeMap<i64, usize> = BTreeMap::new();
    let mut visible: BTreeMap<i64, usize> = BTreeMap::new();
    let mut started: HashMap<i64, Started> = HashMap::new();
    let mut done = false;
    let mut bad = false;
    let mut events = 0usize;
    for (n, line) in lines(log).enumerate() {
        let line = line.trim_ascii();
        if !line.starts_with(b"{") {
            continue;
        }
        let Ok(event) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        events += 1;
        if done && !matches!(event, Event::Other) {
            parsed.tampered(format!(
                "a dart test event at line {} follows `done`",
                n + 1
            ));
            continue;
        }
        match event {
            Event::Suite { suite } => {
                suites.insert(suite.id, suite.path.unwrap_or_default());
            }
            Event::Group { group } => {
                if group.parent_id.is_none() {
                    if let Some(count) = group.test_count {
                        *declared.entry(group.suite_id).or_default() += count;
                    }
                }
            }
            Event::TestStart { test } => {
                let file = suites.get(&test.suite_id).cloned().unwrap_or_default();
                let id = if file.is_empty() {
                    test.name
                } else {
                    format!("{file}::{}", test.name)
                };
                let again = started.insert(
                    test.id,
                    Started {
                        id,
                        suite: test.suite_id,
                        done: false,
                    },
                );
                if again.is_some() {
                    parsed.tampered(format!(
                        "dart test id {} is started twice (line {})",
                        test.id,
                        n + 1
                    ));
                }
            }
            Event::TestDone {
                test_id,
                result,
                skipped,
                hidden,
            } => {
                let Some(test) = started.get_mut(&test_id) else {
                    parsed.tampered(format!(
                        "`testDone` for dart test id {test_id}, never started (line {})",
                        n + 1
                    ));
                    continue;
                };
                if test.done {
                    parsed.tampered(format!(
                        "dart test `{}` is done twice (line {})",
                        test.id,
                        n + 1
                    ));
                    continue;
                }
                test.done = true;
                let outcome = match (result.as_str(), skipped) {
                    ("success", true) => Outcome::Skipped,
                    ("success", false) => Outcome::Passed,
                    ("failure", _) => Outcome::Failed,
                    _ => Outcome::Error,
                };
                bad |= matches!(outcome, Outcome::Failed | Outcome::Error);
                if hidden {
                    if outcome.is_pass() || outcome == Outcome::Skipped {
                        continue;
                    }
                    let file = suites.get(&test.suite).cloned().unwrap_or_default();
                    parsed.warn(format!("{file} failed to load: `{}`", test.id));
                    parsed.record(file, Outcome::Error);
                    continue;
                }
                *visible.entry(test.suite).or_default() += 1;
                parsed.record(test.id.clone(), outcome);
            }
            Event::Done { success } => {
                done = true;
                if success == Some(true) && bad {
                    parsed.tampered(format!(
                        "dart's `done` at line {} says success but a test failed",
                        n + 1
                    ));
                }
            }
            Event::Other => {}
        }
    }
    for (suite, count) in &declared {
        let seen = visible.get(suite).copied().unwrap_or(0);
        if done && seen != *count {
            let file = suites.get(suite).map(String::as_str).unwrap_or("?");
            parsed.tampered(format!(
                "dart suite `{file}` declares {count} test(s) but {seen} ran"
            ));
        }
    }
    let unfinished = started.values().filter(|t| !t.done).count();
    if events == 0 {
        parsed.complete = false;
        parsed.warn(
            "no dart test events in the log: run `dart test --reporter json` or `flutter test --machine`",
        );
    } else if !done || unfinished > 0 {
        parsed.complete = false;
        parsed.warn(format!(
            "the dart run has no `done` event or {unfinished} unfinished test(s): it ended early"
        ));
    }
    parsed.finish();
    parsed
}
