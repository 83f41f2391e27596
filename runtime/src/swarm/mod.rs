//! The Docker Swarm backend: each run is one swarm job (a `replicated` service with one
//! replica and no restart; see `run.rs` for why not a `replicated-job` one) on the task's
//! image, its inputs are swarm configs mounted as files,
//! its results come back through the service's log stream (`frame.rs`), never through a
//! node's file system.
//!
//! Images are built on the manager's engine exactly as on the Docker backend (this backend
//! holds one for builds, tags and image gc). A single-node swarm runs them by image id; a
//! swarm of more than one node needs `[cluster] registry = "host:port"`: each image is
//! pushed there once per content id and services name it by digest.
//!
//! The Kubernetes mapping, for a backend written later: a run is a `Job` (completions 1,
//! backoffLimit 0), the configs are a `ConfigMap` mounted read-only, the service log is the
//! pod log, the session label a label selector, the offline network a `NetworkPolicy`
//! denying all egress.

mod api;
mod errors;
mod frame;
mod gc;
mod images;
mod inputs;
mod run;
mod services;

use std::collections::HashMap;
use std::sync::Mutex;

use bollard::network::CreateNetworkOptions;
use futures_util::future::BoxFuture;

use crate::backend::{
    Backend, BackendError, GcReport, ImageBuild, KeepImages, RunOutcome, RunRequest,
};
use crate::docker::DockerBackend;
use api::Api;

/// Label on the objects this backend creates besides runs (its offline network).
const NETWORK_LABEL: &str = "taskc.network";
/// The internal overlay network offline runs attach to (no route out; each run also takes
/// its own interfaces down before the script starts).
pub const OFFLINE_NETWORK: &str = "taskc-offline";

/// What an offline (test) run's task is attached to. Either way the task's wrapper takes
/// every interface but `lo` down before the script starts, and fails the run if it cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OfflineNetwork {
    /// [`OFFLINE_NETWORK`], an internal overlay network (no route out): the default.
    #[default]
    Internal,
    /// No network of the swarm (the node's default bridge until the wrapper takes it
    /// down): for nodes sharing one kernel, where one overlay's VXLAN id cannot exist
    /// twice (`[cluster] network = "none"`).
    None,
}

/// Runs plans as swarm jobs through the manager's API.
#[derive(Debug)]
pub struct SwarmBackend {
    engine: DockerBackend,
    api: Api,
    registry: Option<String>,
    offline: OfflineNetwork,
    /// This engine's swarm node id.
    local_node: String,
    /// Image id → the name services use (the id itself, or `registry/…@digest`).
    refs: Mutex<HashMap<String, String>>,
    /// Held while an image's reference is decided (and it is pushed): runs starting
    /// together never push the same image twice at once (the registry answered one of two
    /// such pushes with a 500).
    pushing: tokio::sync::Mutex<()>,
    /// Why runs were retried (a task's node died), in order, for the caller to show.
    retries: Mutex<Vec<String>>,
}

impl SwarmBackend {
    /// Connects to the local engine, which must be a manager of an active swarm, and makes
    /// sure the offline network exists. `registry` is `[cluster] registry`, `offline`
    /// `[cluster] network`.
    pub async fn connect(
        registry: Option<String>,
        offline: OfflineNetwork,
    ) -> Result<SwarmBackend, BackendError> {
        let engine = DockerBackend::connect().await.map_err(|e| match e {
            BackendError::DockerUnreachable { detail } => BackendError::DockerUnreachable {
                detail: format!("swarm: connect to the manager's engine: {detail}"),
            },
            other => other,
        })?;
        let api = Api::from_env()?;
        let mut backend = SwarmBackend {
            engine,
            api,
            registry,
            offline,
            local_node: String::new(),
            refs: Mutex::new(HashMap::new()),
            pushing: tokio::sync::Mutex::new(()),
            retries: Mutex::new(Vec::new()),
        };
        backend.local_node = backend.check_manager().await?;
        if offline == OfflineNetwork::Internal {
            backend.ensure_network().await?;
        }
        Ok(backend)
    }

    /// The engine builds, tags and garbage-collects images for the swarm.
    pub fn engine(&self) -> &DockerBackend {
        &self.engine
    }

    /// The reasons of every retry so far ("task … on node … was lost: …").
    pub fn retries(&self) -> Vec<String> {
        self.retries.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many nodes may run tasks (ready and not drained).
    pub async fn node_count(&self) -> Result<usize, BackendError> {
        Ok(self.schedulable_nodes().await?.len())
    }

    /// The ids of the nodes that may run tasks (ready and not drained).
    async fn schedulable_nodes(&self) -> Result<Vec<String>, BackendError> {
        use bollard::models::{NodeSpecAvailabilityEnum, NodeState};
        let nodes: Vec<bollard::models::Node> = self
            .api
            .get("/nodes")
            .await
            .map_err(|e| e.into_backend("swarm: list nodes", "the swarm"))?;
        Ok(nodes
            .iter()
            .filter(|n| n.status.as_ref().and_then(|s| s.state) == Some(NodeState::READY))
            .filter(|n| {
                n.spec.as_ref().and_then(|s| s.availability)
                    != Some(NodeSpecAvailabilityEnum::DRAIN)
            })
            .filter_map(|n| n.id.clone())
            .collect())
    }

    /// This node's id, when it is a manager of an active swarm.
    async fn check_manager(&self) -> Result<String, BackendError> {
        let info =
            self.engine.client().info().await.map_err(|e| {
                crate::docker::docker_error("swarm: inspect the swarm", "engine", e)
            })?;
        let swarm = info.swarm.unwrap_or_default();
        let state = swarm
            .local_node_state
            .map(|s| s.to_string())
            .unwrap_or_else(|| "unknown".into());
        if state != "active" || swarm.control_available != Some(true) {
            let state = if state == "active" {
                "active, but this node is a worker".to_string()
            } else {
                state
            };
            return Err(errors::not_in_swarm(&state));
        }
        Ok(swarm.node_id.unwrap_or_default())
    }

    async fn ensure_network(&self) -> Result<(), BackendError> {
        let client = self.engine.client();
        if client
            .inspect_network::<String>(OFFLINE_NETWORK, None)
            .await
            .is_ok()
        {
            return Ok(());
        }
        let options = CreateNetworkOptions {
            name: OFFLINE_NETWORK.to_string(),
            driver: "overlay".into(),
            internal: true,
            check_duplicate: true,
            labels: HashMap::from([(NETWORK_LABEL.to_string(), "offline".to_string())]),
            ..Default::default()
        };
        match client.create_network(options).await {
            Ok(_) => Ok(()),
            // Another taskc created it meanwhile.
            Err(_)
                if client
                    .inspect_network::<String>(OFFLINE_NETWORK, None)
                    .await
                    .is_ok() =>
            {
                Ok(())
            }
            Err(e) => Err(crate::docker::docker_error(
                "swarm: create the offline network",
                OFFLINE_NETWORK,
                e,
            )),
        }
    }
}

impl Backend for SwarmBackend {
    fn name(&self) -> &'static str {
        "swarm"
    }

    fn ensure_image<'a>(
        &'a self,
        build: &'a ImageBuild,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        self.engine.ensure_image(build)
    }

    fn image_content_id<'a>(
        &'a self,
        tag: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        self.engine.image_content_id(tag)
    }

    fn pull_image<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        self.engine.pull_image(reference)
    }

    fn image_registry_digest<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        self.engine.image_registry_digest(reference)
    }

    fn tag_image<'a>(
        &'a self,
        image: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        self.engine.tag_image(image, name)
    }

    fn run<'a>(&'a self, req: &'a RunRequest) -> BoxFuture<'a, Result<RunOutcome, BackendError>> {
        if self.offline == OfflineNetwork::None {
            if let Some(refused) = errors::refuse_services_without_overlay(req) {
                return Box::pin(async move { Err(refused) });
            }
        }
        Box::pin(self.run_inner(req))
    }

    fn remove_session<'a>(
        &'a self,
        session: &'a str,
    ) -> BoxFuture<'a, Result<usize, BackendError>> {
        Box::pin(self.remove_session_inner(session))
    }

    fn gc<'a>(
        &'a self,
        keep: &'a KeepImages,
        dry_run: bool,
    ) -> BoxFuture<'a, Result<GcReport, BackendError>> {
        Box::pin(async move {
            let mut report = self.gc_inner(keep, dry_run).await?;
            report.extend(self.engine.gc(keep, dry_run).await?);
            Ok(report)
        })
    }
}
