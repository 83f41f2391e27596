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
    for line in text.lines() {
        let trimmed = line.trim();
        if block.is_none() {
            // Outside a block only: tests may print such lines.
            if let Some(rest) = trimmed.strip_prefix("Running ") {
                target = running_source(rest);
                doc = false;
                continue;
            }
            if trimmed.starts_with("Doc-tests ") {
                target = None;
                doc = true;
                continue;
            }
        }
        if let Some(expected) = running_count(trimmed).filter(|_| block.is_none()) {
            block = Some(Block {
                target: target.clone(),
                doc,
                expected,
                seen: 0,
                results: true,
                pending: None,
                docs: Vec::new(),
            });
            continue;
        }
        if trimmed.starts_with("process didn't exit successfully") {
            close_block(&mut parsed, &mut block, true);
            continue;
        }
        let Some(open) = block.as_mut() else { continue };
        if trimmed.starts_with("test result: ") {
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
            if let Some(outcome) = libtest_status(trimmed) {
                open.seen += 1;
                open.result(&mut parsed, pending, outcome);
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
            Some(outcome) => {
                open.seen += 1;
                open.result(&mut parsed, name, outcome);
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

fn libtest_status(status: &str) -> Option<Outcome> {
    match status {
        "ok" => Some(Outcome::Passed),
        "FAILED" => Some(Outcome::Failed),
        s if s == "ignored" || s.starts_with("ignored, ") => Some(Outcome::Skipped),
        s if s.starts_with("bench:") => Some(Outcome::Passed),
        _ => None,
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
