//! The execution backend: build images and run one script per container (or per local
//! workspace), independent of the plan types that drive it.
//!
//! The trait is closed: everything the pipeline does on a backend goes through it, and only
//! the factory (`pipeline::open_backend`) names a concrete backend. A new backend lives in
//! its own folder, implements [`Backend`], is added to the factory and to the CLI's list of
//! names, and passes the conformance suite (`runtime/tests/backend_conformance.rs`).
//!
//! Invariants every backend keeps:
//! - uploads (patches, hidden tests) are copied into a run after it is created, never baked
//!   into an image;
//! - every run is labelled with its run id and session, and is removed when it ends, also on
//!   error or timeout;
//! - a run's combined output is capped at [`LOG_CAP`] bytes, with a truncation marker.

pub mod build_log;
pub mod cache_mounts;
mod error;
mod gc;
mod log_buffer;
pub(crate) mod tar_archive;
mod types;

pub use error::BackendError;
pub use gc::{session_is_live, GcItem, GcReport, KeepImages, Ownership, BASE_IMAGE_PREFIX};
pub use log_buffer::{LogBuffer, LOG_CAP, TRUNCATION_MARKER};
pub use types::{
    ContextFile, ImageBuild, Limits, RunOutcome, RunRequest, ServiceFailure, ServiceReady,
    ServiceSpec, Upload,
};

use futures_util::future::BoxFuture;

/// Label carrying a run's id on every taskc container.
pub const RUN_LABEL: &str = "taskc.run";
/// Label carrying the session (one `taskc` invocation) on every taskc container.
pub const SESSION_LABEL: &str = "taskc.session";
/// Label marking images built by taskc (value: the content id).
pub const IMAGE_LABEL: &str = "taskc.image";

/// Where runs execute: Docker (isolated, enforced limits) or local processes (fast, trusted).
///
/// Object safe: the scheduler holds a `Box<dyn Backend>` / `Arc<dyn Backend>`.
pub trait Backend: Send + Sync {
    /// A short name for reports and errors (`docker`, `local`).
    fn name(&self) -> &'static str;

    /// Builds `build.tag` unless it already exists.
    fn ensure_image<'a>(&'a self, build: &'a ImageBuild)
        -> BoxFuture<'a, Result<(), BackendError>>;

    /// The content id of the image tagged `tag` (Docker: its image id `sha256:…`), so that
    /// ids built on it change when it is rebuilt; `None` for backends whose images do not
    /// start from an engine image (local). A missing image is [`BackendError::ImageMissing`].
    fn image_content_id<'a>(
        &'a self,
        tag: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        let _ = tag;
        Box::pin(async { Ok(None) })
    }

    /// Pulls `reference` (`name:tag`, or `name@sha256:…` to pull by digest) from its
    /// registry and returns the registry digest (`sha256:…`) the engine now holds for it;
    /// `None` for backends without engine images (local). An unreachable or refusing
    /// registry is an error.
    fn pull_image<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        let _ = reference;
        Box::pin(async { Ok(None) })
    }

    /// The registry digest the engine holds for `reference`'s repository, without pulling:
    /// `None` for an image built or imported locally (and on backends without engine
    /// images); a missing image is [`BackendError::ImageMissing`].
    fn image_registry_digest<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        let _ = reference;
        Box::pin(async { Ok(None) })
    }

    /// Gives the built image `image` the extra name `name` (`repo[:tag]`), so an agent
    /// harness can start it. A backend without named images refuses with
    /// [`BackendError::Unsupported`].
    fn tag_image<'a>(
        &'a self,
        image: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), BackendError>>;

    /// Runs `req.script` with bash in a fresh container/workspace from `req.image`, then
    /// removes it. A non-zero exit, a timeout or an OOM kill is an outcome, not an error.
    fn run<'a>(&'a self, req: &'a RunRequest) -> BoxFuture<'a, Result<RunOutcome, BackendError>>;

    /// Removes every run left by `session` (Ctrl-C cleanup); returns how many were removed.
    fn remove_session<'a>(&'a self, session: &'a str)
        -> BoxFuture<'a, Result<usize, BackendError>>;

    /// Finds what this backend left behind that `keep` does not name: runs of sessions
    /// that no longer run ([`session_is_live`]) and taskc images not in `keep` (never the
    /// base image). Removes them unless `dry_run`; objects that cannot be removed (an
    /// image in use) are reported as skipped, not as errors.
    fn gc<'a>(
        &'a self,
        keep: &'a KeepImages,
        dry_run: bool,
    ) -> BoxFuture<'a, Result<GcReport, BackendError>>;
}

/// The refusal of a backend that cannot start services beside a run: an error naming the
/// first service of `req`, or `None` when it has none.
pub(crate) fn refuse_services(backend: &'static str, req: &RunRequest) -> Option<BackendError> {
    let first = req.services.first()?;
    let names: Vec<String> = req
        .services
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect();
    Some(BackendError::Unsupported {
        backend,
        op: format!(
            "start service `{}` beside run `{}` (the task's services: {})",
            first.name,
            req.run_id,
            names.join(", ")
        ),
        help: "services run on `--backend docker` or `--backend swarm`, each on a network \
               private to its run"
            .into(),
    })
}
