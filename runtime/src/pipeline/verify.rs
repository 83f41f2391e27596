//! `verify`: run a task's verification plan and decide its soundness.

use std::path::Path;

use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, PlanBody, PlanKind};

use super::{prepare_images, resolve_base, PipelineError, Session, Site};
use crate::exec::{Execution, Executor, Job, ResultStore};
use crate::verify::{evaluate_targeted, phases, Verification};

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
    // Phase 2: proper subsets and `uses` checks, narrowed to the tests the oracle names.
    let narrowed = phases::phase_two(vplan, &execution.results);
    let second = exec
        .execute(
            &image,
            &plan.blobs,
            narrowed.iter().map(|n| Job::verify(&n.run)).collect(),
            1,
        )
        .await?;
    // Phase 3: the narrowed runs that cannot decide, in full.
    let full_runs: Vec<Job> =
        phases::phase_three(vplan, &execution.results, &narrowed, &second.results)
            .into_iter()
            .map(Job::verify)
            .collect();
    let third = exec.execute(&image, &plan.blobs, full_runs, repeat).await?;
    let (results, selected) = phases::assemble(
        &execution.results,
        &narrowed,
        &second.results,
        &third.results,
    );
    for e in [&second, &third] {
        execution.executed += e.executed;
        execution.cached += e.cached;
        execution.wall += e.wall;
        for (k, v) in &e.results {
            execution.results.insert(k.clone(), v.clone());
        }
    }
    let expects = task
        .targets()
        .filter_map(|r| r.test.as_ref().map(|t| (r.name.clone(), t.expect.clone())))
        .collect();
    let verification = evaluate_targeted(vplan, &results, &expects, &selected);
    Ok(VerifyOutcome {
        backend: session.backend.name().to_string(),
        plan,
        execution,
        verification,
    })
}
