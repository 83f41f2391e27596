//! php's `run-tests.php` (`php run-tests.php tests/`, `make test`, `pecl run-tests`): one
//! result line per `.phpt` test, then the summary (`TEST RESULT SUMMARY`, or with `-q` its
//! counts alone, from `Number of tests :`), then lists of the failed tests by kind (which
//! repeat names, not results).
//!
//! **Ids** are the test file as run-tests.php prints it in brackets (`tests/bug42.phpt`),
//! what it takes as arguments: `PASS Cookie jar parses "a=b" [tests/parse.phpt]`.
//!
//! **Outcomes** from the word that starts the line: `PASS` and `WARN` (passed with a
//! section warning) → passed; `SKIP` → skipped; `FAIL`, `LEAK`, `LEAK&FAIL`, `XFAIL` (the
//! test failed as expected: counted like pytest's XFAIL) and `XLEAK` → failed; `BORK` (the
//! test file is broken) → error. A progress line (`TEST 3/9 [x.phpt]\r`) is read after its
//! last carriage return; colours are stripped.
//!
//! **Complete** when the summary's `Tests passed` line was read.
//!
//! **Tampering.** The summary's `Tests passed`, `Tests failed`, `Tests skipped`,
//! `Tests warned`, `Expected fail` and `Tests borked` counts must match the result lines
//! (a `.phpt` test's output is captured by run-tests.php, but its code can write to the
//! runner's stdout, e.g. through `/proc/<ppid>/fd/1`); a result line after the summary is
//! tampered.

use super::ansi;
use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// The result words run-tests.php starts a line with, and what each counts as.
const WORDS: &[(&str, Outcome, Kind)] = &[
    ("PASS", Outcome::Passed, Kind::Passed),
    ("WARN", Outcome::Passed, Kind::Warned),
    ("SKIP", Outcome::Skipped, Kind::Skipped),
    ("FAIL", Outcome::Failed, Kind::Failed),
    ("LEAK&FAIL", Outcome::Failed, Kind::Failed),
    ("LEAK", Outcome::Failed, Kind::Leaked),
    ("XFAIL", Outcome::Failed, Kind::ExpectedFail),
    ("XLEAK", Outcome::Failed, Kind::Leaked),
    ("BORK", Outcome::Error, Kind::Borked),
];

/// The counts the summary states, in its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Passed,
    Warned,
    Skipped,
    Failed,
    Leaked,
    ExpectedFail,
    Borked,
}

const SUMMARY: &[(&str, Kind)] = &[
    ("Tests passed", Kind::Passed),
    ("Tests warned", Kind::Warned),
    ("Tests skipped", Kind::Skipped),
    ("Tests failed", Kind::Failed),
    ("Tests leaked", Kind::Leaked),
    ("Expected fail", Kind::ExpectedFail),
    ("Tests borked", Kind::Borked),
];

/// Parses run-tests.php's output.
pub fn parse(log: &[u8]) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut listed = [0usize; 7];
    let mut summary = false;
    let mut said: Vec<(Kind, usize)> = Vec::new();
    let mut passed_line = false;
    for (n, raw) in lines(log).enumerate() {
        let text = String::from_utf8_lossy(raw);
        let text = ansi::strip(&text);
        let line = text.rsplit('\r').next().unwrap_or("").trim_end();
        // The summary starts at its header, or (`-q` prints none) at its first count.
        if line == "TEST RESULT SUMMARY" || line.starts_with("Number of tests :") {
            summary = true;
            continue;
        }
        if summary {
            if let Some((kind, value)) = summary_count(line) {
                said.push((kind, value));
                passed_line |= kind == Kind::Passed;
                continue;
            }
        }
        let Some((outcome, kind, id)) = result(line) else {
            continue;
        };
        if summary {
            parsed.tampered(format!(
                "a run-tests.php result at line {} follows the summary: `{line}`",
                n + 1
            ));
            continue;
        }
        listed[kind as usize] += 1;
        parsed.record(id, outcome);
    }
    if !passed_line {
        parsed.complete = false;
        parsed.warn("no run-tests.php summary (`Tests passed : N`): the run ended early");
    }
    for (kind, value) in said {
        if listed[kind as usize] != value {
            let word = SUMMARY
                .iter()
                .find(|(_, k)| *k == kind)
                .map_or("?", |(w, _)| *w);
            parsed.tampered(format!(
                "run-tests.php's summary says `{word}: {value}` but the log lists {}",
                listed[kind as usize]
            ));
        }
    }
    parsed.finish();
    parsed
}

/// `PASS description [tests/x.phpt] extra` → (outcome, kind, `tests/x.phpt`).
fn result(line: &str) -> Option<(Outcome, Kind, String)> {
    let (word, rest) = line.split_once(' ')?;
    let (_, outcome, kind) = WORDS.iter().find(|(w, _, _)| *w == word)?;
    let end = rest.rfind(".phpt]")? + ".phpt".len();
    let open = rest[..end].rfind('[')?;
    let file = &rest[open + 1..end];
    (!file.is_empty()).then(|| (*outcome, *kind, file.to_string()))
}

/// `Tests failed    :    1 ( 20.0%) ( 25.0%)` → (Failed, 1).
fn summary_count(line: &str) -> Option<(Kind, usize)> {
    let (head, tail) = line.split_once(':')?;
    let (_, kind) = SUMMARY.iter().find(|(w, _)| *w == head.trim_end())?;
    let value = tail.split_whitespace().next()?.parse().ok()?;
    Some((*kind, value))
}
