//! The normalised result of parsing one test log, shared by every parser.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What happened to one test.
///
/// Ordered from best to worst: when a log reports the same id twice, the worst
/// outcome wins (see [`ParsedLog::record`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The test ran and passed.
    Passed,
    /// The test was skipped (or is a TODO); it does not count as passing.
    Skipped,
    /// The test ran and failed.
    Failed,
    /// The test errored or crashed (setup error, panic outside an assertion,
    /// build failure); it does not count as passing.
    Error,
}

impl Outcome {
    /// True only for [`Outcome::Passed`].
    pub fn is_pass(self) -> bool {
        self == Outcome::Passed
    }
}

/// One test and its outcome, as stored in [`ParsedLog::tests`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestResult {
    /// Normalised id, `file::class::name` (see each parser's module docs).
    pub id: String,
    /// What happened to it.
    pub outcome: Outcome,
}

/// Everything a parser learnt from one log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ParsedLog {
    /// Every test id with its (worst) outcome, sorted by id.
    pub tests: BTreeMap<String, Outcome>,
    /// Ids reported more than once, each listed once, sorted.
    pub duplicates: Vec<String>,
    /// Things the parser noticed but could not use (human readable).
    pub warnings: Vec<String>,
    /// False when the log ends mid-run (no final summary, unfinished package,
    /// fewer TAP results than planned…): the runtime treats such a run as invalid.
    pub complete: bool,
    /// Tests the log counts as skipped without naming them (pytest's grouped
    /// `SKIPPED [N] file:line: reason` lines).
    pub unnamed_skipped: usize,
    /// Evidence that the log was forged (results printed after the runner's final line, a
    /// final line whose counts disagree with the listed results…), each a human-readable
    /// line; the runtime marks such a run `tampered` (`docs/security.md`, defence 5).
    pub tampering: Vec<String>,
}

impl Outcome {
    /// The lowercase name used in reports (`passed`, `skipped`, `failed`, `error`).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Skipped => "skipped",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A readable listing: completeness, one `outcome  id` line per test, then
/// duplicates and warnings.
impl std::fmt::Display for ParsedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "complete: {}", self.complete)?;
        writeln!(f, "tests ({}):", self.tests.len())?;
        for (id, outcome) in &self.tests {
            writeln!(f, "  {:<7} {id}", outcome.as_str())?;
        }
        if !self.duplicates.is_empty() {
            writeln!(f, "duplicates:")?;
            for id in &self.duplicates {
                writeln!(f, "  {id}")?;
            }
        }
        if !self.warnings.is_empty() {
            writeln!(f, "warnings:")?;
            for warning in &self.warnings {
                writeln!(f, "  {warning}")?;
            }
        }
        if !self.tampering.is_empty() {
            writeln!(f, "tampering:")?;
            for t in &self.tampering {
                writeln!(f, "  {t}")?;
            }
        }
        Ok(())
    }
}

impl ParsedLog {
    /// An empty, complete log.
    pub fn new() -> Self {
        ParsedLog {
            complete: true,
            ..ParsedLog::default()
        }
    }

    /// Records one result; a repeated id keeps the worst outcome and is listed
    /// in [`ParsedLog::duplicates`].
    pub fn record(&mut self, id: impl Into<String>, outcome: Outcome) {
        let id = id.into();
        if let Some(old) = self.tests.get_mut(&id) {
            *old = (*old).max(outcome);
            self.duplicates.push(id);
        } else {
            self.tests.insert(id, outcome);
        }
    }

    /// Records evidence of a forged log (at most 20 lines are kept).
    pub fn tampered(&mut self, evidence: impl Into<String>) {
        if self.tampering.len() < 20 {
            self.tampering.push(evidence.into());
        }
    }

    /// Adds a warning.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.warnings.push(message.into());
    }

    /// The tests as a list of [`TestResult`], sorted by id.
    pub fn results(&self) -> Vec<TestResult> {
        self.tests
            .iter()
            .map(|(id, outcome)| TestResult {
                id: id.clone(),
                outcome: *outcome,
            })
            .collect()
    }

    /// Rewrites ids that start with `root` followed by `/` (an absolute path
    /// printed by the test runner) to be relative to `root`.
    pub fn strip_root(&mut self, root: &str) {
        let root = root.trim_end_matches('/');
        if root.is_empty() {
            return;
        }
        let prefix = format!("{root}/");
        let strip = |id: String| match id.strip_prefix(&prefix) {
            Some(rest) => rest.to_string(),
            None => id,
        };
        let tests = std::mem::take(&mut self.tests);
        let mut rebuilt = ParsedLog::new();
        for (id, outcome) in tests {
            rebuilt.record(strip(id), outcome);
        }
        self.tests = rebuilt.tests;
        self.duplicates = std::mem::take(&mut self.duplicates)
            .into_iter()
            .map(strip)
            .chain(rebuilt.duplicates)
            .collect();
        self.finish();
    }

    /// Sorts and de-duplicates [`ParsedLog::duplicates`]; every parser calls it last.
    pub(crate) fn finish(&mut self) {
        self.duplicates.sort_unstable();
        self.duplicates.dedup();
    }
}
