//! A service beside the tests (`service <name> { … }`): a container the runtime starts fresh
//! for every test run that uses it, on a network private to that run, and removes with it
//! (`docs/language.md`, "Services").

use std::collections::BTreeMap;

use crate::model::Environment;
use crate::span::Span;

/// Default bound on how long a service may take to become ready, seconds.
pub const DEFAULT_READY_TIMEOUT_SECS: u64 = 60;
/// Upper bound on a readiness timeout, seconds.
pub const MAX_READY_TIMEOUT_SECS: u64 = 1800;

/// One checked `service` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// Unique in the task.
    pub name: String,
    /// Where it is declared: the task (any target may name it) or one repository.
    pub scope: ServiceScope,
    pub image: ServiceImage,
    /// The name the tests reach it by (a DNS label); the service's name unless given.
    pub hostname: String,
    /// `environment { NAME "value" … }`.
    pub environment: BTreeMap<String, String>,
    /// `command "…"`: run with `bash -c` instead of the image's own command.
    pub command: Option<String>,
    /// When the service counts as ready, and for how long the runtime waits.
    pub ready: ReadyCheck,
    pub ready_timeout_secs: u64,
    /// `port …`: TCP ports it listens on, sorted, unique.
    pub ports: Vec<u16>,
    pub limits: ServiceLimits,
    pub span: Span,
}

/// Where a service is declared.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ServiceScope {
    /// At task level: started for the targets that name it (`services <name>`).
    Task,
    /// Inside `repo <name>`: started for that repository's test runs only.
    Repo(String),
}

/// The image a service runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServiceImage {
    /// `image <recipe> { … }`: built by taskc from a stdlib recipe (`generic`: a Dockerfile
    /// fragment on the base image; `dockerfile`: a Dockerfile beside the spec).
    Recipe(Environment),
    /// `image "name"`: an image the engine already holds under this name.
    Named(String),
}

/// When a started service counts as ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadyCheck {
    /// `ready "…"`: this command, run with `bash -c` in the service's container, exits 0.
    Command(String),
    /// No `ready`, but a `port`: a TCP connection to the first port (inside the service's
    /// container) succeeds.
    Tcp(u16),
    /// Neither: the container is running.
    Started,
}

/// Resource limits of a service's container; `None` is the backend's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServiceLimits {
    pub memory_bytes: Option<u64>,
    /// Thousandths of a CPU (`cpus "1.5"` is 1500).
    pub cpus_milli: Option<u64>,
}
