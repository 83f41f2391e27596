//! Python's unittest with `-v` (`python -m unittest -v`), and Django's
//! `runtests.py` / `manage.py test` with `--verbosity 2`, which print the same lines.
//!
//! **Ids** are the dotted names unittest and Django select tests by:
//! `tests.test_jar.CookieJarTest.test_raises`. Python ≥ 3.11 prints
//! `test_raises (tests.test_jar.CookieJarTest.test_raises) ... ERROR`, older
//! versions `test_raises (tests.test_jar.CookieJarTest) ... ERROR`; both give
//! that id. A failing class or module fixture is `setUpClass
//! (tests.test_jar.BrokenSetUpTest)` → `tests.test_jar.BrokenSetUpTest.setUpClass`
//! (its tests did not run and are absent).
//!
//! **What is read.** A result is the test's header (`name (dotted)`), then
//! ` ... `, then its status at the *end* of the line (what the test wrote to
//! stderr without a newline comes before it); when the header line has no
//! status (a docstring's first line follows, or the test printed a newline),
//! the next line ending in a status closes it. A failing subtest prints an
//! indented line `  name (dotted) (n=-3) ... FAIL` and fails its test.
//!
//! **Outcomes.** `ok` → passed, `FAIL` → failed, `ERROR` → error,
//! `skipped '…'` → skipped, `expected failure` → failed (as pytest's XFAIL:
//! the body failed), `unexpected success` → passed.
//!
//! **Complete** when the log reaches `Ran N tests in …` followed by `OK…` or `FAILED (…)`.
//!
//! **Tampering**: a result line after that final line (what tests print to a
//! buffered stdout comes there, so a forged result line is caught), or counts
//! that disagree with the results read: `Ran N` against the tests (fixtures and
//! subtests excluded), and `failures=`, `errors=`, `skipped=`, `expected failures=`,
//! `unexpected successes=` against the status lines (subtest lines included).

use super::ansi;
use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// The status words, in the order they are tried at the end of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Fail,
    Error,
    Skipped,
    ExpectedFailure,
    UnexpectedSuccess,
}

impl Status {
    fn outcome(self) -> Outcome {
        match self {
            Status::Ok | Status::UnexpectedSuccess => Outcome::Passed,
            Status::Fail | Status::ExpectedFailure => Outcome::Failed,
            Status::Error => Outcome::Error,
            Status::Skipped => Outcome::Skipped,
        }
    }
}

/// One status line, counted for the final line's check.
#[derive(Default)]
struct Tally {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    expected_failures: usize,
    unexpected_successes: usize,
}

impl Tally {
    fn count(&mut self, status: Status) {
        match status {
            Status::Ok => {}
            Status::Fail => self.failures += 1,
            Status::Error => self.errors += 1,
            Status::Skipped => self.skipped += 1,
            Status::ExpectedFailure => self.expected_failures += 1,
            Status::UnexpectedSuccess => self.unexpected_successes += 1,
        }
    }
}

/// Parses a unittest (or Django test runner) log.
pub fn parse(log: &[u8]) -> ParsedLog {
    let text = String::from_utf8_lossy(log);
    let mut parsed = ParsedLog::new();
    let mut tally = Tally::default();
    let mut open: Option<(String, bool)> = None; // (id, is a fixture)
    let mut ran: Option<usize> = None;
    let mut finals = 0;
    let mut done = false;
    for raw in lines(text.as_bytes()) {
        let line = ansi::strip(&String::from_utf8_lossy(raw)).into_owned();
        if done {
            if header(line.trim_start()).is_some() && trailing_status(&line).is_some() {
                parsed.tampered(format!(
                    "a unittest result line after the final line: `{}`",
                    line.chars().take(120).collect::<String>()
                ));
            }
            if let Some(n) = ran_line(&line) {
                // Another run (a second command): start over.
                done = false;
                ran = Some(n);
                tally = Tally::default();
            }
            continue;
        }
        if let Some(n) = ran_line(&line) {
            ran = Some(n);
            open = None;
            continue;
        }
        if let Some(n) = ran {
            if let Some(counts) = final_line(&line) {
                finals += 1;
                check(&mut parsed, n, &tally, &counts);
                done = true;
                ran = None;
                tally = Tally::default();
            }
            continue;
        }
        let subtest = line.starts_with("  ");
        if let Some((id, fixture, rest)) = header(line.trim_start()) {
            match rest.and_then(trailing_status) {
                Some(status) => {
                    tally.count(status);
                    if !subtest && !fixture {
                        tally.tests += 1;
                    }
                    let outcome = if subtest && status == Status::Ok {
                        continue;
                    } else {
                        status.outcome()
                    };
                    parsed.record(id, outcome);
                    open = None;
                }
                None if subtest => {}
                None => {
                    if !fixture {
                        tally.tests += 1;
                    }
                    open = Some((id, fixture));
                }
            }
            continue;
        }
        if let Some((id, _)) = open.as_ref() {
            if let Some(status) = line
                .rsplit_once(" ... ")
                .map(|(_, s)| s)
                .or(Some(line.as_str()))
                .and_then(trailing_status)
            {
                tally.count(status);
                parsed.record(id.clone(), status.outcome());
                open = None;
            }
        }
    }
    if let Some((id, _)) = open {
        if !parsed.tests.contains_key(&id) {
            parsed.record(id, Outcome::Error);
        }
    }
    if finals == 0 || ran.is_some() || !done {
        parsed.complete = false;
        parsed.warn("no unittest final lines (`Ran N tests in …` then `OK` or `FAILED (…)`): the run ended early");
    }
    parsed.finish();
    parsed
}

/// `test_x (pkg.mod.Class.test_x)` or `test_x (pkg.mod.Class)`, optionally followed
/// by ` (subtest params)` and ` ... rest` → (id, is a fixture, rest after ` ... `).
fn header(line: &str) -> Option<(String, bool, Option<&str>)> {
    let (name, after) = line.split_once(" (")?;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let close = after.find(')')?;
    let dotted = &after[..close];
    if dotted.is_empty()
        || !dotted
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
    {
        return None;
    }
    let rest = &after[close + 1..];
    let rest = rest.split_once(" ... ").map(|(_, r)| r).or_else(|| {
        rest.strip_suffix(" ...")
            .map(|_| "")
            .or_else(|| rest.trim().is_empty().then_some(""))
    });
    let fixture = matches!(
        name,
        "setUpClass" | "tearDownClass" | "setUpModule" | "tearDownModule"
    );
    let id = if dotted.ends_with(&format!(".{name}")) {
        dotted.to_string()
    } else {
        format!("{dotted}.{name}")
    };
    Some((id, fixture, rest.filter(|r| !r.is_empty())))
}

/// The status at the end of `text` (`… half a line ok` → ok).
fn trailing_status(text: &str) -> Option<Status> {
    let text = text.trim_end();
    for (word, status) in [
        ("expected failure", Status::ExpectedFailure),
        ("unexpected success", Status::UnexpectedSuccess),
        ("ERROR", Status::Error),
        ("FAIL", Status::Fail),
        ("ok", Status::Ok),
    ] {
        if let Some(before) = text.strip_suffix(word) {
            if before.is_empty() || before.ends_with(' ') {
                return Some(status);
            }
        }
    }
    if text.ends_with('\'') {
        if let Some(at) = text.rfind("skipped '") {
            if at == 0 || text[..at].ends_with(' ') {
                return Some(Status::Skipped);
            }
        }
    }
    None
}

/// `Ran 9 tests in 0.001s` → 9.
fn ran_line(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("Ran ")?;
    let (n, rest) = rest.split_once(' ')?;
    if !(rest.starts_with("tests in ") || rest.starts_with("test in ")) {
        return None;
    }
    n.parse().ok()
}

/// `OK`, `OK (skipped=1)`, `FAILED (failures=2, errors=1)` → the counts.
fn final_line(line: &str) -> Option<Vec<(String, usize)>> {
    let rest = line
        .strip_prefix("OK")
        .or_else(|| line.strip_prefix("FAILED"))?;
    let rest = rest.trim();
    if rest.is_empty() {
        return Some(Vec::new());
    }
    let inner = rest.strip_prefix('(')?.strip_suffix(')')?;
    inner
        .split(", ")
        .map(|part| {
            let (key, n) = part.split_once('=')?;
            Some((key.to_string(), n.parse().ok()?))
        })
        .collect()
}

fn check(parsed: &mut ParsedLog, ran: usize, tally: &Tally, counts: &[(String, usize)]) {
    let said = |key: &str| counts.iter().find(|(k, _)| k == key).map_or(0, |(_, n)| *n);
    for (what, listed) in [
        ("tests run", tally.tests),
        ("failures", tally.failures),
        ("errors", tally.errors),
        ("skipped", tally.skipped),
        ("expected failures", tally.expected_failures),
        ("unexpected successes", tally.unexpected_successes),
    ] {
        let said = if what == "tests run" { ran } else { said(what) };
        if said != listed {
            parsed.tampered(format!(
                "unittest's final lines count {said} {what} but the log lists {listed}"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let (id, fixture, rest) = header("test_a (m.C.test_a) ... ok").unwrap();
        assert_eq!(
            (id.as_str(), fixture, rest),
            ("m.C.test_a", false, Some("ok"))
        );
        let (id, _, rest) = header("test_a (m.C)").unwrap();
        assert_eq!((id.as_str(), rest), ("m.C.test_a", None));
        assert!(header("setUpClass (m.C) ... ERROR").unwrap().1);
        assert!(header("Traceback (most recent call last):").is_none());
        assert_eq!(trailing_status("half a line ok"), Some(Status::Ok));
        assert_eq!(trailing_status("skipped 'no net'"), Some(Status::Skipped));
        assert_eq!(trailing_status("look"), None);
        assert_eq!(ran_line("Ran 1 test in 0.000s"), Some(1));
        assert_eq!(
            final_line("FAILED (failures=2, errors=1)"),
            Some(vec![("failures".into(), 2), ("errors".into(), 1)])
        );
        assert_eq!(final_line("OKAY"), None);
    }
}
