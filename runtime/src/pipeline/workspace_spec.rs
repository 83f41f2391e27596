//! `workspace_spec`: everything `taskc workspace` does past its arguments, as one entry
//! point. Lower the workspace plan, export the workspaces, and with an image tag open the
//! session, build the task image and tag it. What happens is told as [`WorkspaceEvent`]s.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_workspace, LowerError};
use taskc_compiler::plan::WorkspaceMode;

use super::{
    cache_or_default, export_workspaces, open_session, tag_task_image, CheckedSpec,
    ExportedWorkspace, PipelineError, SessionOptions,
};

/// What `taskc workspace` asks besides its spec.
#[derive(Debug, Clone)]
pub struct WorkspaceSpecOptions {
    pub mode: WorkspaceMode,
    /// Folder to export into: must not exist yet, or be empty.
    pub out: PathBuf,
    /// Also build the task image and tag it so.
    pub image: Option<String>,
    /// The cache (git mirrors) and, with `image`, the session to build on.
    pub session: SessionOptions,
}

/// What happened, in the order it happened.
#[derive(Debug)]
pub enum WorkspaceEvent<'a> {
    /// One workspace was exported.
    Exported(&'a ExportedWorkspace),
    /// How the backend was chosen (`--backend auto` fell back, or local is unsandboxed).
    BackendNote(&'a str),
    /// The task image `image` was built and tagged `tag`.
    Tagged { image: &'a str, tag: &'a str },
}

/// Why the workspace (or its image) could not be made; each step's own failure.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceSpecError {
    /// The spec cannot be lowered to a workspace plan.
    #[error(transparent)]
    Lower(LowerError),
    /// The workspaces could not be exported.
    #[error(transparent)]
    Export(PipelineError),
    /// No backend opens to build the image on.
    #[error(transparent)]
    Session(PipelineError),
    /// The task image could not be built or tagged.
    #[error(transparent)]
    Tag(PipelineError),
}

/// Export `spec`'s workspaces as `opts` asks, telling `on_event` what happens.
pub async fn workspace_spec(
    spec: &CheckedSpec,
    opts: &WorkspaceSpecOptions,
    on_event: &mut (dyn FnMut(WorkspaceEvent<'_>) + Send),
) -> Result<(), WorkspaceSpecError> {
    let plan = lower_workspace(&spec.task, &spec.lower_options(), opts.mode)
        .map_err(WorkspaceSpecError::Lower)?;
    let cache = cache_or_default(opts.session.cache.as_deref());
    let exported = export_workspaces(&plan, &spec.task, &spec.dir, &spec.site, &cache, &opts.out)
        .map_err(WorkspaceSpecError::Export)?;
    for w in &exported {
        on_event(WorkspaceEvent::Exported(w));
    }
    let Some(tag) = &opts.image else {
        return Ok(());
    };
    let opened = open_session(&opts.session)
        .await
        .map_err(WorkspaceSpecError::Session)?;
    if let Some(note) = &opened.note {
        on_event(WorkspaceEvent::BackendNote(note));
    }
    let image = tag_task_image(
        &opened.session,
        &plan,
        &spec.task,
        &spec.dir,
        &spec.site,
        tag,
    )
    .await
    .map_err(WorkspaceSpecError::Tag)?;
    on_event(WorkspaceEvent::Tagged { image: &image, tag });
    Ok(())
}
