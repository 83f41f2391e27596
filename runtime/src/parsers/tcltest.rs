//! tcl's tcltest (`tclsh tests/all.tcl -verbose ps`, or one test file) and redis'
//! `runtest` (its own tcl harness).
//!
//! **tcltest.** With `-verbose ps` (tcltest's default `b` prints failures only) a passing
//! test prints `++++ name PASSED`, a skipped one `++++ name SKIPPED: constraint`; a failing
//! one prints a block from `==== name description FAILED` to `==== name FAILED`. Each file
//! ends with `file.test: Total 5 Passed 3 Skipped 1 Failed 1` (tab-separated); `all.tcl`
//! prints the sum of them last (`all.tcl: Total …`).
//!
//! **redis.** `[ok]: name (3 ms)`, `[err]: name in tests/unit/x.tcl`, `[skip]: name`,
//! `[ignore]: name`; the run ends with `\o/ All tests passed without errors!` or with
//! `!!! WARNING The following tests failed:` and one `*** [err]: …` line per failure.
//!
//! **Ids** are the test names (tcltest's `-match` and redis' `--only` take them):
//! `cookie-1.2`, redis' `SET and GET an item`.
//!
//! **Outcomes.** PASSED / `ok` → passed; SKIPPED / `skip` / `ignore` → skipped; FAILED /
//! `err` → failed; redis' `exception` → error (recorded under the message).
//!
//! **Complete** (tcltest) when a `Total … Failed N` line was read and it names as many
//! results as the tests listed (a run without `-verbose p` names no passing test: it is
//! incomplete and says so); (redis) when its final line was read.
//!
//! **Tampering.** tcltest runs tests in the runner's own interpreter, so a test can print
//! `++++ x PASSED`: the last summary's Passed, Skipped and Failed must match the tests
//! listed (more skipped tests than named is allowed: `-skip` and `-match` count the tests
//! they leave out as skipped without naming them, as unnamed skips), and a result after it
//! is tampered. redis: `All tests passed` with a failed
//! test, or a final failure list that differs from the `[err]` lines, is tampered.

use std::collections::BTreeSet;

use super::ansi;
use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// tcltest's per-file or total line: (total, passed, skipped, failed).
fn summary(line: &str) -> Option<[usize; 4]> {
    let (_, rest) = line.split_once(":\tTotal\t")?;
    let f: Vec<&str> = rest.split('\t').collect();
    match f.as_slice() {
        [t, "Passed", p, "Skipped", s, "Failed", x, ..] => Some([
            t.trim().parse().ok()?,
            p.trim().parse().ok()?,
            s.trim().parse().ok()?,
            x.trim().parse().ok()?,
        ]),
        _ => None,
    }
}

/// Parses tcltest's or redis' runtest output.
pub fn parse(log: &[u8]) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut counts = [0usize; 3]; // passed, skipped, failed (tcltest)
    let mut last_summary: Option<([usize; 4], usize)> = None;
    let mut failing_start: Option<String> = None;
    let mut redis = Redis::default();
    let mut results_at: Vec<(String, usize)> = Vec::new();
    for (n, raw) in lines(log).enumerate() {
        let text = String::from_utf8_lossy(raw);
        let text = ansi::strip(&text);
        let line = text.trim_end();
        if let Some(found) = summary(line) {
            last_summary = Some((found, n + 1));
            continue;
        }
        let tcl = if let Some(rest) = line.strip_prefix("++++ ") {
            if let Some(name) = rest.strip_suffix(" PASSED") {
                Some((name.to_string(), Outcome::Passed))
            } else {
                rest.split_once(" SKIPPED: ")
                    .map(|(name, _)| (name.to_string(), Outcome::Skipped))
            }
        } else if let Some(rest) = line
            .strip_prefix("==== ")
            .and_then(|r| r.strip_suffix(" FAILED"))
        {
            // The block's first line is `name description`, its last `name`.
            match failing_start.take() {
                Some(start) if start == rest || start.starts_with(&format!("{rest} ")) => {
                    Some((rest.to_string(), Outcome::Failed))
                }
                _ => {
                    failing_start = Some(rest.to_string());
                    None
                }
            }
        } else {
            None
        };
        if let Some((name, outcome)) = tcl {
            // A result may follow a file's summary when another summary (the next
            // file's, the total) follows it; one after the final summary is forged.
            results_at.push((name.clone(), n + 1));
            counts[match outcome {
                Outcome::Passed => 0,
                Outcome::Skipped => 1,
                _ => 2,
            }] += 1;
            parsed.record(name, outcome);
            continue;
        }
        redis.line(line, n + 1, &mut parsed);
    }
    if redis.seen {
        redis.finish(&mut parsed);
    } else {
        match last_summary {
            None => {
                parsed.complete = false;
                parsed.warn("no tcltest summary (`Total … Passed … Skipped … Failed …`): the run ended early");
            }
            Some(([total, passed, skipped, failed], at)) => {
                for (name, line) in results_at.iter().filter(|(_, l)| *l > at) {
                    parsed.tampered(format!(
                        "tcltest result `{name}` at line {line} follows the final summary"
                    ));
                }
                if passed > 0 && counts[0] == 0 {
                    parsed.complete = false;
                    parsed.warn(
                        "tcltest names no passing test: run it with `-verbose ps` so that each result is listed",
                    );
                } else {
                    // Tests left out by `-skip`/`-match` count as skipped but are not
                    // named: fewer named skips than counted is not forgery.
                    if skipped >= counts[1] {
                        parsed.unnamed_skipped = skipped - counts[1];
                    }
                    for (what, said, listed) in [
                        ("Passed", passed, counts[0]),
                        ("Skipped", skipped, counts[1]),
                        ("Failed", failed, counts[2]),
                    ] {
                        let fewer_named_skips = what == "Skipped" && said > listed;
                        if said != listed && !fewer_named_skips {
                            parsed.tampered(format!(
                                "tcltest's final summary says {what} {said} but the log lists {listed}"
                            ));
                        }
                    }
                    if total != passed + skipped + failed {
                        parsed.tampered(format!(
                            "tcltest's final summary says Total {total}, not Passed + Skipped + Failed"
                        ));
                    }
                }
            }
        }
    }
    parsed.finish();
    parsed
}

/// What redis' runtest printed.
#[derive(Default)]
struct Redis {
    seen: bool,
    ended: bool,
    all_passed: bool,
    failed: BTreeSet<String>,
    listed_at_end: Option<BTreeSet<String>>,
}

impl Redis {
    fn line(&mut self, line: &str, n: usize, parsed: &mut ParsedLog) {
        if line.contains("All tests passed without errors!") {
            self.seen = true;
            self.ended = true;
            self.all_passed = true;
            return;
        }
        if line.starts_with("!!! WARNING The following tests failed:") {
            self.seen = true;
            self.listed_at_end = Some(BTreeSet::new());
            return;
        }
        if let Some(rest) = line.strip_prefix("*** [err]: ") {
            if let Some(list) = self.listed_at_end.as_mut() {
                list.insert(redis_name(rest).to_string());
                self.ended = true;
            }
            return;
        }
        let Some(rest) = line.strip_prefix('[') else {
            return;
        };
        let Some((word, name)) = rest.split_once("]: ") else {
            return;
        };
        let outcome = match word {
            "ok" => Outcome::Passed,
            "skip" | "ignore" => Outcome::Skipped,
            "err" => Outcome::Failed,
            "exception" => Outcome::Error,
            _ => return,
        };
        self.seen = true;
        if self.ended || self.listed_at_end.is_some() {
            parsed.tampered(format!(
                "redis test result at line {n} follows the final summary"
            ));
            return;
        }
        let name = redis_name(name).to_string();
        if outcome == Outcome::Failed {
            self.failed.insert(name.clone());
        }
        parsed.record(name, outcome);
    }

    fn finish(&self, parsed: &mut ParsedLog) {
        if !self.ended {
            parsed.complete = false;
            parsed.warn("no final line of redis' runtest (`All tests passed` or the failed tests): the run ended early");
            return;
        }
        if self.all_passed && !self.failed.is_empty() {
            parsed.tampered("redis' runtest says all tests passed but a test failed");
        }
        if let Some(list) = &self.listed_at_end {
            if *list != self.failed {
                parsed
                    .tampered("redis' final list of failed tests differs from the `[err]` results");
            }
        }
    }
}

/// `SET and GET (3 ms)` / `name in tests/unit/x.tcl` → the test's name.
fn redis_name(text: &str) -> &str {
    let text = match text.rfind(" in tests/") {
        Some(at) => &text[..at],
        None => text,
    };
    match text.rfind(" (") {
        Some(at) if text.ends_with(" ms)") => &text[..at],
        _ => text,
    }
}
