//! The requests and outcomes a [`super::Backend`] speaks, free of plan types.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One file of an image build context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Relative path inside the context (`/`-separated, no `..`).
    pub path: String,
    pub bytes: Vec<u8>,
    /// Unix permission bits, e.g. `0o644`.
    pub mode: u32,
    /// Modification time, seconds since the epoch (fixed by the caller, never the clock:
    /// `0` is 1970, which ZIP-based builds refuse).
    pub mtime: i64,
}

/// An image to build, identified by a content-addressed tag.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImageBuild {
    /// The image tag; a content id, so an existing tag means "already built".
    pub tag: String,
    /// The Dockerfile text (Docker backend).
    pub dockerfile: String,
    /// Files sent as the build context (both backends materialise them).
    pub context: Vec<ContextFile>,
    pub labels: BTreeMap<String, String>,
    /// Local backend: shell commands run once in the image folder to prepare it.
    pub local_setup: Vec<String>,
    /// Local backend: programs that must be on `PATH`.
    pub local_requires: Vec<String>,
}

/// A file copied into a run after it is created (patches, hidden tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    /// Absolute path inside the container, e.g. `/work/gold.patch`.
    pub path: String,
    pub bytes: Vec<u8>,
    pub mode: u32,
}

/// Resource limits of one run; `None` means "backend default / unlimited".
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Limits {
    pub memory_bytes: Option<u64>,
    pub cpus: Option<f64>,
    pub pids: Option<i64>,
}

/// One script to run in a fresh container from `image`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    pub image: String,
    /// Unique id of this run (becomes the `taskc.run` label and part of the name).
    pub run_id: String,
    /// The session (one taskc invocation), for Ctrl-C cleanup.
    pub session: String,
    pub uploads: Vec<Upload>,
    /// Executed as `bash -euo pipefail -c <script>`.
    pub script: String,
    /// Absolute working directory inside the container.
    pub workdir: String,
    /// Extra environment variables.
    pub env: BTreeMap<String, String>,
    pub timeout: Duration,
    pub limits: Limits,
    /// `false` for test runs: no network at all (but the run's private network to its
    /// `services`, when it has any).
    pub network: bool,
    /// Services started fresh beside the run, reachable only from it, removed with it.
    pub services: Vec<ServiceSpec>,
    /// Absolute container paths (files or folders) read back after the run.
    pub collect: Vec<String>,
    /// Where to stream the run's output (stdout and stderr as the process wrote them), as
    /// it arrives; `None` keeps it in [`RunOutcome::log`]. Either way it is capped at
    /// [`super::LOG_CAP`] and the run is stopped beyond.
    pub log_to: Option<PathBuf>,
    /// The script applies patches that are not the spec's own (a prediction other than the
    /// `gold`/`empty` baselines): an agent's code runs. A backend that cannot isolate it
    /// (the local backend without bubblewrap) refuses the run.
    pub untrusted: bool,
}

impl RunRequest {
    /// Checks every container path of the request (uploads, collect, workdir) with
    /// [`check_container_path`].
    pub(crate) fn check_paths(&self) -> Result<(), super::BackendError> {
        self.uploads
            .iter()
            .map(|u| u.path.as_str())
            .chain(self.collect.iter().map(String::as_str))
            .chain(std::iter::once(self.workdir.as_str()))
            .try_for_each(check_container_path)
            .map_err(|detail| super::BackendError::InvalidRequest {
                run_id: self.run_id.clone(),
                detail,
            })
    }

    /// A request with no uploads, no limits, no network, a 10 minute timeout and `/` as workdir.
    pub fn new(
        image: impl Into<String>,
        run_id: impl Into<String>,
        session: impl Into<String>,
        script: impl Into<String>,
    ) -> RunRequest {
        RunRequest {
            image: image.into(),
            run_id: run_id.into(),
            session: session.into(),
            uploads: Vec::new(),
            script: script.into(),
            workdir: "/".into(),
            env: BTreeMap::new(),
            timeout: Duration::from_secs(600),
            limits: Limits::default(),
            network: false,
            services: Vec::new(),
            collect: Vec::new(),
            log_to: None,
            untrusted: false,
        }
    }
}

/// What happened in a run. Non-zero exits, timeouts and OOM kills are outcomes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunOutcome {
    /// `None` when the process was killed (timeout) and no code is known.
    pub exit_code: Option<i64>,
    /// Combined stdout and stderr, capped, with a truncation marker when cut (empty when
    /// the request streamed it to [`RunRequest::log_to`]).
    pub log: Vec<u8>,
    /// The output passed the cap: the backend stopped keeping it and stopped the run.
    pub log_truncated: bool,
    pub timed_out: bool,
    pub oom_killed: bool,
    pub duration: Duration,
    /// Collected files by absolute container path; a missing file is simply absent.
    pub collected: BTreeMap<String, Vec<u8>>,
    /// A service of the request that did not start or become ready in its time: the script
    /// never ran (an infrastructure error, not the tests' failure).
    pub service_failure: Option<ServiceFailure>,
}

/// One service to start beside a run ([`RunRequest::services`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceSpec {
    pub name: String,
    /// The name the run reaches it by (a network alias).
    pub hostname: String,
    /// The image tag.
    pub image: String,
    pub env: BTreeMap<String, String>,
    /// Run with `bash -c` instead of the image's command.
    pub command: Option<String>,
    pub ready: ServiceReady,
    /// How long to wait for `ready` after the start.
    pub ready_timeout: Duration,
    pub limits: Limits,
}

/// When a started service counts as ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceReady {
    /// This command, run with `bash -c` in the service's container, exits 0.
    Command(String),
    /// A TCP connection to this port inside the service's container succeeds.
    Tcp(u16),
    /// The container is running.
    Started,
}

/// A service that never became ready, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceFailure {
    pub service: String,
    /// What happened (timed out, exited with a code, could not start) and the tail of its
    /// output.
    pub detail: String,
}

impl RunOutcome {
    /// Exit code 0, not timed out, not OOM-killed.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.oom_killed
    }

    /// The log as (lossy) UTF-8.
    pub fn log_text(&self) -> String {
        String::from_utf8_lossy(&self.log).into_owned()
    }
}

/// Checks a container path used for uploads, collect or workdir: absolute, no `..`, no NUL.
pub(crate) fn check_container_path(path: &str) -> Result<(), String> {
    if !path.starts_with('/') {
        return Err(format!(
            "container path `{path}` must be absolute (start with `/`)"
        ));
    }
    if path.contains('\0') {
        return Err(format!("container path `{path:?}` contains a NUL byte"));
    }
    if path.split('/').any(|c| c == "..") {
        return Err(format!("container path `{path}` must not contain `..`"));
    }
    Ok(())
}
