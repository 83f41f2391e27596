//! `verify`: run a task's verification plan and decide its soundness.

use std::path::Path;

use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, PlanBody, PlanKind};

use super::{prepare_images_and_base_files, resolve_base, PipelineError, Session, Site};
use crate::exec::{Execution, Executor, Job, ResultStore};
use crate::verify::{evaluate_with_gold_docs, gold_docs, phases, Verification};

/// Options of one verification.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    pub lower: LowerOptions,
    /// Run every run this many times (≥ 1) to find flaky tests.
    pub repeat: usize,
    /// How this site fetches sources and builds images.
    pub site: Site,
}

/// The plan, what was executed, and the verdict.
#[derive(Debug, Clone)]
pub struct VerifyOutcome {
    pub plan: Plan,
    /// The backend the runs executed on (`docker` or `local`).
    pub backend: String,
    pub execution: Execution,
    pub verification: Verification,
}

/// Verify `task` (whose spec lives in `spec_dir`).
pub async fn verify(
    session: &Session,
    task: &Task,
    spec_dir: &Path,
    opts: &VerifyOptions,
) -> Result<VerifyOutcome, PipelineError> {
    let lower = resolve_base(session, &opts.lower, &opts.site, task).await?;
    let plan = lower_verify(task, &lower)?;
    let (image, base_files) =
        prepare_images_and_base_files(session, &plan, task, spec_dir, &opts.site).await?;
    let exec = Executor {
        backend: session.backend.clone(),
        store: ResultStore::new(&session.cache, session.backend.name()),
        session: session.id.clone(),
        jobs: session.jobs,
        limits: session.limits,
        env: plan.images.environment.local.env.clone(),
        progress: session.progress.clone(),
        base_files: std::sync::Arc::new(base_files),
    };
    let PlanBody::Verify { verify: vplan } = &plan.body else {
        return Err(PipelineError::PlanKind {
            expected: PlanKind::Verify,
            found: plan.kind(),
        });
    };
    let repeat = opts.repeat.max(1);
    // Phase 1: base and gold, the full suite; they fix the oracle.
    let mut execution = exec
        .execute(
            &image,
            &plan.blobs,
            vplan.runs.iter().map(Job::verify).collect(),
            repeat,
        )
        .await?;
    // Then rounds of proper subsets and `uses` checks, each chosen from every result so far
    // (narrowed to the tests the oracle names, stopping once a configuration is decided).
    let mut targeting = phases::Targeting::new(vplan, &execution.results);
    loop {
        let steps = targeting.next();
        if steps.is_empty() {
            break;
        }
        // A narrowed run is decided by one repetition; a full suite repeats like phase 1.
        let is_full = |s: &&phases::Step| matches!(s, phases::Step::Full(_));
        let batches: Vec<(Vec<Job>, usize)> = if repeat == 1 {
            vec![(steps.iter().map(|s| Job::verify(s.run())).collect(), 1)]
        } else {
            vec![
                (
                    steps
                        .iter()
                        .filter(|s| !is_full(s))
                        .map(|s| Job::verify(s.run()))
                        .collect(),
                    1,
                ),
                (
                    steps
                        .iter()
                        .filter(is_full)
                        .map(|s| Job::verify(s.run()))
                        .collect(),
                    repeat,
                ),
            ]
        };
        let mut e = Execution::default();
        for (jobs, times) in batches.into_iter().filter(|(j, _)| !j.is_empty()) {
            let part = exec.execute(&image, &plan.blobs, jobs, times).await?;
            e.executed += part.executed;
            e.cached += part.cached;
            e.wall += part.wall;
            e.results.extend(part.results);
        }
        targeting.record(&steps, &e.results);
        execution.executed += e.executed;
        execution.cached += e.cached;
        execution.wall += e.wall;
        for (k, v) in e.results {
            execution.results.insert(k, v);
        }
    }
    let (results, decisions) = targeting.assemble();
    let expects = task
        .targets()
        .filter_map(|r| r.test.as_ref().map(|t| (r.name.clone(), t.expect.clone())))
        .collect();
    let verification = evaluate_with_gold_docs(
        vplan,
        &results,
        &expects,
        &decisions,
        &gold_docs::gold_doc_items(&plan),
    );
    Ok(VerifyOutcome {
        backend: session.backend.name().to_string(),
        plan,
        execution,
        verification,
    })
}
