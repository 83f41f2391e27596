//! A service of a run: started fresh beside the run's test container, on a network private
//! to that run, ready before the run's script starts, removed with it. Part of the run, so
//! part of its content-addressed id.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One service a run starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunService {
    pub name: String,
    /// The name the tests reach it by on the run's network.
    pub hostname: String,
    /// The id of its image in `images.services` (`img-…`).
    pub image: String,
    pub environment: BTreeMap<String, String>,
    /// Run with `bash -c` instead of the image's own command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    pub ready: ReadyProbe,
    /// How long the runtime waits for `ready`; past it the run is an infrastructure error.
    pub ready_timeout_secs: u64,
    /// TCP ports it listens on, sorted.
    pub ports: Vec<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// Thousandths of a CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus_milli: Option<u64>,
}

/// When a started service counts as ready.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ReadyProbe {
    /// This command, run with `bash -c` in the service's container, exits 0.
    Command { command: String },
    /// A TCP connection to this port inside the service's container succeeds.
    Tcp { port: u16 },
    /// The container is running.
    Started,
}

/// The engine tag of a service image `id` built by taskc (`img-…`).
pub fn service_image_tag(id: &str) -> String {
    format!("taskc/service:{id}")
}
