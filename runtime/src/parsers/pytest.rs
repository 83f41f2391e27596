//! pytest's terminal output, run with `-rA` (preferably) or `-v`.
//!
//! **Ids** are pytest node ids as printed: `tests/test_x.py::test_name`,
//! `tests/test_x.py::TestClass::test_name`, `tests/test_x.py::test_p[a b-1]`
//! (parameters may hold spaces and brackets), or a bare `tests/test_x.py` for a
//! collection error.
//!
//! **What is trusted.** The log is split into sessions at each
//! `=== test session starts ===` header (a run command may call pytest twice);
//! a header that comes before the current session's final line opens a nested
//! run printed by a test (pytester), whose lines are all ignored. In each session only the lines of the *last* `=== short test summary info ===`
//! section are read, up to the final `=== N passed, M failed in 1.2s ===` line, so
//! lines that tests print (which pytest shows earlier, under "Captured stdout")
//! are never taken for results. A session without a summary section falls back
//! to `-v` lines (`path::name PASSED [ 10%]` or xdist's `[gw0] [ 10%] PASSED path::name`),
//! read only in the progress part of the session (before its first `=== … ===` banner);
//! with `-v` and a summary of failures only (pytest's default `-rfE`), `-v` lines add
//! the tests the summary does not list.
//!
//! **Outcomes** are what the test body did: `PASSED` and `XPASS` → passed; `FAILED` and
//! `XFAIL` → failed (an xfail marker says the failure was expected, not that the test
//! passes: marking every test xfail must not pass a task; a strict xpass is printed as
//! `FAILED`); `ERROR` → error; `SKIPPED id` → skipped. `SKIPPED [N] file:line: reason`
//! lines name no test and are ignored. Colours (ANSI codes) are removed first.
//!
//! **Complete** when the log holds a session and every session reaches its
//! final summary line. A crash that leaves a session without it (and a
//! following session, which then reads as nested) makes the log incomplete.
//!
//! **Tampering** (`ParsedLog::tampering`; the run becomes `tampered`): pytest prints
//! nothing after its final line but another session's header, so a result line, a summary
//! header or another final line there is forged (an `atexit` handler, a library printing
//! at exit); and a final line whose counts disagree with the results its summary section
//! lists (for each of passed, failed, error, skipped, xfailed, xpassed that the section
//! lists at all: the section of `-rA` lists every test, that of `-rfE` failures and errors)
//! means the summary was rewritten; and a final line that accounts for fewer tests than the
//! session's `collected N items` line selected (`N` minus `/ M deselected`, or `/ K
//! selected`) while the session did not stop early (no `!!! … !!!` banner such as `stopping
//! after 1 failures`, `Interrupted: 1 error during collection`, `KeyboardInterrupt`,
//! `_pytest.outcomes.Exit` after its last `===` banner): every selected item ends in at least one
//! of passed, failed, error, skipped, xfailed or xpassed, so tests fewer than that were
//! dropped from the results (a plugin running a failing test without reporting it).
//! pytest ≥ 9's `SUBFAILED(…) id` lines (a failed subtest, which pytest 9.2 counts as
//! `failed` on the final line) are never results; the failures they add are allowed for.
//!
//! **Speed.** A log with one session and a summary holding passes is read from
//! its last summary header on (memchr/memmem searches, ids kept as ranges of
//! the log, radix-sorted): several hundred MB/s; other logs take the full
//! line-by-line pass, which gives the same result (a unit test checks both).

use std::collections::HashSet;

use memchr::memmem;

use super::ansi;
use super::id_batch::IdBatch;
use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses a pytest log.
pub fn parse(log: &[u8]) -> ParsedLog {
    fast_path(log).unwrap_or_else(|| full_scan(log))
}

/// Every line, in order: handles nested and repeated sessions and `-v` logs.
fn full_scan(log: &[u8]) -> ParsedLog {
    let mut state = State::new(log);
    feed(&mut state, log);
    state.end_of_log()
}

/// The common case, one session with a summary section: start reading at the
/// last `short test summary info` header and skip everything before it (the
/// full scan would ignore it too). `None` when the log needs the full scan:
/// several session headers (a second run, or pytester output), no summary,
/// a summary without passes (it may be `-v` with pytest's default `-rfE`), or
/// a final line before that header or more than one (a forged block after the real
/// final line: the full scan reports it).
fn fast_path(log: &[u8]) -> Option<ParsedLog> {
    let mut headers = 0;
    let mut header_end = 0;
    for hit in memmem::find_iter(log, b"test session starts") {
        let (start, end) = line_around(log, hit);
        if is_banner(&log[start..end], b"test session starts") {
            headers += 1;
            header_end = end;
            if headers > 1 {
                return None;
            }
        }
    }
    let body = last_summary_header(log)?;
    match final_lines(log) {
        (1, Some(at)) if at >= body => {}
        _ => return None,
    }
    let mut state = State::new(log);
    state.depth = headers;
    state.summary_start = Some(0);
    state.progress = false;
    state.open = true;
    if headers == 1 {
        state.collected = collected_before(log, header_end, body);
    }
    feed(&mut state, &log[body..]);
    // Grouped skips may be named by `-v` lines before the summary: the full scan reads them.
    let verbose_skips = || memmem::find(&log[..body], b" SKIPPED").is_some();
    if !state.summary_has_pass || (state.grouped_skips > 0 && verbose_skips()) {
        return None;
    }
    Some(state.end_of_log())
}

/// The tests pytest's `collected N items` line selected: the first such line between the
/// session header (ending at `from`) and `to`.
fn collected_before(log: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut scratch = Vec::new();
    // A cut or reordered log may put the summary before the session header ends: no count.
    for hit in memmem::find_iter(log.get(from..to)?, b"collected ") {
        let (start, end) = line_around(log, from + hit);
        let line = &log[start..end];
        let line = if ansi::has_escape(line) {
            ansi::strip_into(line, &mut scratch);
            &scratch[..]
        } else {
            line
        };
        if let Some(n) = collected_line(line) {
            return Some(n);
        }
    }
    None
}

fn feed<'a>(state: &mut State<'a>, region: &'a [u8]) {
    let mut scratch = Vec::new();
    if memchr::memchr(0x1b, region).is_none() {
        for line in lines(region) {
            state.line(line);
        }
        return;
    }
    for raw in lines(region) {
        if ansi::has_escape(raw) {
            ansi::strip_into(raw, &mut scratch);
            state.line(&scratch);
        } else {
            state.line(raw);
        }
    }
}

/// The start and end (before `\n`, without `\r`) of the line holding `pos`.
fn line_around(bytes: &[u8], pos: usize) -> (usize, usize) {
    let start = memchr::memrchr(b'\n', &bytes[..pos]).map_or(0, |i| i + 1);
    let mut end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
    if end > start && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    (start, end)
}

/// True for `=== text ===` (colours allowed).
fn is_banner(line: &[u8], text: &[u8]) -> bool {
    let mut scratch = Vec::new();
    let line = if ansi::has_escape(line) {
        ansi::strip_into(line, &mut scratch);
        &scratch[..]
    } else {
        line
    };
    line.first() == Some(&b'=') && banner_text(line) == text
}

/// How many lines of `log` are pytest final lines (counting stops at 2), and where the
/// first one starts.
fn final_lines(log: &[u8]) -> (usize, Option<usize>) {
    let mut count = 0;
    let mut first = None;
    let mut scratch = Vec::new();
    let mut after = 0;
    for hit in memmem::find_iter(log, b" in ") {
        if hit < after {
            continue;
        }
        let (start, end) = line_around(log, hit);
        after = end;
        let line = &log[start..end];
        let line = if ansi::has_escape(line) {
            ansi::strip_into(line, &mut scratch);
            &scratch[..]
        } else {
            line
        };
        if is_final_line(line) {
            count += 1;
            first.get_or_insert(start);
            if count > 1 {
                break;
            }
        }
    }
    (count, first)
}

/// Offset just past the last `=== short test summary info ===` line.
///
/// Searches backwards in chunks with the (SIMD) forward finder, which is much
/// faster than a reverse substring search over a long summary.
fn last_summary_header(log: &[u8]) -> Option<usize> {
    const NEEDLE: &[u8] = b"short test summary info";
    const CHUNK: usize = 1 << 22;
    let finder = memmem::Finder::new(NEEDLE);
    let mut end = log.len();
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        // Overlap the next chunk so a needle across the boundary is found.
        let window_end = (end + NEEDLE.len() - 1).min(log.len());
        let window = &log[start..window_end];
        let mut last = None;
        for hit in finder.find_iter(window) {
            let hit = start + hit;
            if hit >= end {
                break;
            }
            let (line_start, line_end) = line_around(log, hit);
            if is_banner(&log[line_start..line_end], NEEDLE) {
                last = Some(hit);
            }
        }
        if let Some(hit) = last {
            return Some(memchr::memchr(b'\n', &log[hit..]).map_or(log.len(), |i| hit + i + 1));
        }
        end = start;
    }
    None
}

/// Where the single forward pass stands.
struct State<'a> {
    /// Session headers seen minus final lines seen: 2 and more means the
    /// lines belong to a pytest run printed by a test (pytester), not ours.
    depth: usize,
    /// Results of finished sessions and of the current summary section.
    items: IdBatch<'a>,
    /// Index in `items` where the current session's summary section starts.
    summary_start: Option<usize>,
    /// A `PASSED` line was read in a summary section.
    summary_has_pass: bool,
    /// `-v` lines of the current session, used if it has no summary section.
    verbose: Vec<(Vec<u8>, Outcome)>,
    /// Before the first banner after the session header, where `-v` prints
    /// one line per test; later `-v`-like lines are test output.
    progress: bool,
    /// The current session has printed anything we count (header, result).
    open: bool,
    sessions: usize,
    incomplete: Vec<usize>,
    /// Tests counted by `SKIPPED [N] file:line: reason` summary lines (`-rA` groups skips
    /// and names no test).
    grouped_skips: usize,
    /// The last session printed its final line and no new session has started:
    /// anything result-like now is forged.
    after_final: bool,
    /// Result lines of the current summary section, per status word.
    listed: Listed,
    /// `SUBFAILED(…)` lines of the current summary section.
    sub_failed: usize,
    /// The tests the current session's `collected N items` line selected.
    collected: Option<usize>,
    /// A `!!! … !!!` banner (the session stopped early: `-x`, a collection error,
    /// `pytest.exit`, a `KeyboardInterrupt`) after the session's last `===` banner.
    stopped: bool,
    tampering: Vec<String>,
}

/// How many results a summary section lists, per status word (`SKIPPED [N]` lines add N).
#[derive(Debug, Default, Clone, Copy)]
struct Listed([usize; 6]);

impl Listed {
    fn add(&mut self, word: Word, n: usize) {
        self.0[word as usize] += n;
    }

    fn total(&self) -> usize {
        self.0.iter().sum()
    }
}

impl<'a> State<'a> {
    fn new(log: &'a [u8]) -> Self {
        State {
            depth: 0,
            items: IdBatch::new(log),
            summary_start: None,
            summary_has_pass: false,
            verbose: Vec::new(),
            progress: true,
            open: false,
            sessions: 0,
            incomplete: Vec::new(),
            grouped_skips: 0,
            after_final: false,
            listed: Listed::default(),
            sub_failed: 0,
            collected: None,
            stopped: false,
            tampering: Vec::new(),
        }
    }

    fn tamper(&mut self, evidence: String) {
        if self.tampering.len() < 20 {
            self.tampering.push(evidence);
        }
    }

    /// A line after the final line of a session (and before any new header).
    fn after_final_line(&mut self, line: &[u8]) {
        let forged =
            if line.first() == Some(&b'=') && banner_text(line) == b"short test summary info" {
                Some("a `short test summary info` header")
            } else if is_final_line(line) {
                Some("a second final line")
            } else if status_first(line).is_some() || verbose_line(line).is_some() {
                Some("a result line")
            } else {
                None
            };
        if let Some(what) = forged {
            let shown = String::from_utf8_lossy(&line[..line.len().min(120)]).into_owned();
            self.tamper(format!(
                "{what} after pytest's final line (pytest prints nothing there): `{shown}`"
            ));
        }
    }

    /// Compares the final line's counts with what the summary section listed.
    fn check_counts(&mut self, final_line: &[u8]) {
        let counts = final_counts(final_line);
        if let (Some(selected), false) = (self.collected, self.stopped) {
            let total = counts.total();
            if total < selected {
                let shown =
                    String::from_utf8_lossy(&final_line[..final_line.len().min(120)]).into_owned();
                self.tamper(format!(
                    "pytest collected {selected} test(s) to run but its final line accounts for {total} \
                     (`{}`): results were dropped",
                    shown.trim_matches(|c| c == '=' || c == ' ')
                ));
            }
        }
        if self.summary_start.is_none() {
            return;
        }
        for word in Word::ALL {
            let listed = self.listed.0[word as usize];
            let said = counts.0[word as usize];
            // pytest 9 counts a failed subtest (`SUBFAILED(…)`) as `failed`.
            let subtests = if word == Word::Failed {
                self.sub_failed
            } else {
                0
            };
            if listed > 0 && listed != said && listed + subtests != said {
                self.tamper(format!(
                    "pytest's final line counts {said} {} but its summary lists {listed} `{}` results",
                    word.count_name(),
                    String::from_utf8_lossy(word.word()),
                ));
            }
        }
    }

    #[inline]
    fn line(&mut self, line: &[u8]) {
        let Some(&first) = line.first() else { return };
        if self.after_final {
            if first == b'=' && banner_text(line) == b"test session starts" {
                self.after_final = false;
                return self.header();
            }
            return self.after_final_line(line);
        }
        if first == b'=' {
            match banner_text(line) {
                b"test session starts" => return self.header(),
                b"short test summary info" if self.depth <= 1 => {
                    // A later header replaces an earlier one (printed by a test).
                    self.stopped = false;
                    let start = *self.summary_start.get_or_insert(self.items.len());
                    self.items.truncate(start);
                    self.listed = Listed::default();
                    self.sub_failed = 0;
                    self.open = true;
                    self.progress = false;
                    return;
                }
                b"" => {}
                _ if self.depth <= 1 => {
                    self.progress = false;
                    // A section after a stop banner (the final line is no section).
                    self.stopped &= is_final_line(line);
                }
                _ => {}
            }
        }
        if self.depth > 1 {
            if is_final_line(line) {
                self.depth -= 1;
            }
            return;
        }
        if first == b'!' && self.depth == 1 && is_stop_banner(line) {
            self.stopped = true;
        }
        if self.summary_start.is_some() {
            if let Some(word) = subtest_word(line) {
                // A subtest: maybe counted on the final line, never a result of its own.
                if word == Word::Failed {
                    self.sub_failed += 1;
                }
                return;
            }
            if let Some((word, id)) = status_first_word(line) {
                self.summary_has_pass |= first == b'P';
                self.listed.add(word, 1);
                self.items.push(id, word.outcome());
                return;
            }
            if let Some(n) = grouped_skips(line) {
                self.listed.add(Word::Skipped, n);
                self.grouped_skips += n;
            }
        } else if self.progress {
            if let Some((outcome, id)) = verbose_line(line) {
                self.verbose.push((id.to_vec(), outcome));
                self.open = true;
                return;
            }
            if self.depth == 1 && self.collected.is_none() {
                if let Some(n) = collected_line(line) {
                    self.collected = Some(n);
                    return;
                }
            }
        }
        if is_final_line(line) {
            self.check_counts(line);
            self.close_session(true);
            self.after_final = true;
        }
    }

    fn header(&mut self) {
        if self.depth == 0 && self.open {
            // Results with no header before them, then a new run: the first
            // one never printed its final line.
            self.close_session(false);
        }
        self.depth += 1;
        if self.depth == 1 {
            self.progress = true;
        }
        self.open = true;
    }

    fn close_session(&mut self, complete: bool) {
        let verbose = std::mem::take(&mut self.verbose);
        match self.summary_start {
            // `-v` without `-rA`: the summary lists only failures and errors.
            Some(start) if !verbose.is_empty() => {
                let listed: HashSet<&[u8]> = self.items.ids_from(start).collect();
                let extra: Vec<_> = verbose
                    .into_iter()
                    .filter(|(id, _)| !listed.contains(&id[..]))
                    .collect();
                for (id, outcome) in extra {
                    self.items.push(&id, outcome);
                }
            }
            Some(_) => {}
            None => {
                for (id, outcome) in verbose {
                    self.items.push(&id, outcome);
                }
            }
        }
        self.progress = true;
        self.summary_start = None;
        self.listed = Listed::default();
        self.sub_failed = 0;
        self.collected = None;
        self.stopped = false;
        self.sessions += 1;
        if !complete {
            self.incomplete.push(self.sessions);
        }
        self.depth = 0;
        self.open = false;
    }

    fn end_of_log(mut self) -> ParsedLog {
        if self.open || self.depth > 0 {
            self.close_session(false);
        }
        let mut parsed = ParsedLog::new();
        if self.sessions == 0 {
            parsed.complete = false;
            parsed.warn("no pytest output (no session header, result or final line) in the log");
        }
        for session in &self.incomplete {
            parsed.complete = false;
            parsed.warn(format!(
                "pytest session {session} has no final `N passed in …s` line: the run ended early"
            ));
        }
        let grouped = self.grouped_skips;
        self.items.into_parsed(&mut parsed);
        let named = parsed
            .tests
            .values()
            .filter(|o| **o == Outcome::Skipped)
            .count();
        parsed.unnamed_skipped = grouped.saturating_sub(named);
        if parsed.unnamed_skipped > 0 {
            parsed.warn(format!(
                "{} skipped tests are not named (`-rA` groups skips as `SKIPPED [N] file:line`); add `-v` to the command to name them",
                parsed.unnamed_skipped
            ));
        }
        parsed.tampering = self.tampering;
        parsed.finish();
        parsed
    }
}

/// The text of a `=== text ===` banner line without `=` and spaces.
#[inline]
fn banner_text(line: &[u8]) -> &[u8] {
    trim_matches(line, |b| b == b'=' || b == b' ')
}

fn trim_matches(mut s: &[u8], drop: impl Fn(u8) -> bool) -> &[u8] {
    while let [first, rest @ ..] = s {
        if !drop(*first) {
            break;
        }
        s = rest;
    }
    while let [rest @ .., last] = s {
        if !drop(*last) {
            break;
        }
        s = rest;
    }
    s
}

/// A status word pytest prints for one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    Passed = 0,
    Failed = 1,
    Error = 2,
    Skipped = 3,
    Xfail = 4,
    Xpass = 5,
}

impl Word {
    const ALL: [Word; 6] = [
        Word::Passed,
        Word::Failed,
        Word::Error,
        Word::Skipped,
        Word::Xfail,
        Word::Xpass,
    ];

    /// As printed at the start of a result line.
    fn word(self) -> &'static [u8] {
        match self {
            Word::Passed => b"PASSED",
            Word::Failed => b"FAILED",
            Word::Error => b"ERROR",
            Word::Skipped => b"SKIPPED",
            Word::Xfail => b"XFAIL",
            Word::Xpass => b"XPASS",
        }
    }

    /// As counted on the final line (`2 passed, 1 xfailed`).
    fn count_name(self) -> &'static str {
        match self {
            Word::Passed => "passed",
            Word::Failed => "failed",
            Word::Error => "errors",
            Word::Skipped => "skipped",
            Word::Xfail => "xfailed",
            Word::Xpass => "xpassed",
        }
    }

    /// What the test body did: an expected failure still failed.
    fn outcome(self) -> Outcome {
        match self {
            Word::Passed | Word::Xpass => Outcome::Passed,
            Word::Failed | Word::Xfail => Outcome::Failed,
            Word::Error => Outcome::Error,
            Word::Skipped => Outcome::Skipped,
        }
    }
}

/// The status word at the start of `line` and what follows it.
#[inline]
fn status_word(line: &[u8]) -> Option<(Outcome, &[u8])> {
    status_word_of(line).map(|(w, rest)| (w.outcome(), rest))
}

#[inline]
fn status_word_of(line: &[u8]) -> Option<(Word, &[u8])> {
    let first = *line.first()?;
    if !matches!(first, b'P' | b'F' | b'E' | b'S' | b'X') {
        return None;
    }
    Word::ALL.iter().find_map(|word| {
        let rest = line.strip_prefix(word.word())?;
        match rest.first() {
            None | Some(b' ') | Some(b'(') => Some((*word, rest)),
            _ => None,
        }
    })
}

/// `STATUS id[ - message]`, as in the summary section.
#[inline]
fn status_first(line: &[u8]) -> Option<(Outcome, &[u8])> {
    status_first_word(line).map(|(w, id)| (w.outcome(), id))
}

#[inline]
fn status_first_word(line: &[u8]) -> Option<(Word, &[u8])> {
    let (word, rest) = status_word_of(line)?;
    let rest = rest.strip_prefix(b" ")?;
    let id = node_id(rest);
    if !looks_like_node_id(id, word.outcome()) {
        return None;
    }
    Some((word, id))
}

/// `collected 10 items`, `collecting ... collected 1 item`, `collected 10 items / 3
/// deselected / 7 selected`, `collected 4 items / 1 error` → the tests selected to run.
fn collected_line(line: &[u8]) -> Option<usize> {
    let rest = line
        .strip_prefix(b"collecting ... ")
        .unwrap_or(line)
        .strip_prefix(b"collected ")?;
    let mut parts = rest.split(|&b| b == b'/');
    let number = |part: &[u8], words: &[&[u8]]| -> Option<usize> {
        let part = trim_matches(part, |b| b == b' ');
        let digits = part.iter().take_while(|b| b.is_ascii_digit()).count();
        let n = std::str::from_utf8(&part[..digits]).ok()?.parse().ok()?;
        let word = trim_matches(&part[digits..], |b| b == b' ');
        words.contains(&word).then_some(n)
    };
    let mut n: usize = number(parts.next()?, &[b"item", b"items"])?;
    for part in parts {
        if let Some(k) = number(part, &[b"selected"]) {
            n = k;
        } else if let Some(d) = number(part, &[b"deselected"]) {
            n = n.saturating_sub(d);
        }
    }
    Some(n)
}

/// `!!!!!!! stopping after 1 failures !!!!!!!`, `!!! Interrupted: 1 error during collection
/// !!!`, `!!! KeyboardInterrupt !!!`: the session stopped before running every selected test.
fn is_stop_banner(line: &[u8]) -> bool {
    let line = trim_matches(line, |b| b == b' ' || b == b'\r');
    line.starts_with(b"!!!")
        && line.ends_with(b"!!!")
        && !trim_matches(line, |b| b == b'!' || b == b' ').is_empty()
}

/// `SUBFAILED(i=1) tests/t.py::test_x - msg` (pytest ≥ 9's subtests): its status word.
fn subtest_word(line: &[u8]) -> Option<Word> {
    let rest = line.strip_prefix(b"SUB")?;
    let (word, after) = status_word_of(rest)?;
    after.starts_with(b"(").then_some(word)
}

/// `SKIPPED [3] tests/t.py:12: reason` → 3.
fn grouped_skips(line: &[u8]) -> Option<usize> {
    let rest = line.strip_prefix(b"SKIPPED [")?;
    let close = memchr::memchr(b']', rest)?;
    std::str::from_utf8(&rest[..close]).ok()?.parse().ok()
}

/// The counts of a final line (`3 failed, 6 passed, 1 error, 2 warnings in 0.5s`), per
/// status word; words that count no test (warnings, deselected, rerun) are left out.
fn final_counts(line: &[u8]) -> Listed {
    let mut counts = Listed::default();
    let text = trim_matches(line, |b| b == b'=' || b == b' ');
    let Some(at) = memmem::rfind(text, b" in ") else {
        return counts;
    };
    for part in text[..at].split(|&b| b == b',') {
        let part = trim_matches(part, |b| b == b' ');
        let digits = part.iter().take_while(|b| b.is_ascii_digit()).count();
        let Some(n) = std::str::from_utf8(&part[..digits])
            .ok()
            .and_then(|d| d.parse::<usize>().ok())
        else {
            continue;
        };
        let word = match trim_matches(&part[digits..], |b| b == b' ') {
            b"passed" => Word::Passed,
            b"failed" => Word::Failed,
            b"error" | b"errors" => Word::Error,
            b"skipped" => Word::Skipped,
            b"xfailed" => Word::Xfail,
            b"xpassed" => Word::Xpass,
            _ => continue,
        };
        counts.add(word, n);
    }
    counts
}

/// `path::name STATUS [ 10%]` or `[gw0] [ 10%] STATUS path::name`.
fn verbose_line(line: &[u8]) -> Option<(Outcome, &[u8])> {
    if line.starts_with(b"[gw") {
        let mut rest = line;
        while let Some(after) = rest.strip_prefix(b"[") {
            let close = memchr::memchr(b']', after)?;
            rest = trim_matches(&after[close + 1..], |b| b == b' ');
        }
        return status_first(rest);
    }
    let id = node_id(line);
    if id.is_empty() || !has_double_colon(id) {
        return None;
    }
    let rest = trim_matches(&line[id.len()..], |b| b == b' ');
    let (outcome, _) = status_word(rest)?;
    Some((outcome, id))
}

/// The node id at the start of `s`: up to the first space outside brackets.
#[inline]
fn node_id(s: &[u8]) -> &[u8] {
    match memchr::memchr2(b' ', b'[', s) {
        None => s,
        Some(i) if s[i] == b' ' => &s[..i],
        Some(open) => bracketed_id(s, open),
    }
}

/// [`node_id`] once a `[` was found at `open`.
fn bracketed_id(s: &[u8], open: usize) -> &[u8] {
    let mut depth = 0i32;
    for (i, &b) in s.iter().enumerate().skip(open) {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b' ' | b'\t' if depth <= 0 => return &s[..i],
            _ => {}
        }
    }
    // Unbalanced brackets (a truncated line): stop at the first ` - ` if any.
    if depth > 0 {
        if let Some(i) = memmem::find(s, b" - ") {
            return &s[..i];
        }
    }
    s
}

/// Rejects `SKIPPED [1] file:line` and message lines that merely start with a
/// status word: a node id holds `::`, or is a path (collection errors).
#[inline]
fn looks_like_node_id(id: &[u8], outcome: Outcome) -> bool {
    if id.is_empty() || id[0] == b'[' {
        return false;
    }
    if has_double_colon(id) {
        return true;
    }
    matches!(outcome, Outcome::Error | Outcome::Failed)
        && (id.ends_with(b".py") || memchr::memchr(b'/', id).is_some())
}

#[inline]
fn has_double_colon(id: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = memchr::memchr(b':', &id[at..]) {
        if id.get(at + i + 1) == Some(&b':') {
            return true;
        }
        at += i + 1;
    }
    false
}

/// pytest's last line: `=== 1 failed, 2 passed, 1 warning in 0.12s (0:00:00) ===`,
/// `no tests ran in 0.01s`, or (old pytest) `… in 0.12 seconds`.
fn is_final_line(line: &[u8]) -> bool {
    let text = trim_matches(line, |b| b == b'=' || b == b' ');
    let (Some(first), Some(last)) = (text.first(), text.last()) else {
        return false;
    };
    if !(first.is_ascii_digit() || *first == b'n') || !(*last == b's' || *last == b')') {
        return false;
    }
    let Some(at) = memmem::rfind(text, b" in ") else {
        return false;
    };
    let (counts, time) = (&text[..at], &text[at + 4..]);
    is_duration(time) && (counts == b"no tests ran" || counts.split(|&b| b == b',').all(is_count))
}

/// `0.12s`, `65.43s (0:01:05)`, `0.12 seconds`.
fn is_duration(s: &[u8]) -> bool {
    let digits = s
        .iter()
        .take_while(|b| b.is_ascii_digit() || **b == b'.')
        .count();
    if digits == 0 {
        return false;
    }
    let rest = &s[digits..];
    let rest = if let Some(r) = rest.strip_prefix(b" seconds") {
        r
    } else if let Some(r) = rest.strip_prefix(b"s") {
        r
    } else {
        return false;
    };
    rest.is_empty() || (rest.starts_with(b" (") && rest.ends_with(b")"))
}

/// ` 2 passed`, `1 error`, `3 warnings`.
fn is_count(part: &[u8]) -> bool {
    let part = trim_matches(part, |b| b == b' ');
    let digits = part.iter().take_while(|b| b.is_ascii_digit()).count();
    digits > 0
        && part.get(digits) == Some(&b' ')
        && part[digits + 1..]
            .iter()
            .all(|b| b.is_ascii_lowercase() || *b == b' ')
        && part.len() > digits + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKIPS: &str = "\
============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0+repack
collected 3 items

tests/test_a.py::test_ok PASSED                                          [ 33%]
tests/test_a.py::test_skip[a b] SKIPPED (no network)                     [ 66%]
tests/test_a.py::test_skip2 SKIPPED (no network)                         [100%]

=========================== short test summary info ============================
PASSED tests/test_a.py::test_ok
SKIPPED [2] tests/test_a.py:5: no network
========================= 1 passed, 2 skipped in 0.01s =========================
";

    #[test]
    fn grouped_skips_are_named_by_verbose_lines_or_counted() {
        let named = parse(SKIPS.as_bytes());
        assert!(named.complete);
        assert_eq!(named.unnamed_skipped, 0);
        assert_eq!(
            named.tests.get("tests/test_a.py::test_skip[a b]"),
            Some(&Outcome::Skipped)
        );
        assert_eq!(
            named.tests.get("tests/test_a.py::test_ok"),
            Some(&Outcome::Passed)
        );
        // Without `-v` the skips are counted, not named, and a warning says how to name them.
        let bare: String = SKIPS
            .lines()
            .filter(|l| !l.contains("SKIPPED (") && !l.contains("PASSED   "))
            .map(|l| format!("{l}\n"))
            .collect();
        let counted = parse(bare.as_bytes());
        assert_eq!(counted.unnamed_skipped, 2, "{counted}");
        assert_eq!(counted.tests.len(), 1);
        assert!(counted.warnings.iter().any(|w| w.contains("add `-v`")));
    }

    #[test]
    fn fast_path_agrees_with_full_scan() {
        let logs: [&[u8]; 3] = [
            include_bytes!("../../tests/fixtures/logs/pytest/rA-plain.log"),
            include_bytes!("../../tests/fixtures/logs/pytest/rA-color.log"),
            include_bytes!("../../tests/fixtures/logs/pytest/rA-ci-multiline.log"),
        ];
        for log in logs {
            let fast = fast_path(log).expect("one session with passes");
            assert_eq!(fast, full_scan(log));
        }
        // The collected count is read by both (the fast path before its summary section).
        let dropped: &[u8] =
            include_bytes!("../../tests/fixtures/logs/pytest/count-dropped-failures.log");
        let fast = fast_path(dropped).expect("one session with passes");
        assert!(!fast.tampering.is_empty(), "{fast}");
        assert_eq!(fast, full_scan(dropped));
        let nested: &[u8] = include_bytes!("../../tests/fixtures/logs/pytest/pytester-nested.log");
        assert!(
            fast_path(nested).is_none(),
            "two headers need the full scan"
        );
        let truncated: &[u8] =
            include_bytes!("../../tests/fixtures/logs/pytest/truncated-summary.log");
        assert!(
            fast_path(truncated).is_none(),
            "no final line: the full scan says why"
        );
    }

    #[test]
    fn summary_header_found_across_chunks() {
        let mut log = vec![b'x'; (1 << 22) - 10];
        log.extend_from_slice(b"\n=== short test summary info ===\nPASSED a.py::t\n");
        let body = last_summary_header(&log).expect("header");
        assert_eq!(&log[body..], b"PASSED a.py::t\n");
    }

    #[test]
    fn final_lines() {
        assert!(is_final_line(b"==== 1 failed, 2 passed in 0.12s ===="));
        assert!(is_final_line(b"1 passed in 65.43s (0:01:05)"));
        assert!(is_final_line(b"===== no tests ran in 0.01s ====="));
        assert!(is_final_line(b"= 3 passed in 0.5 seconds ="));
        assert!(!is_final_line(b"PASSED a.py::t - done in 3s"));
        assert!(!is_final_line(b"things in 3 parts"));
    }

    #[test]
    fn node_ids_keep_brackets_and_spaces() {
        assert_eq!(node_id(b"t.py::x[a b-1] - msg"), b"t.py::x[a b-1]");
        assert_eq!(node_id(b"t.py::x[x[y]]"), b"t.py::x[x[y]]");
        assert_eq!(
            node_id(b"t.py::x[dash - in id] - m"),
            b"t.py::x[dash - in id]"
        );
    }

    #[test]
    fn collected_lines() {
        assert_eq!(collected_line(b"collected 10 items"), Some(10));
        assert_eq!(collected_line(b"collected 1 item"), Some(1));
        assert_eq!(collected_line(b"collecting ... collected 4 items"), Some(4));
        assert_eq!(
            collected_line(b"collected 10 items / 7 deselected / 3 selected"),
            Some(3)
        );
        assert_eq!(
            collected_line(b"collected 10 items / 7 deselected"),
            Some(3)
        );
        assert_eq!(collected_line(b"collected 17 items / 1 error"), Some(17));
        assert_eq!(collected_line(b"collected things"), None);
        assert!(is_stop_banner(b"!!!!!! stopping after 1 failures !!!!!!"));
        assert!(!is_stop_banner(b"!!!!!!!!!!!!"));
        assert_eq!(
            subtest_word(b"SUBFAILED(i=1) t.py::test_s - x"),
            Some(Word::Failed)
        );
        assert_eq!(subtest_word(b"SUBFAILED t.py::test_s"), None);
    }

    #[test]
    fn summary_line_shapes() {
        assert_eq!(status_first(b"SKIPPED [1] t.py:3: no"), None);
        assert_eq!(
            status_first(b"ERROR tests/t.py"),
            Some((Outcome::Error, &b"tests/t.py"[..]))
        );
        assert_eq!(status_first(b"PASSED to the next step"), None);
    }
}
