//! `taskc gc --keep SPEC…`: what the kept specs need (the keep set), and the one entry point
//! that opens the backend, works the keep set out and collects the rest.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{ScoreMode, WorkspaceMode};

use super::{
    cache_or_default, gc, open_backend, resolve_existing_base, BackendChoice, CheckedSpec, GcKeep,
    GcReport, PipelineError,
};
use crate::backend::Backend;

/// Options of `taskc gc`.
#[derive(Debug, Clone)]
pub struct GcOptions {
    pub backend: BackendChoice,
    /// `None`: the default cache folder.
    pub cache: Option<PathBuf>,
    pub dry_run: bool,
}

/// What `taskc gc` did (or, dry-running, would do), and a note on the backend chosen.
#[derive(Debug)]
pub struct GcOutcome {
    pub report: GcReport,
    pub note: Option<String>,
}

/// Why the keep set of one kept spec cannot be worked out: nothing is removed then.
#[derive(Debug, thiserror::Error)]
#[error("{spec}: cannot tell what it needs ({source}); nothing was removed")]
pub struct KeepError {
    pub spec: String,
    #[source]
    pub source: PipelineError,
}

/// Open the backend, work out what the `kept` specs (their images and results stay) need, and collect everything else.
pub async fn collect_garbage(
    opts: &GcOptions,
    kept: &[CheckedSpec],
) -> Result<GcOutcome, PipelineError> {
    let cache = cache_or_default(opts.cache.as_deref());
    let (backend, note) = open_backend(opts.backend, &cache).await?;
    let keep = keep_set(backend.as_ref(), kept).await?;
    let report = gc(backend.as_ref(), &cache, &keep, opts.dry_run).await?;
    Ok(GcOutcome { report, note })
}

/// The images and results every plan of `kept` references: lowered as `plan` lowers them,
/// and with the base image's content id folded in where the backend has it.
pub async fn keep_set(
    backend: &dyn Backend,
    kept: &[CheckedSpec],
) -> Result<GcKeep, PipelineError> {
    let mut keep = GcKeep::default();
    for k in kept {
        let lower = k.lower_options();
        add_plans(&mut keep, &k.task, &lower);
        match resolve_existing_base(backend, &lower, &k.site, &k.task).await {
            Ok(Some(resolved)) => add_plans(&mut keep, &k.task, &resolved),
            Ok(None) => {}
            Err(source) => {
                return Err(PipelineError::Keep(Box::new(KeepError {
                    spec: k.name.clone(),
                    source,
                })))
            }
        }
    }
    Ok(keep)
}

/// Keep the images and results of `task`'s plans lowered with `opts`.
fn add_plans(keep: &mut GcKeep, task: &Task, opts: &LowerOptions) {
    let exhaustive = LowerOptions {
        exhaustive: true,
        ..opts.clone()
    };
    let plans = [
        lower_verify(task, opts),
        lower_verify(task, &exhaustive),
        lower_score(task, opts, ScoreMode::Joint),
        lower_score(task, opts, ScoreMode::Independent),
        lower_workspace(task, opts, WorkspaceMode::Joint),
    ];
    // Exhaustive verification may exceed the target limit: the others still count.
    for plan in plans.into_iter().flatten() {
        keep.add_plan(&plan);
    }
}
