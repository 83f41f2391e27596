//! `cargo test` (libtest's human output) and `cargo nextest run`.
//!
//! **libtest ids.** `test parsers::tests::parses ... ok` under
//! `Running unittests src/lib.rs (target/…)` gives `src/lib.rs::parsers::tests::parses`;
//! under `Running tests/cli.rs (…)` the id is `tests/cli.rs::<name>`: the test
//! target's source path (relative to its package) joins the test path, so equal
//! names in two test binaries stay apart. Without a `Running <source> (…)` line
//! (old cargo, bare test binaries) the id is the test path alone. ` - should panic` is
//! dropped.
//!
//! **Doc-test ids carry no line number.** rustdoc names a doc-test
//! `src/lib.rs - Sender<T>::send (line 238)` (` - compile`, ` - compile fail` after it for
//! `no_run` and `compile_fail`): the line moves whenever a correct patch adds or removes a
//! doc line above it, so the id is `src/lib.rs - Sender<T>::send` — the file and the item.
//! Only when one item has several doc-tests are they told apart, by their order within the
//! item (by line): the first keeps the plain id, the next ones get ` #2`, ` #3`, …. The
//! crate's own documentation (`src/lib.rs - (line 3)`) is `src/lib.rs - (crate docs)`. Such
//! ordinal ids are stable under moved lines but not under an example added or removed
//! above them: `verify` notes them (see [`ordinal_doc_test`]).
//! `ok` → passed, `FAILED` → failed, `ignored` → skipped. Only result lines
//! between `running N tests` and the block's `failures:`/`successes:`/`test result:`
//! lines count, so output printed by tests is not read as results.
//!
//! **nextest ids.** `PASS [ 0.01s] my-crate::cli path::name` gives
//! `my-crate::cli::path::name` (nextest's binary id, then the test path).
//! PASS/LEAK/FLAKY → passed, FAIL/TIMEOUT/LEAK-FAIL → failed, SKIP → skipped,
//! SIGSEGV/SIGABRT/… and ABORT → error. The failure list repeated after
//! `Summary` is not counted twice. A log with nextest's `Starting N tests` line
//! is read as nextest only.
//!
//! **Counts.** A block's `test result: ok. P passed; F failed; I ignored; M measured` must
//! agree with the results it listed and with its `running N tests` when it ends the result
//! lines (no `failures:` section before it): a test that writes to the real stdout (a child
//! process is not captured by libtest) can print a whole forged block, ending the real one
//! early so that the real results land outside it — that is `tampered`, as is a result line
//! or `test result:` outside a block after a block so ended. After a `failures:` section a
//! failing test's captured output may hold such lines (cargo's own tests print them), so a
//! block ended there is not compared, and the real `test result:` after it is expected.
//!
//! **Complete** when every `running N tests` block reaches `test result:` (or the
//! test binary's crash is reported by cargo's `process didn't exit successfully`),
//! and every nextest `Starting` reaches its `Summary`. A log without any test
//! result (the tests did not compile) is complete, with a warning: the expected
//! tests count as missing; only an empty log is incomplete.

use super::ansi;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses a `cargo test` or `cargo nextest run` log.
pub fn parse(log: &[u8]) -> ParsedLog {
    let text = String::from_utf8_lossy(log);
    let stripped = ansi::strip(&text);
    let nextest = stripped.lines().any(|l| is_nextest_start(l.trim_start()));
    let mut parsed = if nextest {
        parse_nextest(&stripped)
    } else {
        parse_libtest(&stripped)
    };
    if stripped.trim().is_empty() {
        parsed.complete = false;
        parsed.warn("the log is empty: cargo printed nothing");
    } else if parsed.tests.is_empty() {
        // A compile error is a real outcome: every expected test is missing.
        parsed.warn("no test results: the tests did not build or no test binary ran");
    }
    parsed.finish();
    parsed
}

/// An open `running N tests` block of libtest.
struct Block {
    target: Option<String>,
    /// A `Doc-tests <crate>` block: its results are named when it closes.
    doc: bool,
    expected: usize,
    seen: usize,
    /// Still in the result lines (before `failures:` / `successes:`).
    results: bool,
    /// `test x ... ` whose status comes on a later line (output in between).
    pending: Option<String>,
    /// A doc block's results, as rustdoc named them.
    docs: Vec<(String, Outcome)>,
    /// The results listed so far, by libtest's status word.
    listed: Tally,
}

/// Results counted by libtest's status words (`ok`, `FAILED`, `ignored`, `bench:`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    passed: usize,
    failed: usize,
    ignored: usize,
    measured: usize,
}

impl Tally {
    fn add(&mut self, status: LibtestStatus) {
        match status {
            LibtestStatus::Ok => self.passed += 1,
            LibtestStatus::Failed => self.failed += 1,
            LibtestStatus::Ignored => self.ignored += 1,
            LibtestStatus::Bench => self.measured += 1,
        }
    }

    fn total(self) -> usize {
        self.passed + self.failed + self.ignored + self.measured
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} passed; {} failed; {} ignored; {} measured",
            self.passed, self.failed, self.ignored, self.measured
        )
    }
}

/// A libtest status word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LibtestStatus {
    Ok,
    Failed,
    Ignored,
    Bench,
}

impl LibtestStatus {
    fn outcome(self) -> Outcome {
        match self {
            LibtestStatus::Ok | LibtestStatus::Bench => Outcome::Passed,
            LibtestStatus::Failed => Outcome::Failed,
            LibtestStatus::Ignored => Outcome::Skipped,
        }
    }
}

/// `test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; …` →
/// (whether it says `ok`, the counts); none when the line is not libtest's.
fn test_result_line(line: &str) -> Option<(bool, Tally)> {
    let rest = line.strip_prefix("test result: ")?;
    let (word, counts) = rest.split_once(". ")?;
    let ok = match word {
        "ok" => true,
        "FAILED" => false,
        _ => return None,
    };
    let mut tally = Tally::default();
    let mut named = 0;
    for part in counts.split("; ") {
        let Some((n, what)) = part.split_once(' ') else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        let slot = match what {
            "passed" => &mut tally.passed,
            "failed" => &mut tally.failed,
            "ignored" => &mut tally.ignored,
            "measured" => &mut tally.measured,
            _ => continue,
        };
        *slot = n;
        named += 1;
    }
    (named == 4).then_some((ok, tally))
}

impl Block {
    /// Records the result of the test libtest named `name` (a doc block's when it closes).
    fn result(&mut self, parsed: &mut ParsedLog, name: String, outcome: Outcome) {
        if self.doc {
            self.docs.push((name, outcome));
            return;
        }
        let id = match &self.target {
            Some(target) => format!("{target}::{name}"),
            None => name,
        };
        parsed.record(id, outcome);
    }
}

/// `src/lib.rs - add (line 9) - compile` → (`src/lib.rs - add`, 9); none when the name is not
/// rustdoc's.
fn doc_test_name(name: &str) -> Option<(&str, u64)> {
    let at = name.rfind(" (line ")?;
    let (item, rest) = name.split_at(at);
    let rest = &rest[" (line ".len()..];
    let (line, after) = rest.split_once(')')?;
    let line: u64 = line.parse().ok()?;
    let after_ok = after.is_empty() || after.starts_with(" - ");
    (after_ok && (item.contains(" - ") || item.ends_with(" -"))).then_some((item, line))
}

/// The id of a doc-test item: `src/lib.rs - add`, and `src/lib.rs - (crate docs)` for the
/// crate's own documentation (rustdoc's `src/lib.rs - (line 3)`).
fn doc_item_id(item: &str) -> String {
    match item.strip_suffix(" -") {
        Some(file) => format!("{file} - (crate docs)"),
        None => item.to_string(),
    }
}

/// Names a doc block's results: the file and item, ordinals only where one item has several.
fn name_doc_tests(parsed: &mut ParsedLog, docs: Vec<(String, Outcome)>) {
    let mut items: std::collections::BTreeMap<String, Vec<(u64, Outcome)>> =
        std::collections::BTreeMap::new();
    for (name, outcome) in docs {
        match doc_test_name(&name) {
            Some((item, line)) => items
                .entry(doc_item_id(item))
                .or_default()
                .push((line, outcome)),
            None => parsed.record(name, outcome),
        }
    }
    for (item, mut tests) in items {
        tests.sort_by_key(|(line, _)| *line);
        for (i, (_, outcome)) in tests.into_iter().enumerate() {
            match i {
                0 => parsed.record(item.clone(), outcome),
                n => parsed.record(format!("{item} #{}", n + 1), outcome),
            }
        }
    }
}

/// Whether `id` is a doc-test id told apart from its item's other doc-tests by its order
/// only (`src/lib.rs - add #2`): it names another example once one is added or removed above
/// it. Returns the item's plain id.
pub fn ordinal_doc_test(id: &str) -> Option<&str> {
    let (item, n) = id.rsplit_once(" #")?;
    let numbered = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    (numbered && item.contains(".rs - ")).then_some(item)
}

fn parse_libtest(text: &str) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut target: Option<String> = None;
    let mut block: Option<Block> = None;
    let mut doc = false;
    let mut ended = Ended::Not;
    for line in text.lines() {
        let trimmed = line.trim();
        if block.is_none() {
            // Outside a block only: tests may print such lines.
            if let Some(rest) = trimmed.strip_prefix("Running ") {
                target = running_source(rest);
                doc = false;
                ended = Ended::Not;
                continue;
            }
            if trimmed.starts_with("Doc-tests ") {
                target = None;
                doc = true;
                ended = Ended::Not;
                continue;
            }
            if ended == Ended::InResults && is_result_line(line) {
                parsed.tampered(format!(
                    "a result after its block's `test result:` line, outside any `running N tests` block: `{}` (a test printed a forged block)",
                    shorten(trimmed)
                ));
                continue;
            }
        }
        if let Some(expected) = running_count(trimmed).filter(|_| block.is_none()) {
            ended = Ended::Not;
            block = Some(Block {
                target: target.clone(),
                doc,
                expected,
                seen: 0,
                results: true,
                pending: None,
                docs: Vec::new(),
                listed: Tally::default(),
            });
            continue;
        }
        if trimmed.starts_with("process didn't exit successfully") {
            close_block(&mut parsed, &mut block, true);
            ended = Ended::Not;
            continue;
        }
        let Some(open) = block.as_mut() else { continue };
        if trimmed.starts_with("test result: ") {
            ended = if open.results {
                check_counts(&mut parsed, open, trimmed);
                Ended::InResults
            } else {
                Ended::AfterFailures
            };
            close_block(&mut parsed, &mut block, true);
            continue;
        }
        if !open.results {
            continue;
        }
        if trimmed == "failures:" || trimmed == "successes:" {
            open.results = false;
            continue;
        }
        if let Some(pending) = open.pending.take() {
            if let Some(status) = libtest_status(trimmed) {
                open.seen += 1;
                open.listed.add(status);
                open.result(&mut parsed, pending, status.outcome());
                continue;
            }
            open.pending = Some(pending);
        }
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, status)) = rest.split_once(" ... ") else {
            continue;
        };
        let name = name
            .strip_suffix(" - should panic")
            .unwrap_or(name)
            .to_string();
        match libtest_status(status.trim()) {
            Some(status) => {
                open.seen += 1;
                open.listed.add(status);
                open.result(&mut parsed, name, status.outcome());
            }
            None => open.pending = Some(name),
        }
    }
    close_block(&mut parsed, &mut block, false);
    parsed
}

/// Ends the open block; `finished` when libtest or cargo said it ended.
fn close_block(parsed: &mut ParsedLog, block: &mut Option<Block>, finished: bool) {
    let Some(mut open) = block.take() else { return };
    if let Some(pending) = open.pending.take() {
        let shown = match &open.target {
            Some(target) => format!("{target}::{pending}"),
            None => pending.clone(),
        };
        parsed.warn(format!(
            "{shown} started but printed no result: counted as an error"
        ));
        open.result(parsed, pending, Outcome::Error);
    }
    name_doc_tests(parsed, std::mem::take(&mut open.docs));
    let name = match (&open.target, open.doc) {
        (Some(target), _) => target.as_str(),
        (None, true) => "the doc-tests",
        (None, false) => "a test binary",
    };
    if !finished {
        parsed.complete = false;
        parsed.warn(format!(
            "{name} reported {} of {} tests and no `test result:` line: the run ended early",
            open.seen, open.expected
        ));
    } else if open.seen < open.expected {
        parsed.warn(format!(
            "{name} reported {} of {} tests before it stopped",
            open.seen, open.expected
        ));
    }
}

/// `unittests src/lib.rs (target/debug/deps/x-1a2b)` → `src/lib.rs`;
/// `target/debug/deps/x-1a2b` (old cargo) → none.
fn running_source(rest: &str) -> Option<String> {
    let rest = rest.strip_prefix("unittests ").unwrap_or(rest);
    let (source, binary) = rest.split_once(" (")?;
    binary.ends_with(')').then(|| source.trim().to_string())
}

/// `running 3 tests` / `running 1 test` → 3 / 1.
fn running_count(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("running ")?;
    let (count, word) = rest.split_once(' ')?;
    matches!(word, "test" | "tests").then_some(())?;
    count.parse().ok()
}

fn libtest_status(status: &str) -> Option<LibtestStatus> {
    match status {
        "ok" => Some(LibtestStatus::Ok),
        "FAILED" => Some(LibtestStatus::Failed),
        s if s == "ignored" || s.starts_with("ignored, ") => Some(LibtestStatus::Ignored),
        s if s.starts_with("bench:") => Some(LibtestStatus::Bench),
        _ => None,
    }
}

/// How the last libtest block ended, for the lines that follow it outside any block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// No block yet, or a new binary started, or the binary crashed.
    Not,
    /// Its `test result:` line came while results were still listed: the block's real end,
    /// so a result or `test result:` line after it is forged.
    InResults,
    /// Its `test result:` line came after a `failures:` section, where captured output may
    /// hold such a line: the real one may still follow.
    AfterFailures,
}

/// `test x ... ok` (any status word) or `test result: …` at the start of a line.
fn is_result_line(line: &str) -> bool {
    let trimmed = line.trim();
    if test_result_line(trimmed).is_some() {
        return true;
    }
    line.strip_prefix("test ")
        .and_then(|rest| rest.rsplit_once(" ... "))
        .is_some_and(|(_, status)| libtest_status(status.trim()).is_some())
}

/// Compares a block's `test result:` counts with the results it listed and its
/// `running N tests`; a difference is a forged block.
fn check_counts(parsed: &mut ParsedLog, open: &Block, line: &str) {
    let Some((ok, said)) = test_result_line(line) else {
        return;
    };
    let name = open.target.as_deref().unwrap_or(if open.doc {
        "the doc-tests"
    } else {
        "a test binary"
    });
    if said != open.listed || open.listed.total() != open.expected || open.pending.is_some() {
        parsed.tampered(format!(
            "{name}: `test result:` says {said} but the block listed {} of `running {}` ({})",
            open.listed.total(),
            open.expected,
            open.listed
        ));
    } else if ok != (said.failed == 0) {
        parsed.tampered(format!(
            "{name}: `test result: {}` with {} failed",
            if ok { "ok" } else { "FAILED" },
            said.failed
        ));
    }
}

/// At most 120 characters of a log line, for evidence.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// nextest's `Starting 12 tests across 3 binaries` line.
fn is_nextest_start(line: &str) -> bool {
    line.strip_prefix("Starting ")
        .is_some_and(|rest| rest.contains(" across ") && rest.contains("test"))
}

fn parse_nextest(text: &str) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut running = false;
    let mut retried: Vec<(String, Outcome)> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if is_nextest_start(trimmed) {
            if running {
                parsed.complete = false;
                parsed.warn("a nextest run printed no `Summary` line before the next run started");
            }
            running = true;
            continue;
        }
        if !running {
            continue;
        }
        if trimmed.starts_with("Summary [") {
            running = false;
            continue;
        }
        if let Some((id, outcome, is_retry)) = nextest_result(trimmed) {
            if is_retry {
                // `TRY 2 FAIL`: only the last attempt counts.
                retried.retain(|(old, _)| *old != id);
                retried.push((id, outcome));
            } else {
                retried.retain(|(old, _)| *old != id);
                parsed.record(id, outcome);
            }
        }
    }
    for (id, outcome) in retried {
        if !parsed.tests.contains_key(&id) {
            parsed.record(id, outcome);
        }
    }
    if running {
        parsed.complete = false;
        parsed.warn("nextest printed no `Summary` line: the run ended early");
    }
    parsed
}

/// `PASS [   0.004s] (1/3) my-crate::cli path::name` → id, outcome, is a retry.
fn nextest_result(line: &str) -> Option<(String, Outcome, bool)> {
    let (mut status, mut rest) = line.split_once(' ')?;
    let mut retry = false;
    if status == "TRY" {
        let (_, after) = rest.trim_start().split_once(' ')?;
        (status, rest) = after.trim_start().split_once(' ')?;
        retry = true;
    } else if status == "FLAKY" {
        let (_, after) = rest.trim_start().split_once(' ')?;
        rest = after;
    }
    let outcome = nextest_status(status)?;
    let rest = rest.trim_start().strip_prefix('[')?;
    let (_, rest) = rest.split_once(']')?;
    let mut rest = rest.trim_start();
    if rest.starts_with('(') {
        rest = rest.split_once(')')?.1.trim_start();
    }
    let (binary, name) = rest.split_once(' ')?;
    let name = name.trim();
    if binary.is_empty() || name.is_empty() {
        return None;
    }
    Some((format!("{binary}::{name}"), outcome, retry))
}

fn nextest_status(status: &str) -> Option<Outcome> {
    match status {
        "PASS" | "LEAK" | "FLAKY" => Some(Outcome::Passed),
        "FAIL" | "TIMEOUT" | "LEAK-FAIL" => Some(Outcome::Failed),
        "SKIP" => Some(Outcome::Skipped),
        "ABORT" => Some(Outcome::Error),
        s if s.len() > 3 && s.starts_with("SIG") && s.bytes().all(|b| b.is_ascii_uppercase()) => {
            Some(Outcome::Error)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nextest_lines() {
        assert_eq!(
            nextest_result("PASS [   0.004s] (1/3) my-crate::cli path::name"),
            Some(("my-crate::cli::path::name".into(), Outcome::Passed, false))
        );
        assert_eq!(
            nextest_result("SIGSEGV [   0.1s] c t"),
            Some(("c::t".into(), Outcome::Error, false))
        );
        assert_eq!(
            nextest_result("TRY 2 FAIL [   0.1s] c t"),
            Some(("c::t".into(), Outcome::Failed, true))
        );
        assert_eq!(nextest_result("PASS the salt"), None);
    }

    #[test]
    fn doc_test_names() {
        assert_eq!(
            doc_test_name("src/lib.rs - Sender<T>::send (line 238)"),
            Some(("src/lib.rs - Sender<T>::send", 238))
        );
        assert_eq!(
            doc_test_name("src/lib.rs - Queue<T>::push (line 42) - compile fail"),
            Some(("src/lib.rs - Queue<T>::push", 42))
        );
        assert_eq!(
            doc_test_name("src/lib.rs - (line 3)"),
            Some(("src/lib.rs -", 3))
        );
        assert_eq!(doc_item_id("src/lib.rs -"), "src/lib.rs - (crate docs)");
        assert_eq!(doc_test_name("tests::adds"), None);
        assert_eq!(doc_test_name("src/lib.rs - f (line x)"), None);
        assert_eq!(
            ordinal_doc_test("src/lib.rs - add #2"),
            Some("src/lib.rs - add")
        );
        assert_eq!(ordinal_doc_test("tests::issue #2"), None);
        assert_eq!(ordinal_doc_test("src/lib.rs - add"), None);
    }

    #[test]
    fn running_lines() {
        assert_eq!(running_count("running 3 tests"), Some(3));
        assert_eq!(running_count("running late"), None);
        assert_eq!(
            running_source("unittests src/lib.rs (target/debug/deps/x-1)"),
            Some("src/lib.rs".into())
        );
        assert_eq!(running_source("target/debug/deps/x-1"), None);
    }
}
