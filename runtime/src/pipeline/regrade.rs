//! `regrade`: grade a task's predictions against the current lock from the results an
//! earlier `score` stored, running nothing (`taskc score --regrade`, issue 23).
//!
//! Which stored result stands for a run of the current plan, per prediction and run:
//!
//! 1. the result stored under the run's own key (the run's id is unchanged): reused;
//! 2. else a result of the same prediction whose run *executed* the same thing
//!    ([`Executed`]: image, patches applied, hidden tests, command, parser, time limit,
//!    selection, services — everything but the tests relaxations `drop`, which only grading
//!    reads) under another run id: reused, and said so;
//! 3. else nothing: the run is "not reusable" with the reason (what changed since the
//!    stored run of that prediction and target, or that there is none), and its target is
//!    graded invalid with that reason. Nothing runs; `taskc score` without `--regrade` runs it.
//!
//! No result is written, moved or removed: the store is only read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::lower::lower_score;
use taskc_compiler::model::Task;
use taskc_compiler::plan::{PlanBody, PlanKind, ScoreMode};

use super::{resolve_base, PipelineError, ScoreOptions, Session};
use crate::exec::{ResultKey, ResultStore};
use crate::grade::{flags, grade, scored_runs, PredictionGrade, TaskFacts, TaskOracle};
use crate::predictions::{dedup, Duplicate, Prediction};
use crate::results::{Executed, RunFailure, RunResult, RESULT_SCHEMA};

/// How one run of one prediction was regraded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunReuse {
    pub task: String,
    pub model: String,
    pub mode: ScoreMode,
    /// `pred-<16 hex>`.
    pub prediction: String,
    /// The target the run tests.
    pub target: String,
    /// The current plan's run id.
    pub run: String,
    #[serde(flatten)]
    pub outcome: ReuseOutcome,
}

/// Whether a stored result stood for the run, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reuse", rename_all = "kebab-case")]
pub enum ReuseOutcome {
    /// The result stored under the run's own key.
    SameRun {
        /// The stored result's key (`<run>-<prediction>.<repetition>`).
        result: String,
    },
    /// The result of another run id that executed the same thing: only what grading reads
    /// (the tests relaxations drop) changed.
    SameExecution { result: String },
    /// No stored result stands for the run.
    NotReusable { reason: String },
}

impl RunReuse {
    /// Whether a stored result was reused.
    pub fn reused(&self) -> bool {
        !matches!(self.outcome, ReuseOutcome::NotReusable { .. })
    }

    /// One line for the terminal: `<task> <mode> <model> (<prediction>) <target>: …`.
    pub fn line(&self) -> String {
        let what = match &self.outcome {
            ReuseOutcome::SameRun { result } => format!("reused {result} (the same run)"),
            ReuseOutcome::SameExecution { result } => format!(
                "reused {result} (the same executed inputs; only the dropped tests, which \
                 grading alone reads, changed)"
            ),
            ReuseOutcome::NotReusable { reason } => format!("not reusable: {reason}"),
        };
        format!(
            "{} {} {} ({}) `{}`: {what}",
            self.task,
            crate::report::mode_str(self.mode),
            self.model,
            self.prediction,
            self.target
        )
    }
}

/// The grades and how every run was regraded.
#[derive(Debug, Clone)]
pub struct RegradeOutcome {
    pub grades: Vec<PredictionGrade>,
    /// Per prediction and run of the plan, in order.
    pub reuse: Vec<RunReuse>,
    /// Prediction lines not graded because an earlier one has the same task and model.
    pub duplicates: Vec<Duplicate>,
}

/// Grade `predictions` (all for `task`) against `oracle` from stored results only.
pub async fn regrade(
    session: &Session,
    task: &Task,
    oracle: &TaskOracle,
    predictions: &[Prediction],
    opts: &ScoreOptions,
) -> Result<RegradeOutcome, PipelineError> {
    let (predictions, duplicates) = dedup(predictions);
    // The base image's content id enters every run id: read from the engine, never built.
    let lower = resolve_base(session, &opts.lower, &opts.site, task).await?;
    let plan = lower_score(task, &lower, opts.mode)?;
    let PlanBody::Score { score: splan } = &plan.body else {
        return Err(PipelineError::PlanKind {
            expected: PlanKind::Score,
            found: plan.kind(),
        });
    };
    let store = ResultStore::new(&session.cache, session.backend.name());
    let mut results: BTreeMap<String, Vec<RunResult>> = BTreeMap::new();
    let mut reuse = Vec::new();
    for p in &predictions {
        let pid = p.short_id();
        let stored = store.scored_results(&pid);
        for r in &splan.runs {
            let key = ResultKey::score(&r.id, &pid, 0);
            let (result, outcome) = find(
                &store,
                session.backend.name(),
                &key,
                &Executed::of(r),
                &r.under_test,
                &stored,
            );
            results.insert(key.subject(), vec![result]);
            reuse.push(RunReuse {
                task: task.id.clone(),
                model: p.model.clone(),
                mode: opts.mode,
                prediction: pid.clone(),
                target: r.under_test.clone(),
                run: r.id.clone(),
                outcome,
            });
        }
    }
    let facts = TaskFacts::from(task);
    let grades = predictions
        .iter()
        .map(|p| {
            let runs = scored_runs(splan, p, &results);
            let mut g = grade(&facts, oracle, p, opts.mode, &runs);
            g.logs = super::score::failing_target_logs(&g, &runs);
            g.run_logs = super::score::target_logs(&runs);
            g.flags = flags(p, &plan);
            g
        })
        .collect();
    Ok(RegradeOutcome {
        grades,
        reuse,
        duplicates,
    })
}

/// The stored result standing for run `key` (which executes `want` and tests `target`),
/// among `stored` (the prediction's stored results of `backend`), and how it was found; or
/// a result that is not stored anywhere, invalid with the reason.
fn find(
    store: &ResultStore,
    backend: &str,
    key: &ResultKey,
    want: &Executed,
    target: &str,
    stored: &[(ResultKey, RunResult)],
) -> (RunResult, ReuseOutcome) {
    if let Some(r) = store.get(key) {
        let result = key.to_string();
        return (r, ReuseOutcome::SameRun { result });
    }
    let tests_target = |r: &RunResult| match &r.executed {
        Some(e) => e.run.under_test == target,
        // Stored before runs recorded what they executed: the tested repository is the
        // one its results are of.
        None => r.repos.contains_key(target),
    };
    let same: Vec<&(ResultKey, RunResult)> = stored
        .iter()
        .filter(|(_, r)| r.executed.as_ref().is_some_and(|e| e.digest == want.digest))
        .collect();
    // A valid result first: an infrastructure error says nothing about the prediction.
    if let Some((k, r)) = same
        .iter()
        .find(|(_, r)| r.is_valid())
        .or_else(|| same.first())
    {
        let result = k.to_string();
        return (r.clone(), ReuseOutcome::SameExecution { result });
    }
    let closest = stored
        .iter()
        .filter(|(_, r)| tests_target(r))
        .filter_map(|(k, r)| Some((k, r.executed.as_ref()?.differences(want))))
        .min_by_key(|(_, d)| d.len());
    let reason = match closest {
        Some((k, diffs)) => format!(
            "the run's executed inputs changed since the stored run {k}: {}",
            diffs.join("; ")
        ),
        None => match stored.iter().find(|(_, r)| tests_target(r)) {
            Some((k, _)) => format!(
                "the stored run {k} was stored before taskc recorded what a run executes, \
                 so it cannot be matched to this run"
            ),
            None => format!(
                "no result of this prediction testing `{target}` is stored in this cache \
                 for this backend"
            ),
        },
    };
    let invalid = RunResult {
        schema: RESULT_SCHEMA.to_string(),
        run: key.subject(),
        backend: backend.to_string(),
        failure: Some(RunFailure::error(format!(
            "not regraded: {reason}; `taskc score` without `--regrade` runs it"
        ))),
        repos: BTreeMap::new(),
        wall_ms: 0,
        logs: BTreeMap::new(),
        executed: None,
    };
    (invalid, ReuseOutcome::NotReusable { reason })
}
