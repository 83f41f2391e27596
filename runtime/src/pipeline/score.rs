//! `score`: run a task's scoring plan once per prediction, in fresh containers from the
//! task image, and grade every prediction against the task's oracle.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::lower::{lower_score, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{PlanBody, PlanKind, ScoreMode};

use super::{prepare_images_and_base_files, resolve_base, PipelineError, Session, Site};
use crate::exec::{Execution, Executor, Job, ResultStore};
use crate::grade::{flags, grade, scored_runs, PredictionGrade, ScoredRun, TaskFacts, TaskOracle};
use crate::predictions::{dedup, Duplicate, Prediction};

/// Options of one scoring.
#[derive(Debug, Clone)]
pub struct ScoreOptions {
    pub lower: LowerOptions,
    pub mode: ScoreMode,
    /// Ignore stored results of runs that were invalid, and run them again.
    pub rerun_invalid: bool,
    /// How this site fetches sources and builds images.
    pub site: Site,
}

/// The grades, and what was executed.
#[derive(Debug, Clone)]
pub struct ScoreOutcome {
    pub grades: Vec<PredictionGrade>,
    pub execution: Execution,
    /// Prediction lines not scored because an earlier one has the same task and model.
    pub duplicates: Vec<Duplicate>,
}

/// Score `predictions` (all for `task`, whose spec lives in `spec_dir`) against `oracle`.
pub async fn score(
    session: &Session,
    task: &Task,
    spec_dir: &Path,
    oracle: &TaskOracle,
    predictions: &[Prediction],
    opts: &ScoreOptions,
) -> Result<ScoreOutcome, PipelineError> {
    let (predictions, duplicates) = dedup(predictions);
    let predictions = &predictions[..];
    let lower = resolve_base(session, &opts.lower, &opts.site, task).await?;
    let plan = lower_score(task, &lower, opts.mode)?;
    let (image, base_files) =
        prepare_images_and_base_files(session, &plan, task, spec_dir, &opts.site).await?;
    let store = ResultStore::new(&session.cache, session.backend.name());
    let PlanBody::Score { score: splan } = &plan.body else {
        return Err(PipelineError::PlanKind {
            expected: PlanKind::Score,
            found: plan.kind(),
        });
    };
    let mut jobs = Vec::new();
    for p in predictions {
        for r in &splan.runs {
            let job = Job {
                run: r.clone(),
                prediction: Some(p.short_id()),
                predictions: p.patches.clone(),
                untrusted: !p.is_baseline(task),
            };
            let key = job.key(0);
            if opts.rerun_invalid && store.get(&key).is_some_and(|res| !res.is_valid()) {
                store.forget(&key).map_err(|source| PipelineError::Io {
                    what: format!("cannot remove the stored invalid result {key}"),
                    source,
                })?;
            }
            jobs.push(job);
        }
    }
    let exec = Executor {
        backend: session.backend.clone(),
        store,
        session: session.id.clone(),
        jobs: session.jobs,
        limits: session.limits,
        env: plan.images.environment.local.env.clone(),
        progress: session.progress.clone(),
        base_files: std::sync::Arc::new(base_files),
    };
    let execution = exec.execute(&image, &plan.blobs, jobs, 1).await?;
    let facts = TaskFacts::from(task);
    let grades = predictions
        .iter()
        .map(|p| {
            let runs = scored_runs(splan, p, &execution.results);
            let mut g = grade(&facts, oracle, p, opts.mode, &runs);
            g.logs = failing_target_logs(&g, &runs);
            g.run_logs = target_logs(&runs);
            g.flags = flags(p, &plan);
            g
        })
        .collect();
    Ok(ScoreOutcome {
        grades,
        execution,
        duplicates,
    })
}

/// The log of the run that tested each target of `g` that did not pass: the target's own
/// test log when stored, else the run's script output (absolute paths, as stored).
pub(super) fn failing_target_logs(
    g: &PredictionGrade,
    runs: &[ScoredRun],
) -> BTreeMap<String, String> {
    target_logs(runs)
        .into_iter()
        .filter(|(t, _)| g.targets.get(t).is_some_and(|t| !t.resolved()))
        .collect()
}

/// Per target, the log of the run that tested it: its own test log when stored, else the
/// run's script output (absolute paths, as the result store recorded them); a target whose
/// run left no log file is left out.
pub(super) fn target_logs(runs: &[ScoredRun]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for run in runs {
        let Some(result) = &run.result else { continue };
        for target in &run.under_test {
            let log = [target.as_str(), "run"]
                .iter()
                .filter_map(|name| result.logs.get(*name))
                .find(|path| Path::new(path).is_file());
            if let Some(log) = log {
                out.insert(target.clone(), log.clone());
            }
        }
    }
    out
}
