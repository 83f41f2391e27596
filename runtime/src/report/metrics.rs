//! Metrics over a set of graded predictions, as WideSWE reports them.
//!
//! Counting policy (`docs/scoring.md`): every denominator counts every prediction (or
//! target) including invalid ones; an invalid result (an infrastructure error) is never a
//! pass, so it lowers every success rate, and it is also counted in its own column
//! (`invalid`). A failure the prediction caused (its patch does not apply, a timeout,
//! tampering…) is unsolved, counted in `failures` by kind, and never excluded. A target of
//! a failed or invalid run counts 0 passed tests. `valid_case_success` gives the rate among
//! valid results only, for comparison.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ratio::Ratio;
use crate::failure::FAILURE_KINDS;
use crate::grade::{Attribution, PredictionGrade, Status, TargetOutcome, Unresolved};

/// Figures over one group of predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub predictions: usize,
    pub solved: usize,
    pub unsolved: usize,
    pub invalid: usize,
    /// Solved predictions / all predictions.
    pub case_success: Ratio,
    /// Solved predictions / valid predictions.
    pub valid_case_success: Ratio,
    /// Invalid predictions / all predictions.
    pub invalid_rate: Ratio,
    /// Resolved targets / all targets (of all predictions).
    pub repo_success: Ratio,
    /// Targets passing every F2P test / targets that have F2P tests.
    pub f2p_complete: Ratio,
    /// Targets passing every P2P test / targets that have P2P tests.
    pub p2p_preserved: Ratio,
    /// Passing F2P tests / all F2P tests.
    pub f2p_test_pass: Ratio,
    /// Passing P2P tests / all P2P tests.
    pub p2p_test_pass: Ratio,
    /// Invalid targets (their run invalid or without result).
    pub invalid_targets: usize,
    /// Valid unsolved predictions per category (every category listed).
    pub unresolved: BTreeMap<String, usize>,
    /// Valid unsolved predictions per attribution (every attribution listed).
    pub attribution: BTreeMap<String, usize>,
    /// Predictions with a target whose run failed, per failure kind (every kind listed;
    /// `error` counts the invalid ones). A prediction counts once per kind.
    pub failures: BTreeMap<String, usize>,
}

/// The metric names shown with `data-metric` in the HTML report, with their labels.
pub const RATE_METRICS: &[(&str, &str)] = &[
    ("case_success", "Case success"),
    ("repo_success", "Repository success"),
    ("f2p_complete", "F2P-complete"),
    ("p2p_preserved", "P2P-preserved"),
    ("f2p_test_pass", "F2P test pass rate"),
    ("p2p_test_pass", "P2P test pass rate"),
    ("valid_case_success", "Case success among valid"),
    ("invalid_rate", "Invalid"),
];

impl Metrics {
    /// Compute the metrics of `grades`.
    pub fn of<'a>(grades: impl IntoIterator<Item = &'a PredictionGrade>) -> Metrics {
        let (mut n, mut solved, mut invalid) = (0, 0, 0);
        let (mut targets, mut resolved, mut bad_targets) = (0, 0, 0);
        let (mut f2p_has, mut f2p_ok, mut p2p_has, mut p2p_ok) = (0, 0, 0, 0);
        let (mut f2p_pass, mut f2p_all, mut p2p_pass, mut p2p_all) = (0, 0, 0, 0);
        let mut unresolved: BTreeMap<String, usize> = Unresolved::ALL
            .iter()
            .map(|u| (u.as_str().to_string(), 0))
            .collect();
        let mut attribution: BTreeMap<String, usize> = Attribution::ALL
            .iter()
            .map(|a| (a.as_str().to_string(), 0))
            .collect();
        let mut failures: BTreeMap<String, usize> =
            FAILURE_KINDS.iter().map(|k| (k.to_string(), 0)).collect();
        for g in grades {
            n += 1;
            let mut kinds: Vec<&str> = g
                .targets
                .values()
                .filter_map(|t| t.failure.as_ref().map(|f| f.kind()))
                .collect();
            kinds.sort_unstable();
            kinds.dedup();
            for k in kinds {
                *failures.entry(k.to_string()).or_default() += 1;
            }
            match g.status {
                Status::Solved => solved += 1,
                Status::Invalid => invalid += 1,
                Status::Unsolved => {}
            }
            if let Some(u) = g.unresolved {
                *unresolved.entry(u.as_str().to_string()).or_default() += 1;
            }
            if let Some(a) = g.attribution {
                *attribution.entry(a.as_str().to_string()).or_default() += 1;
            }
            for t in g.targets.values() {
                targets += 1;
                resolved += usize::from(t.resolved());
                bad_targets += usize::from(t.outcome == TargetOutcome::Invalid);
                if t.f2p.total > 0 {
                    f2p_has += 1;
                    f2p_ok += usize::from(t.f2p_complete());
                }
                if t.p2p.total > 0 {
                    p2p_has += 1;
                    p2p_ok += usize::from(t.p2p_preserved());
                }
                f2p_pass += t.f2p.passed;
                f2p_all += t.f2p.total;
                p2p_pass += t.p2p.passed;
                p2p_all += t.p2p.total;
            }
        }
        Metrics {
            predictions: n,
            solved,
            unsolved: n - solved - invalid,
            invalid,
            case_success: Ratio::new(solved, n),
            valid_case_success: Ratio::new(solved, n - invalid),
            invalid_rate: Ratio::new(invalid, n),
            repo_success: Ratio::new(resolved, targets),
            f2p_complete: Ratio::new(f2p_ok, f2p_has),
            p2p_preserved: Ratio::new(p2p_ok, p2p_has),
            f2p_test_pass: Ratio::new(f2p_pass, f2p_all),
            p2p_test_pass: Ratio::new(p2p_pass, p2p_all),
            invalid_targets: bad_targets,
            unresolved,
            attribution,
            failures,
        }
    }

    /// The rate named `name` (one of [`RATE_METRICS`]).
    pub fn rate(&self, name: &str) -> Option<Ratio> {
        Some(match name {
            "case_success" => self.case_success,
            "repo_success" => self.repo_success,
            "f2p_complete" => self.f2p_complete,
            "p2p_preserved" => self.p2p_preserved,
            "f2p_test_pass" => self.f2p_test_pass,
            "p2p_test_pass" => self.p2p_test_pass,
            "valid_case_success" => self.valid_case_success,
            "invalid_rate" => self.invalid_rate,
            _ => return None,
        })
    }
}
