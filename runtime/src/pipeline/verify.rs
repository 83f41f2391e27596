//! `verify`: run a task's verification plan and decide its soundness.

use std::path::Path;

use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, PlanBody, PlanKind};

use super::{prepare_images, resolve_base, PipelineError, Session, Site};
use crate::exec::{Execution, Executor, Job, ResultStore};
use crate::verify::{evaluate, Verification};

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
    let image = prepare_images(session, &plan, task, spec_dir, &opts.site).await?;
    let exec = Executor {
        backend: session.backend.clone(),
        store: ResultStore::new(&session.cache, session.backend.name()),
        session: session.id.clone(),
        jobs: session.jobs,
        limits: session.limits,
        env: plan.images.environment.local.env.clone(),
        progress: session.progress.clone(),
    };
    let PlanBody::Verify { verify: vplan } = &plan.body else {
        return Err(PipelineError::PlanKind {
            expected: PlanKind::Verify,
            found: plan.kind(),
        });
    };
    let jobs: Vec<Job> = vplan.runs.iter().map(Job::verify).collect();
    let execution = exec
        .execute(&image, &plan.blobs, jobs, opts.repeat.max(1))
        .await?;
    let expects = task
        .targets()
        .filter_map(|r| r.test.as_ref().map(|t| (r.name.clone(), t.expect.clone())))
        .collect();
    let verification = evaluate(vplan, &execution.results, &expects);
    Ok(VerifyOutcome {
        plan,
        execution,
        verification,
    })
}
