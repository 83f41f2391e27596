//! minitest's verbose output (`ruby -Itest test/x_test.rb -v`, `rake test TESTOPTS=-v`).
//!
//! **Ids** are minitest's `Class#method`, as `-n` selects them:
//! `CookieJarTest#test_stores_one_cookie`, and for spec-style tests
//! `Cookie jar::with "quotes"#test_0001_reads ünïcödé ✓`. The name ends at the
//! first ` = ` of its line (what the test printed follows it), so a test whose
//! name holds ` = ` is cut there.
//!
//! **What is read.** Each run goes from `# Running:` to its summary line
//! (`10 runs, 8 assertions, 3 failures, 1 errors, 1 skips`). In verbose mode
//! minitest prints `Class#method = ` *before* a test runs and `0.00 s = .`
//! after it, so what the test prints lands between the two. A test is opened by
//! a line that starts with its name and ` = `, and closed by the first line that
//! ends with `<seconds> s = <result>` (`.` passed, `F` failed, `E` error, `S`
//! skipped); a result line without a name (the test printed a line ending in a
//! fake result, or printed without a newline) replaces the result of the test
//! before it, since minitest writes the real result last. Then the failure
//! details after `Finished in` (`  1) Failure:` / `Error:` / `Skipped:` and the
//! test's name on the next line), which tests cannot print into, are recorded
//! too (the worst outcome wins), so a test cannot print itself a pass.
//!
//! **Complete** when every run reaches its summary line.
//!
//! **Tampering**: a summary whose runs differ from the named results, or whose
//! failures / errors / skips differ from the failure details listed (skips are
//! only checked when details list some: without `-v` minitest does not list
//! them); a result line or a details header after the last summary line.

use super::ansi;
use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses a minitest log.
pub fn parse(log: &[u8]) -> ParsedLog {
    let text = String::from_utf8_lossy(log);
    let mut parsed = ParsedLog::new();
    let mut run: Option<Run> = None;
    let mut summaries = 0;
    let mut after_summary = false;
    for raw in lines(text.as_bytes()) {
        let line = ansi::strip(&String::from_utf8_lossy(raw)).into_owned();
        if line.starts_with("Run options:") {
            if let Some(unfinished) = run.take() {
                unfinished.cut(&mut parsed);
            }
            after_summary = false;
            run = Some(Run::default());
            continue;
        }
        if line == "# Running:" {
            match run.as_mut() {
                Some(r) if r.phase == Phase::Options => r.phase = Phase::Running,
                _ => {
                    if let Some(unfinished) = run.take() {
                        unfinished.cut(&mut parsed);
                    }
                    run = Some(Run {
                        phase: Phase::Running,
                        ..Run::default()
                    });
                }
            }
            after_summary = false;
            continue;
        }
        if let Some(counts) = summary(&line) {
            match run.take() {
                Some(done) => {
                    done.finish(&counts, &mut parsed);
                    summaries += 1;
                }
                None if summaries > 0 => parsed.tampered(format!(
                    "a second minitest summary line after the last run's: `{line}`"
                )),
                None => {}
            }
            after_summary = true;
            continue;
        }
        match run.as_mut() {
            Some(r) => r.line(&line),
            None if after_summary
                && (result_suffix(&line).is_some() || detail_header(&line).is_some()) =>
            {
                parsed.tampered(format!(
                    "a minitest result after the run's summary line: `{}`",
                    &line.chars().take(120).collect::<String>()
                ));
            }
            None => {}
        }
    }
    if let Some(unfinished) = run.take() {
        unfinished.cut(&mut parsed);
    }
    if summaries == 0 && parsed.complete {
        parsed.complete = false;
        parsed.warn("no minitest summary line (`N runs, N assertions, …`) in the log");
    }
    parsed.finish();
    parsed
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    #[default]
    Options,
    Running,
    Details,
}

#[derive(Default)]
struct Run {
    phase: Phase,
    open: Option<String>,
    results: Vec<(String, Outcome)>,
    orphans: usize,
    /// Failure details: (outcome, name); `pending` is the header just read.
    details: Vec<(Outcome, String)>,
    pending: Option<Outcome>,
}

struct Counts {
    runs: usize,
    failures: usize,
    errors: usize,
    skips: usize,
}

impl Run {
    fn line(&mut self, line: &str) {
        if line.starts_with("Finished in ") {
            self.phase = Phase::Details;
            return;
        }
        match self.phase {
            Phase::Options => {}
            Phase::Running => self.running(line),
            Phase::Details => {
                if let Some(outcome) = self.pending.take() {
                    let name = line.trim_end_matches(':');
                    let name = match name.rfind(" [") {
                        Some(at) if name.ends_with(']') => &name[..at],
                        _ => name,
                    };
                    self.details.push((outcome, name.to_string()));
                } else if let Some(outcome) = detail_header(line) {
                    self.pending = Some(outcome);
                }
            }
        }
    }

    fn running(&mut self, line: &str) {
        let suffix = result_suffix(line);
        if let Some(name) = self.open.take() {
            match suffix {
                Some((_, outcome)) => self.results.push((name, outcome)),
                None => self.open = Some(name),
            }
            return;
        }
        match suffix {
            Some((head, outcome)) => {
                if let Some(at) = head.find(" = ").filter(|&at| at > 0) {
                    self.results.push((head[..at].to_string(), outcome));
                } else if let Some(last) = self.results.last_mut() {
                    last.1 = outcome;
                    self.orphans += 1;
                }
            }
            None => {
                if let Some(at) = line.find(" = ").filter(|&at| at > 0) {
                    self.open = Some(line[..at].to_string());
                }
            }
        }
    }

    fn record(&self, parsed: &mut ParsedLog) {
        for (name, outcome) in &self.results {
            parsed.record(name.clone(), *outcome);
        }
        let named: std::collections::HashSet<&str> =
            self.results.iter().map(|(n, _)| n.as_str()).collect();
        for (outcome, name) in &self.details {
            if named.contains(name.as_str()) {
                if let Some(old) = parsed.tests.get_mut(name) {
                    *old = (*old).max(*outcome);
                }
            } else {
                parsed.record(name.clone(), *outcome);
            }
        }
        if self.orphans > 0 {
            parsed.warn(format!(
                "{} minitest result(s) printed after a test's output without its name: \
                 taken as the result of the test before",
                self.orphans
            ));
        }
    }

    fn finish(self, counts: &Counts, parsed: &mut ParsedLog) {
        self.record(parsed);
        let of = |o: Outcome| self.details.iter().filter(|(d, _)| *d == o).count();
        let skips_listed = of(Outcome::Skipped);
        let checks = [
            ("runs", counts.runs, self.results.len(), true),
            ("failures", counts.failures, of(Outcome::Failed), true),
            ("errors", counts.errors, of(Outcome::Error), true),
            ("skips", counts.skips, skips_listed, skips_listed > 0),
        ];
        for (what, said, listed, check) in checks {
            if check && said != listed {
                parsed.tampered(format!(
                    "minitest's summary counts {said} {what} but the log lists {listed}"
                ));
            }
        }
        if counts.runs > 0 && self.results.is_empty() {
            parsed.warn("minitest ran without `-v`: passing tests are not named; run it with `-v`");
        }
    }

    fn cut(mut self, parsed: &mut ParsedLog) {
        if let Some(name) = self.open.take() {
            self.results.push((name, Outcome::Error));
        }
        self.record(parsed);
        parsed.complete = false;
        parsed.warn("a minitest run has no summary line: the run ended early");
    }
}

/// `… 0.00 s = F` → (the text before the seconds, outcome).
fn result_suffix(line: &str) -> Option<(&str, Outcome)> {
    let outcome = match line.as_bytes().last()? {
        b'.' => Outcome::Passed,
        b'F' => Outcome::Failed,
        b'E' => Outcome::Error,
        b'S' => Outcome::Skipped,
        _ => return None,
    };
    let rest = line[..line.len() - 1].strip_suffix(" s = ")?;
    let digits = rest
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    if digits == 0 || !rest[rest.len() - digits..].contains('.') {
        return None;
    }
    Some((&rest[..rest.len() - digits], outcome))
}

/// `  1) Failure:` → failed, `Error:` → error, `Skipped:` → skipped.
fn detail_header(line: &str) -> Option<Outcome> {
    let rest = line.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    match &rest[digits..] {
        ") Failure:" => Some(Outcome::Failed),
        ") Error:" => Some(Outcome::Error),
        ") Skipped:" => Some(Outcome::Skipped),
        _ => None,
    }
}

/// `10 runs, 8 assertions, 3 failures, 1 errors, 1 skips`.
fn summary(line: &str) -> Option<Counts> {
    let parts: Vec<&str> = line.split(", ").collect();
    let [runs, assertions, failures, errors, skips] = parts.as_slice() else {
        return None;
    };
    let n = |part: &str, word: &str| -> Option<usize> {
        let (num, w) = part.split_once(' ')?;
        (w == word).then_some(())?;
        num.parse().ok()
    };
    n(assertions, "assertions")?;
    Some(Counts {
        runs: n(runs, "runs")?,
        failures: n(failures, "failures")?,
        errors: n(errors, "errors")?,
        skips: n(skips, "skips")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(
            result_suffix("A#b = 0.00 s = ."),
            Some(("A#b = ", Outcome::Passed))
        );
        assert_eq!(result_suffix("x 12.50 s = E"), Some(("x ", Outcome::Error)));
        assert_eq!(result_suffix("A#b = s = ."), None);
        assert_eq!(detail_header("  12) Error:"), Some(Outcome::Error));
        assert!(summary("3 runs, 4 assertions, 0 failures, 0 errors, 1 skips").is_some());
        assert!(summary("3 runs, 4 assertions, 0 failures, 0 errors").is_none());
    }

    #[test]
    fn a_test_cannot_print_itself_a_pass() {
        let log = "# Running:\n\nA#t = A#u = 0.00 s = .\n0.00 s = F\n\nFinished in 0.1s\n\n  1) Failure:\nA#t [x.rb:1]:\nno\n\n1 runs, 1 assertions, 1 failures, 0 errors, 0 skips\n";
        let parsed = parse(log.as_bytes());
        assert_eq!(parsed.tests.get("A#t"), Some(&Outcome::Failed), "{parsed}");
        assert!(parsed.tampering.is_empty(), "{parsed}");
        let forged = log
            .replace("1 runs", "2 runs")
            .replace("0.00 s = F", "A#v = 0.00 s = .");
        let parsed = parse(forged.as_bytes());
        assert_eq!(parsed.tests.get("A#t"), Some(&Outcome::Failed), "{parsed}");
    }
}
