//! Grading a prediction: from the results of its scoring runs and the task's oracle, each
//! target's F2P/P2P tallies and outcome, whether the task is solved, and — apart from
//! resolution — whether the result is valid at all (`docs/scoring.md`).
//!
//! A target is resolved when every F2P and P2P test passes and none is missing; the task is
//! solved when every target is resolved. A run failure the prediction can cause (its patch
//! does not apply, a timeout, an OOM kill, a crashed runner, too much output, tampering)
//! fails the target: the prediction is unsolved, with the reasons. Only an infrastructure
//! error (or missing results) makes it invalid; an invalid prediction is never solved and
//! gets no unresolved category.

pub mod attribution;
pub mod facts;
pub mod flags;
pub mod oracle;
pub mod target;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::model::TaskKind;
use taskc_compiler::plan::{short_id, ScoreMode, ScorePlan};

pub use attribution::{Attribution, Unresolved};
pub use facts::{family_of, TaskFacts};
pub use flags::{flags, Flag, FlagRule};
pub use oracle::{TargetOracle, TaskOracle};
pub use target::{Count, TargetGrade, TargetOutcome};

use crate::predictions::Prediction;
use crate::results::RunResult;
use crate::verify::merge_repetitions;

/// One scoring run of a prediction and its result, if any was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoredRun {
    /// The plan's run id.
    pub run: String,
    /// Targets whose tests this run executes.
    pub under_test: Vec<String>,
    pub result: Option<RunResult>,
}

/// A prediction's overall status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Solved,
    Unsolved,
    Invalid,
}

impl Status {
    /// `solved`, `unsolved` or `invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolved => "unsolved",
            Status::Invalid => "invalid",
        }
    }
}

/// Everything grading concludes about one prediction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PredictionGrade {
    pub task: String,
    pub model: String,
    pub mode: ScoreMode,
    /// `pred-<16 hex>` of the prediction's digest.
    pub prediction: String,
    pub kind: TaskKind,
    pub family: String,
    pub status: Status,
    /// Why the result is invalid: infrastructure errors, one line per reason with the
    /// targets it affects; empty when valid.
    pub invalid: Vec<String>,
    /// Failures the prediction caused (patch does not apply, timeout, tampered…), one line
    /// per reason with the targets it affects.
    pub failures: Vec<String>,
    /// Per target, by name.
    pub targets: BTreeMap<String, TargetGrade>,
    /// Context repositories the prediction edits (allowed, never scored).
    pub contexts_edited: Vec<String>,
    /// For a valid, unsolved prediction: which tests it misses.
    pub unresolved: Option<Unresolved>,
    /// For a valid, unsolved prediction: what its patches suggest.
    pub attribution: Option<Attribution>,
    /// Per target that did not pass: the path of the log of the run that tested it (filled
    /// by the runtime, which knows where results are stored).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub logs: BTreeMap<String, String>,
    /// Per target: the test log of the run that tested it, passed or not. In `report.json`
    /// (and the Markdown and HTML reports) a path relative to the report's folder; absent
    /// for a target whose run left no stored log.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub run_logs: BTreeMap<String, String>,
    /// Files of the prediction's patches that could rig a test run, with the rule and
    /// whether taskc reverted them (whatever the score).
    #[serde(default)]
    pub flags: Vec<Flag>,
}

impl PredictionGrade {
    pub fn solved(&self) -> bool {
        self.status == Status::Solved
    }

    pub fn valid(&self) -> bool {
        self.status != Status::Invalid
    }
}

/// Grade `prediction` of task `facts` against `oracle` from its scoring `runs`.
pub fn grade(
    facts: &TaskFacts,
    oracle: &TaskOracle,
    prediction: &Prediction,
    mode: ScoreMode,
    runs: &[ScoredRun],
) -> PredictionGrade {
    let mut targets = BTreeMap::new();
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    let mut failed: Vec<(String, Vec<String>)> = Vec::new();
    let empty = TargetOracle::default();
    for t in &facts.targets {
        let edited = prediction.touches(t);
        let run = runs.iter().find(|r| r.under_test.iter().any(|u| u == t));
        let g = match (oracle.targets.get(t), run) {
            (None, _) => TargetGrade::invalid(
                &empty,
                edited,
                format!("no oracle for `{t}`: run `taskc verify` to write the lock file"),
            ),
            (Some(o), None) => TargetGrade::invalid(
                o,
                edited,
                format!("no scoring run tests `{t}`: the plan does not match the task"),
            ),
            (Some(o), Some(r)) => target::grade_target(t, o, edited, r.result.as_ref(), &r.run),
        };
        if let Some(f) = &g.failure {
            let list = if f.is_infrastructure() {
                &mut reasons
            } else {
                &mut failed
            };
            let why = f.to_string();
            match list.iter_mut().find(|(w, _)| *w == why) {
                Some((_, ts)) => ts.push(format!("`{t}`")),
                None => list.push((why, vec![format!("`{t}`")])),
            }
        }
        targets.insert(t.clone(), g);
    }
    let lines = |v: Vec<(String, Vec<String>)>| -> Vec<String> {
        v.into_iter()
            .map(|(why, ts)| format!("{}: {why}", ts.join(", ")))
            .collect()
    };
    let (invalid, failures) = (lines(reasons), lines(failed));
    let status = if !invalid.is_empty() {
        Status::Invalid
    } else if targets.values().all(|g| g.resolved()) {
        Status::Solved
    } else {
        Status::Unsolved
    };
    let (unresolved, attribution) = match status {
        Status::Unsolved => (
            Some(attribution::unresolved(&targets)),
            Some(attribution::attribute(&targets)),
        ),
        _ => (None, None),
    };
    PredictionGrade {
        task: facts.id.clone(),
        model: prediction.model.clone(),
        mode,
        prediction: short_id("pred", &prediction.digest()),
        kind: facts.kind,
        family: facts.family(),
        status,
        invalid,
        failures,
        targets,
        contexts_edited: facts
            .contexts
            .iter()
            .filter(|c| prediction.touches(c))
            .cloned()
            .collect(),
        unresolved,
        attribution,
        logs: BTreeMap::new(),
        run_logs: BTreeMap::new(),
        flags: Vec::new(),
    }
}

/// The runs of a score plan for `prediction`, with their results looked up by
/// [`Prediction::result_key`] in `results` (repetitions merged: a test passes only if it
/// passed every time).
pub fn scored_runs(
    plan: &ScorePlan,
    prediction: &Prediction,
    results: &BTreeMap<String, Vec<RunResult>>,
) -> Vec<ScoredRun> {
    let (merged, _flaky) = merge_repetitions(results);
    plan.runs
        .iter()
        .map(|r| ScoredRun {
            run: r.id.clone(),
            under_test: vec![r.under_test.clone()],
            result: merged.get(&prediction.result_key(&r.id)).cloned(),
        })
        .collect()
}
