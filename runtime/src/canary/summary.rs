//! What the canaries of a set of runs showed, per repository: `verify` prints it, so every
//! task shows that the mechanism works on it (or says why it cannot be placed).

use std::collections::BTreeMap;

use serde::Serialize;

use super::CanaryCheck;
use crate::results::RunResult;

/// One repository's canary record over many runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CanarySummary {
    /// Runs that tested the repository.
    pub runs: usize,
    /// Runs whose canaries had their outcomes.
    pub checked: usize,
    /// Runs whose canary files did not run (collection or build errors).
    pub not_run: usize,
    /// Runs whose canaries were wrong or missing.
    pub tampered: usize,
    /// Runs stored before taskc placed canaries.
    pub unrecorded: usize,
    /// Why canaries cannot be placed, when they cannot.
    pub not_placed: Option<String>,
    /// Hidden test files that could hold no canary, and why (a `#![cfg(loom)]` file).
    #[serde(skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub skipped: std::collections::BTreeSet<String>,
}

impl CanarySummary {
    /// `checked in 3/4 runs (1 did not run)` or `not placed: why`.
    pub fn text(&self) -> String {
        if let Some(why) = &self.not_placed {
            return format!("not placed: {why}");
        }
        let mut s = format!("checked in {}/{} runs", self.checked, self.runs);
        let mut extra = Vec::new();
        if self.not_run > 0 {
            extra.push(format!("{} did not run their canary files", self.not_run));
        }
        if self.tampered > 0 {
            extra.push(format!("{} TAMPERED", self.tampered));
        }
        if self.unrecorded > 0 {
            extra.push(format!(
                "{} stored before canaries: re-run with a fresh cache to check them",
                self.unrecorded
            ));
        }
        if !extra.is_empty() {
            s.push_str(&format!(" ({})", extra.join(", ")));
        }
        for why in &self.skipped {
            s.push_str(&format!("; no canary: {why}"));
        }
        s
    }
}

/// Summarise the canaries of `results` (every repetition of every run) per repository.
pub fn summarise(results: &BTreeMap<String, Vec<RunResult>>) -> BTreeMap<String, CanarySummary> {
    let mut out: BTreeMap<String, CanarySummary> = BTreeMap::new();
    for r in results.values().flatten() {
        for (repo, tests) in &r.repos {
            let s = out.entry(repo.clone()).or_default();
            s.runs += 1;
            match &tests.canaries {
                Some(CanaryCheck::Checked { skipped, .. }) => {
                    s.checked += 1;
                    s.skipped.extend(skipped.iter().cloned());
                }
                Some(CanaryCheck::NotRun { .. }) => s.not_run += 1,
                Some(CanaryCheck::Tampered { .. }) => s.tampered += 1,
                Some(CanaryCheck::NotPlaced { why }) => s.not_placed = Some(why.clone()),
                None => s.unrecorded += 1,
            }
        }
    }
    out
}
