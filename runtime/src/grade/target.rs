//! Grading one target repository from the run that tested it.

use serde::{Deserialize, Serialize};

use super::oracle::TargetOracle;
use crate::results::{RunFailure, RunResult};

/// Passed out of total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Count {
    pub passed: usize,
    pub total: usize,
}

impl Count {
    /// Every test passed (vacuously true without tests).
    pub fn complete(self) -> bool {
        self.passed == self.total
    }
}

/// A target's outcome in one prediction, as the report colours it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetOutcome {
    /// Every F2P and P2P test passes, none missing.
    Pass,
    /// Some oracle test fails or is missing, or the run failed in a way the prediction can
    /// cause (its patch does not apply, a crash, a timeout, tampering…: see `failure`).
    Fail,
    /// The run that tests it hit an infrastructure error (or has no result).
    Invalid,
}

impl TargetOutcome {
    /// `pass`, `fail` or `invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetOutcome::Pass => "pass",
            TargetOutcome::Fail => "fail",
            TargetOutcome::Invalid => "invalid",
        }
    }
}

/// One target's grade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetGrade {
    pub outcome: TargetOutcome,
    /// Whether the prediction has a (non-blank) patch for it.
    pub edited: bool,
    /// Why the run that tests it failed: an infrastructure error makes the target
    /// `invalid`; any other failure makes it `fail`.
    pub failure: Option<RunFailure>,
    /// F2P tests passed / total. A failed or invalid target counts 0 passed.
    pub f2p: Count,
    /// P2P tests passed / total. An invalid target counts 0 passed.
    pub p2p: Count,
    /// Oracle tests the valid run did not report (they count as not passed).
    pub missing: Vec<String>,
    /// F2P tests reported but not passing.
    pub failed_f2p: Vec<String>,
    /// P2P tests reported but not passing.
    pub failed_p2p: Vec<String>,
}

impl TargetGrade {
    /// Resolved: valid, every F2P and P2P test passes, none missing.
    pub fn resolved(&self) -> bool {
        self.outcome == TargetOutcome::Pass
    }

    /// The run completed and every F2P test passes.
    pub fn f2p_complete(&self) -> bool {
        self.failure.is_none() && self.f2p.complete()
    }

    /// The run completed and every P2P test passes.
    pub fn p2p_preserved(&self) -> bool {
        self.failure.is_none() && self.p2p.complete()
    }

    /// An invalid grade (infrastructure) with `reason`; totals from the oracle, nothing passed.
    pub fn invalid(oracle: &TargetOracle, edited: bool, reason: String) -> TargetGrade {
        TargetGrade::failed(oracle, edited, RunFailure::error(reason))
    }

    /// The grade of a target whose run failed: `invalid` for an infrastructure error,
    /// `fail` otherwise; totals from the oracle, nothing passed.
    pub fn failed(oracle: &TargetOracle, edited: bool, failure: RunFailure) -> TargetGrade {
        TargetGrade {
            outcome: if failure.is_infrastructure() {
                TargetOutcome::Invalid
            } else {
                TargetOutcome::Fail
            },
            edited,
            failure: Some(failure),
            f2p: Count {
                passed: 0,
                total: oracle.f2p.len(),
            },
            p2p: Count {
                passed: 0,
                total: oracle.p2p.len(),
            },
            missing: vec![],
            failed_f2p: vec![],
            failed_p2p: vec![],
        }
    }
}

/// Grade `target` from `result`, the run that tested it.
pub fn grade_target(
    target: &str,
    oracle: &TargetOracle,
    edited: bool,
    result: Option<&RunResult>,
    run: &str,
) -> TargetGrade {
    let Some(result) = result else {
        return TargetGrade::invalid(
            oracle,
            edited,
            format!("missing results: run {run} has no stored result"),
        );
    };
    if let Some(failure) = &result.failure {
        return TargetGrade::failed(oracle, edited, failure.clone());
    }
    let Some(tests) = result.repos.get(target) else {
        return TargetGrade::invalid(
            oracle,
            edited,
            format!("missing results: run {run} reported nothing for `{target}`"),
        );
    };
    let mut missing = Vec::new();
    let mut tally = |ids: &[String], failed: &mut Vec<String>| {
        let mut c = Count {
            passed: 0,
            total: ids.len(),
        };
        for id in ids {
            match tests.tests.get(id) {
                Some(o) if o.is_pass() => c.passed += 1,
                Some(_) => failed.push(id.clone()),
                None => missing.push(id.clone()),
            }
        }
        c
    };
    let (mut failed_f2p, mut failed_p2p) = (Vec::new(), Vec::new());
    let f2p = tally(&oracle.f2p, &mut failed_f2p);
    let p2p = tally(&oracle.p2p, &mut failed_p2p);
    let outcome = if f2p.complete() && p2p.complete() && missing.is_empty() {
        TargetOutcome::Pass
    } else {
        TargetOutcome::Fail
    };
    TargetGrade {
        outcome,
        edited,
        failure: None,
        f2p,
        p2p,
        missing,
        failed_f2p,
        failed_p2p,
    }
}
