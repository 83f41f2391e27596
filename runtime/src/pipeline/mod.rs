//! The runtime's entry points, one per job a user runs: open a backend, build a plan's
//! images, and execute a verification (scoring and workspaces build on the same pieces).

mod at_revision;
mod backend_choice;
mod base_image;
mod base_pins;
mod build_log;
mod checked_spec;
mod gc;
mod gc_keep;
mod image_map;
mod images;
mod lock;
mod lock_record;
mod predictions_input;
mod project;
mod regrade;
mod reports;
mod run_record;
mod score;
mod score_specs;
mod selection;
mod session;
mod site;
mod timeout_multiplier;
mod verify;
mod verify_specs;
mod workspace;
mod workspace_spec;

pub use crate::backend::{session_is_live, GcItem, GcReport, BASE_IMAGE_PREFIX};
pub use crate::exec::interrupt::{watch as watch_signals, Signal};
pub use crate::exec::ProgressStyle;
pub use at_revision::{spec_at_revision, AtRevisionError, SpecAtRevision};
pub use backend_choice::{open_backend, BackendChoice};
pub use base_image::{resolve_base, resolve_existing_base};
pub use base_pins::{locked_base_digests, BasePinError};
pub use build_log::build_log_path;
pub use checked_spec::CheckedSpec;
pub use gc::{gc, GcKeep};
pub use gc_keep::{collect_garbage, keep_set, GcOptions, GcOutcome, KeepError};
pub use image_map::{resolve_named_image, ImageMap, ImageMapError, ImageSource, ResolvedImage};
pub(crate) use images::base_files;
pub use images::{prepare_images, prepare_images_and_base_files};
pub use lock::{load_oracle, lock_diagnostics, LockUseError, LockedOracle};
pub use lock_record::{lock_of, write_lock};
pub use predictions_input::{read_predictions, PredictionSource, PredictionsInput};
pub use project::{Project, ProjectError, ProjectWarning, PROJECT_FILE};
pub use regrade::{regrade, RegradeOutcome, ReuseOutcome, RunReuse};
pub use reports::write_reports;
pub use run_record::{append_run, run_index_path, PredictionsRecord, RunCommand, RunId, RunRecord};
pub use score::{score, ScoreOptions, ScoreOutcome};
pub use score_specs::{
    score_specs, ScoreEnd, ScoreEvent, ScoreSpecsError, ScoreSpecsOptions, SpecScoreError,
};
pub use selection::{glob_match, Selection};
pub use session::{cache_or_default, open_session, OpenSession, SessionOptions};
pub use site::Site;
pub use timeout_multiplier::TimeoutMultiplier;
pub use verify::{verify, VerifyOptions, VerifyOutcome};
pub use verify_specs::{
    verify_specs, OracleComparison, OracleFileError, VerifyEnd, VerifyEvent, VerifySpecsError,
    VerifySpecsOptions,
};
pub use workspace::{
    export_workspaces, tag_task_image, ExportedRepo, ExportedWorkspace, PROMPT_FILE,
};
pub use workspace_spec::{
    workspace_spec, WorkspaceEvent, WorkspaceSpecError, WorkspaceSpecOptions,
};

use std::path::PathBuf;
use std::sync::Arc;

use crate::backend::{Backend, BackendError, Limits};
use crate::exec::{ExecError, Progress};
use crate::repo::RepoError;

/// Everything one invocation shares across its jobs.
pub struct Session {
    pub backend: Arc<dyn Backend>,
    /// Results, git mirrors, materialised repositories, local images.
    pub cache: PathBuf,
    /// Label of every container this invocation starts.
    pub id: String,
    pub jobs: usize,
    pub limits: Limits,
    pub progress: Arc<Progress>,
    /// This session's record in the cache, held while it runs (gc of the cache, or of
    /// another cache on the same engine, then leaves its objects alone).
    pub record: Arc<crate::exec::SessionLock>,
}

/// Default limits of one test run: 4 GiB of memory, 2 CPUs, 4096 processes.
pub const DEFAULT_LIMITS: Limits = Limits {
    memory_bytes: Some(4 << 30),
    cpus: Some(2.0),
    pids: Some(4096),
};

/// The limits of one run when `jobs` runs share a host of `cores` CPUs (issue 20, item 4):
/// each gets `cores ÷ jobs` CPUs (a hard CFS quota on Docker and Swarm), at least one (a
/// test run below one CPU would crawl into its time limit; past that the engine's equal
/// CPU shares split what is left) and at most [`DEFAULT_LIMITS`]' two; memory and
/// processes as [`DEFAULT_LIMITS`]. So one prediction's fork bomb or CPU hog takes its own
/// share, not its neighbours' (`docs/performance.md`, "Noisy neighbours").
pub fn fair_limits(cores: usize, jobs: usize) -> Limits {
    let share = cores.max(1) as f64 / jobs.max(1) as f64;
    Limits {
        cpus: Some(share.clamp(1.0, DEFAULT_LIMITS.cpus.unwrap_or(2.0))),
        ..DEFAULT_LIMITS
    }
}

/// Why a job could not be carried out (infrastructure, not the task's soundness).
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error("building image `{tag}` failed: {detail}{excerpt}\n  full build log: {log_path}")]
    ImageBuild {
        tag: String,
        detail: String,
        /// The first error lines of the log, as a block (see `backend::build_log`).
        excerpt: String,
        log_path: String,
    },
    #[error("cannot materialise repository `{repo}`: {source}")]
    Repo {
        repo: String,
        #[source]
        source: RepoError,
    },
    #[error(transparent)]
    Ca(#[from] crate::bootstrap::ca::CaError),
    #[error(transparent)]
    ImageMap(#[from] ImageMapError),
    #[error(transparent)]
    BasePin(#[from] BasePinError),
    /// An entry point was handed a plan of another kind (a caller's bug, reported, not a
    /// panic).
    #[error("expected a {expected} plan, got a {found} plan")]
    PlanKind {
        expected: taskc_compiler::plan::PlanKind,
        found: taskc_compiler::plan::PlanKind,
    },
    #[error("cannot lower the task: {0}")]
    Lower(#[from] taskc_compiler::lower::LowerError),
    #[error("cannot render the HTML report: {detail}")]
    Report { detail: String },
    #[error(transparent)]
    Keep(Box<KeepError>),
    #[error(transparent)]
    AtRevision(Box<AtRevisionError>),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl PipelineError {
    /// Ctrl-C or SIGTERM stopped it (finished runs were kept; the command exits 130 or 143).
    pub fn is_interrupted(&self) -> bool {
        self.interrupted_by().is_some()
    }

    /// The signal that stopped it, if one did.
    pub fn interrupted_by(&self) -> Option<crate::exec::interrupt::Signal> {
        match self {
            PipelineError::Exec(ExecError::Interrupted { signal, .. }) => Some(*signal),
            _ => None,
        }
    }

    /// What to do about it (the CLI shows it as `help:`), when something is known: runtime
    /// errors carry no `help:` in their `Display`.
    pub fn hint(&self) -> Option<String> {
        match self {
            PipelineError::Backend(e) => e.hint(),
            PipelineError::Exec(e) => e.hint(),
            PipelineError::Repo { source, .. } => source.hint(),
            PipelineError::Ca(e) => e.hint(),
            PipelineError::ImageMap(e) => Some(e.hint()),
            PipelineError::BasePin(e) => Some(e.hint()),
            PipelineError::Keep(e) => e.source.hint(),
            PipelineError::AtRevision(e) => match e.as_ref() {
                AtRevisionError::Git(e) => e.hint(),
                _ => None,
            },
            PipelineError::ImageBuild { .. }
            | PipelineError::PlanKind { .. }
            | PipelineError::Lower(_)
            | PipelineError::Report { .. }
            | PipelineError::Io { .. } => None,
        }
    }
}

/// The default cache folder: `$TASKC_CACHE`, else `$XDG_CACHE_HOME/taskc`, else
/// `~/.cache/taskc`, else `.taskc-cache`.
pub fn default_cache() -> PathBuf {
    if let Some(p) = std::env::var_os("TASKC_CACHE") {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(p).join("taskc");
    }
    if let Some(p) = std::env::var_os("HOME") {
        return PathBuf::from(p).join(".cache").join("taskc");
    }
    PathBuf::from(".taskc-cache")
}

/// A fresh session id: process id and start time, unique enough for container labels.
pub fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("s{}-{:x}", std::process::id(), nanos & 0xffff_ffff)
}

#[cfg(test)]
mod fair_share_tests {
    use super::*;

    #[test]
    fn each_run_gets_cores_over_jobs_between_one_and_two_cpus() {
        assert_eq!(fair_limits(2, 2).cpus, Some(1.0));
        assert_eq!(fair_limits(2, 1).cpus, Some(2.0));
        assert_eq!(fair_limits(8, 2).cpus, Some(2.0));
        assert_eq!(fair_limits(2, 8).cpus, Some(1.0));
        assert_eq!(fair_limits(6, 4).cpus, Some(1.5));
        assert_eq!(fair_limits(2, 2).pids, DEFAULT_LIMITS.pids);
        assert_eq!(fair_limits(2, 2).memory_bytes, DEFAULT_LIMITS.memory_bytes);
    }
}
