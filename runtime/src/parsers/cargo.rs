//! `cargo test` (libtest's human output) and `cargo nextest run`.
//!
//! **libtest ids.** `test parsers::tests::parses ... ok` under
//! `Running unittests src/lib.rs (target/…)` gives `src/lib.rs::parsers::tests::parses`;
//! under `Running tests/cli.rs (…)` the id is `tests/cli.rs::<name>`: the test
//! target's source path (relative to its package) joins the test path, so equal
//! names in two test binaries stay apart. Without a `Running <source> (…)` line
//! (old cargo, doc tests, bare test binaries) the id is the test path alone;
//! doc tests already read `src/lib.rs - add (line 3)`. ` - should panic` is dropped.
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
    expected: usize,
    seen: usize,
    /// Still in the result lines (before `failures:` / `successes:`).
    results: bool,
    /// `test x ... ` whose status comes on a later line (output in between).
    pending: Option<String>,
}

fn parse_libtest(text: &str) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut target: Option<String> = None;
    let mut block: Option<Block> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if block.is_none() {
            // Outside a block only: tests may print such lines.
            if let Some(rest) = trimmed.strip_prefix("Running ") {
                target = running_source(rest);
                continue;
            }
            if trimmed.starts_with("Doc-tests ") {
                target = None;
                continue;
            }
        }
        if let Some(expected) = running_count(trimmed).filter(|_| block.is_none()) {
            block = Some(Block {
                target: target.clone(),
                expected,
                seen: 0,
                results: true,
                pending: None,
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
                parsed.record(pending, outcome);
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
        let name = name.strip_suffix(" - should panic").unwrap_or(name);
        let id = match &open.target {
            Some(target) => format!("{target}::{name}"),
            None => name.to_string(),
        };
        match libtest_status(status.trim()) {
            Some(outcome) => {
                open.seen += 1;
                parsed.record(id, outcome);
            }
            None => open.pending = Some(id),
        }
    }
    close_block(&mut parsed, &mut block, false);
    parsed
}

/// Ends the open block; `finished` when libtest or cargo said it ended.
fn close_block(parsed: &mut ParsedLog, block: &mut Option<Block>, finished: bool) {
    let Some(open) = block.take() else { return };
    let name = open.target.as_deref().unwrap_or("a test binary");
    if let Some(pending) = open.pending {
        parsed.warn(format!(
            "{pending} started but printed no result: counted as an error"
        ));
        parsed.record(pending, Outcome::Error);
    }
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
