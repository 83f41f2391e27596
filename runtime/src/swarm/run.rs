//! One run as one swarm job: configs for the inputs → a `replicated` service with one
//! replica and no restart (not a `replicated-job` service: Docker 20.10 neither stops the
//! task of a removed job service nor removes its container on a node other than the
//! manager's, as `scripts/swarm-multinode.sh` showed) → its log stream followed (the log
//! streamed to the result store or memory, capped; the trailer parsed) while the task's
//! state and node are watched and the clock runs (from when the task runs) → the service
//! and configs removed, on every path (a guard removes them when the future is dropped). A
//! task whose node goes down, or that the swarm stops or replaces, is retried (bounded),
//! never reported as a test failure; a service removed by someone else is an error.

use std::collections::HashMap;
use std::io::Read;
use std::time::{Duration, Instant};

use base64::Engine as _;
use bollard::models::{
    ConfigSpec, IdResponse, Limit, NetworkAttachmentConfig, NodeState, ServiceCreateResponse,
    ServiceSpec, ServiceSpecMode, ServiceSpecModeReplicated, Task, TaskSpec, TaskSpecContainerSpec,
    TaskSpecContainerSpecConfigs, TaskSpecContainerSpecFile1, TaskSpecResources,
    TaskSpecRestartPolicy, TaskSpecRestartPolicyConditionEnum, TaskState,
};
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use super::api::{percent_encode, Api};
use super::frame::{Demux, Splitter, WRAPPER, WRAPPER_FAILED};
use super::services::{ServiceSet, Started};
use super::{errors, inputs, SwarmBackend, OFFLINE_NETWORK};
use crate::backend::{
    BackendError, LogBuffer, RunOutcome, RunRequest, LOG_CAP, RUN_LABEL, SESSION_LABEL,
    TRUNCATION_MARKER,
};

/// Attempts per run when tasks are lost (their node died).
pub(super) const MAX_ATTEMPTS: usize = 3;
/// How often the task's state is read.
const POLL: Duration = Duration::from_millis(250);
/// How often the task's node is checked.
const NODE_POLL: Duration = Duration::from_secs(1);
/// How long the log may lag behind a task that ended.
const LOG_GRACE: Duration = Duration::from_secs(20);
/// How long a task may take to start (scheduled, its image pulled by a node, its container
/// started) before the run's own clock, which starts when the task runs, as on Docker.
const START_LIMIT: Duration = Duration::from_secs(600);
/// How much of the wrapper's own messages (stderr) is kept for an error.
const STDERR_KEEP: usize = 16 * 1024;

/// How one attempt ended.
enum Attempt {
    Done(RunOutcome),
    /// The task was lost (its node died, it vanished): retry.
    Lost(String),
}

/// Why the follow loop stopped.
enum End {
    Finished,
    Truncated,
    TimedOut,
    Lost(String),
}

impl SwarmBackend {
    pub(super) async fn run_inner(&self, req: &RunRequest) -> Result<RunOutcome, BackendError> {
        req.check_paths()?;
        let image = self.image_ref(&req.image).await?;
        let mut reasons = Vec::new();
        for attempt in 1..=MAX_ATTEMPTS {
            match self.attempt(req, &image).await? {
                Attempt::Done(outcome) => return Ok(outcome),
                Attempt::Lost(reason) => {
                    let reason = format!("run `{}`, attempt {attempt}: {reason}", req.run_id);
                    eprintln!("note: swarm: {reason}; the run is retried");
                    if let Ok(mut r) = self.retries.lock() {
                        r.push(reason.clone());
                    }
                    reasons.push(reason);
                }
            }
        }
        Err(BackendError::Docker {
            op: "swarm: run the job",
            target: req.run_id.clone(),
            detail: format!(
                "its task was lost {MAX_ATTEMPTS} times: {}",
                reasons.join("; ")
            ),
            help: "check `docker node ls`: nodes keep going down".into(),
        })
    }

    async fn attempt(&self, req: &RunRequest, image: &str) -> Result<Attempt, BackendError> {
        let nonce = random_hex()?;
        let short = &nonce[..16];
        let parts = inputs::parts(req, &nonce)?;
        // Services first, on the attempt's private network; the run joins it once they
        // are ready (a service that never is: the script does not run).
        let services = if req.services.is_empty() {
            None
        } else {
            match self
                .start_services(&req.session, &req.run_id, short, &req.services)
                .await?
            {
                Started::Ready(set) => Some(set),
                Started::NotReady(set, failure) => {
                    set.remove().await?;
                    return Ok(Attempt::Done(RunOutcome {
                        service_failure: Some(failure),
                        ..RunOutcome::default()
                    }));
                }
            }
        };
        let result = self
            .attempt_with(req, image, &nonce, parts, services.as_ref())
            .await;
        if let Some(set) = services {
            let removal = set.remove().await;
            let attempt = result?;
            removal?;
            return Ok(attempt);
        }
        result
    }

    async fn attempt_with(
        &self,
        req: &RunRequest,
        image: &str,
        nonce: &str,
        parts: Vec<Vec<u8>>,
        services: Option<&ServiceSet>,
    ) -> Result<Attempt, BackendError> {
        let short = &nonce[..16];
        let labels = HashMap::from([
            (RUN_LABEL.to_string(), req.run_id.clone()),
            (SESSION_LABEL.to_string(), req.session.clone()),
        ]);
        let mut objects = Objects {
            api: self.api.clone(),
            engine: self.engine.client().clone(),
            local_node: self.local_node.clone(),
            service: None,
            configs: Vec::new(),
            container: None,
        };
        let mut mounts = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let name = format!("taskc-{short}-{i:04}");
            let spec = ConfigSpec {
                name: Some(name.clone()),
                labels: Some(labels.clone()),
                data: Some(base64::engine::general_purpose::STANDARD.encode(part)),
                templating: None,
            };
            let created: IdResponse = self
                .api
                .post("/configs/create", &spec)
                .await
                .map_err(|e| e.into_backend("swarm: create config", &name))?;
            objects.configs.push(created.id.clone());
            mounts.push(TaskSpecContainerSpecConfigs {
                file: Some(TaskSpecContainerSpecFile1 {
                    name: Some(inputs::mount_path(i)),
                    uid: Some("0".into()),
                    gid: Some("0".into()),
                    mode: Some(0o400),
                }),
                runtime: None,
                config_id: Some(created.id),
                config_name: Some(name),
            });
        }
        let network = match services {
            Some(set) => RunNetwork::Services(&set.network),
            None if req.network => RunNetwork::Open,
            None if self.offline == super::OfflineNetwork::Internal => RunNetwork::Offline,
            None => RunNetwork::NoneOfTheSwarm,
        };
        let spec = service_spec(
            req,
            image,
            &format!("taskc-{short}"),
            labels,
            mounts,
            network,
        );
        let created: ServiceCreateResponse = self
            .api
            .post("/services/create", &spec)
            .await
            .map_err(|e| e.into_backend("swarm: create service", &req.run_id))?;
        let Some(service) = created.id else {
            return Err(BackendError::Docker {
                op: "swarm: create service",
                target: req.run_id.clone(),
                detail: "the engine answered without a service id".into(),
                help: "check that the engine is Docker 20.10 or newer".into(),
            });
        };
        objects.service = Some(service.clone());
        let result = self.follow(&service, req, image, nonce, &mut objects).await;
        let removal = objects.remove_now().await;
        let attempt = result?;
        removal?;
        Ok(attempt)
    }

    async fn follow(
        &self,
        service: &str,
        req: &RunRequest,
        image: &str,
        nonce: &str,
        objects: &mut Objects,
    ) -> Result<Attempt, BackendError> {
        let started = Instant::now();
        let mut sink = LogSink::open(req.log_to.as_deref()).await?;
        let mut splitter = Splitter::new(nonce);
        let mut demux = Demux::default();
        let mut stderr = Vec::new();
        let mut logs = self
            .api
            .stream(&format!(
                "/services/{service}/logs?follow=1&stdout=1&stderr=1"
            ))
            .await
            .map_err(|e| e.into_backend("swarm: follow service logs", &req.run_id))?;
        let deadline = tokio::time::sleep(req.timeout + START_LIMIT);
        tokio::pin!(deadline);
        let mut clock_started = false;
        let mut tick = tokio::time::interval(POLL);
        let mut stream_open = true;
        let mut ended: Option<(Instant, String, Option<i64>)> = None;
        let mut node_checked = Instant::now();
        let mut seen_task = false;
        let end = loop {
            tokio::select! {
                chunk = logs.next(), if stream_open => match chunk {
                    Some(Ok(bytes)) => {
                        let mut stop = None;
                        for (kind, payload) in demux.push(&bytes) {
                            if kind == 2 {
                                let room = STDERR_KEEP.saturating_sub(stderr.len());
                                stderr.extend_from_slice(&payload[..room.min(payload.len())]);
                                continue;
                            }
                            let log = splitter.push(&payload);
                            if sink.write(&log).await? {
                                stop = Some(End::Truncated);
                                break;
                            }
                            if splitter.complete() {
                                stop = Some(End::Finished);
                                break;
                            }
                        }
                        if let Some(end) = stop {
                            break end;
                        }
                    }
                    Some(Err(_)) | None => stream_open = false,
                },
                _ = &mut deadline => break End::TimedOut,
                _ = tick.tick() => {
                    if let Some((at, why, code)) = &ended {
                        if at.elapsed() > LOG_GRACE {
                            if *code == Some(WRAPPER_FAILED) {
                                return Err(wrapper_failed(req, &stderr));
                            }
                            break End::Lost(format!("{why}, and its log has no results"));
                        }
                        continue;
                    }
                    let mut tasks = self.tasks_of(service, req).await?;
                    if tasks.len() > 1 {
                        // The swarm replaced the task (its node drained): the log may mix
                        // both, so this attempt is dropped.
                        break End::Lost(format!(
                            "the swarm replaced its task ({} tasks)",
                            tasks.len()
                        ));
                    }
                    let Some(task) = tasks.pop() else {
                        if seen_task {
                            return Err(BackendError::Docker {
                                op: "swarm: run the job's task",
                                target: req.run_id.clone(),
                                detail: "its service was removed while it ran (by a Ctrl-C, \
                                         `taskc gc` or by hand)"
                                    .into(),
                                help: "run it again".into(),
                            });
                        }
                        continue;
                    };
                    seen_task = true;
                    let status = task.status.clone().unwrap_or_default();
                    let state = status.state;
                    if !clock_started && state == Some(TaskState::RUNNING) {
                        clock_started = true;
                        deadline.as_mut().reset(tokio::time::Instant::now() + req.timeout);
                    }
                    let err = status.err.clone().unwrap_or_default();
                    let code = status.container_status.as_ref().and_then(|c| c.exit_code);
                    let node = task.node_id.clone().unwrap_or_default();
                    if let Some(id) = status.container_status.as_ref().and_then(|c| c.container_id.clone()) {
                        objects.container = Some((node.clone(), id));
                    }
                    match state {
                        Some(TaskState::REJECTED) => {
                            return Err(errors::task_rejected(&req.run_id, short_id(&node), image, &err));
                        }
                        Some(TaskState::COMPLETE) | Some(TaskState::FAILED) => {
                            let why = format!("its task ended ({}{})",
                                state.map(|s| s.to_string()).unwrap_or_default(),
                                if err.is_empty() { String::new() } else { format!(": {err}") });
                            ended = Some((Instant::now(), why, code));
                        }
                        Some(TaskState::SHUTDOWN) | Some(TaskState::ORPHANED)
                        | Some(TaskState::REMOVE) => {
                            break End::Lost(format!(
                                "its task on node {} was stopped by the swarm ({}{})",
                                short_id(&node),
                                state.map(|s| s.to_string()).unwrap_or_default(),
                                if err.is_empty() { String::new() } else { format!(": {err}") }
                            ));
                        }
                        _ if !node.is_empty() && node_checked.elapsed() >= NODE_POLL => {
                            node_checked = Instant::now();
                            if let Some(down) = self.node_down(&node).await {
                                break End::Lost(format!(
                                    "the node {} of its task is {down}",
                                    short_id(&node)
                                ));
                            }
                        }
                        _ => {}
                    }
                }
            }
        };
        let duration = started.elapsed();
        let mut outcome = RunOutcome {
            duration,
            ..RunOutcome::default()
        };
        match end {
            End::Lost(reason) => return Ok(Attempt::Lost(reason)),
            End::Finished => {
                let trailer = splitter.trailer().map_err(|detail| BackendError::Docker {
                    op: "swarm: read the run's results from its log",
                    target: req.run_id.clone(),
                    detail,
                    help: "retry; if it persists, check the engine's logs".into(),
                })?;
                outcome.exit_code = Some(trailer.exit_code);
                outcome.oom_killed = trailer.oom_kills > 0;
                outcome.collected = trailer.collected;
            }
            End::Truncated => outcome.log_truncated = true,
            End::TimedOut => {
                let rest = splitter.rest();
                sink.write(&rest).await?;
                outcome.timed_out = true;
            }
        }
        let (log, truncated) = sink.finish().await?;
        outcome.log = log;
        outcome.log_truncated |= truncated;
        if outcome.log_truncated {
            outcome.exit_code = None;
        }
        Ok(Attempt::Done(outcome))
    }

    /// The tasks of `service` (one, once the swarm made it, unless it replaced it).
    async fn tasks_of(&self, service: &str, req: &RunRequest) -> Result<Vec<Task>, BackendError> {
        let filter = serde_json::json!({ "service": [service] }).to_string();
        let tasks: Vec<Task> = self
            .api
            .get(&format!("/tasks?filters={}", percent_encode(&filter)))
            .await
            .map_err(|e| e.into_backend("swarm: list tasks", &req.run_id))?;
        Ok(tasks)
    }

    /// `Some(state)` when node `id` is not ready (down, disconnected, unknown, gone).
    async fn node_down(&self, id: &str) -> Option<String> {
        match self
            .api
            .get::<bollard::models::Node>(&format!("/nodes/{id}"))
            .await
        {
            Ok(node) => match node.status.and_then(|s| s.state) {
                Some(NodeState::READY) | None => None,
                Some(state) => Some(state.to_string()),
            },
            Err(e) if e.is_not_found() => Some("gone".into()),
            Err(_) => None,
        }
    }
}

/// What a run's task is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunNetwork<'a> {
    /// The engine's default (a run that may use the network: setup).
    Open,
    /// [`OFFLINE_NETWORK`]; the wrapper takes its interface down.
    Offline,
    /// No network of the swarm; the wrapper takes the default bridge down.
    NoneOfTheSwarm,
    /// Only the attempt's private network to its services (internal: no route out), by id;
    /// left up for the tests to reach them.
    Services(&'a str),
}

/// The job's service: one task, no restart, the wrapper as its command, limits as service
/// resources, no network unless asked.
fn service_spec(
    req: &RunRequest,
    image: &str,
    name: &str,
    labels: HashMap<String, String>,
    mounts: Vec<TaskSpecContainerSpecConfigs>,
    network: RunNetwork<'_>,
) -> ServiceSpec {
    // `TASKC_ROOT` is the mapped `/` of the local backend; empty here, as on Docker.
    let env: Vec<String> = std::iter::once("TASKC_ROOT=".to_string())
        .chain(req.env.iter().map(|(k, v)| format!("{k}={v}")))
        .collect();
    let limits = Limit {
        nano_cpus: req.limits.cpus.map(|c| (c * 1e9) as i64),
        memory_bytes: req
            .limits
            .memory_bytes
            .map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
        pids: req.limits.pids,
    };
    let container = TaskSpecContainerSpec {
        image: Some(image.to_string()),
        labels: Some(labels.clone()),
        command: Some(vec!["bash".into(), "-c".into(), WRAPPER.into()]),
        env: Some(env),
        dir: Some(req.workdir.clone()),
        init: Some(true),
        configs: Some(mounts),
        // A task the swarm stops (its service removed) dies at once.
        stop_signal: Some("SIGKILL".into()),
        stop_grace_period: Some(1_000_000_000),
        // The wrapper (root) takes the interface down; the test user never has it.
        capability_add: matches!(network, RunNetwork::Offline | RunNetwork::NoneOfTheSwarm)
            .then(|| vec!["CAP_NET_ADMIN".to_string()]),
        ..Default::default()
    };
    let target = match network {
        RunNetwork::Offline => Some(OFFLINE_NETWORK),
        RunNetwork::Services(id) => Some(id),
        RunNetwork::Open | RunNetwork::NoneOfTheSwarm => None,
    };
    let networks = target.map(|t| {
        vec![NetworkAttachmentConfig {
            target: Some(t.to_string()),
            ..Default::default()
        }]
    });
    ServiceSpec {
        name: Some(name.to_string()),
        labels: Some(labels),
        task_template: Some(TaskSpec {
            container_spec: Some(container),
            resources: Some(TaskSpecResources {
                limits: Some(limits),
                reservations: None,
            }),
            restart_policy: Some(TaskSpecRestartPolicy {
                condition: Some(TaskSpecRestartPolicyConditionEnum::NONE),
                max_attempts: Some(0),
                ..Default::default()
            }),
            networks,
            ..Default::default()
        }),
        mode: Some(ServiceSpecMode {
            replicated: Some(ServiceSpecModeReplicated { replicas: Some(1) }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn wrapper_failed(req: &RunRequest, stderr: &[u8]) -> BackendError {
    BackendError::Docker {
        op: "swarm: prepare the run in its task",
        target: req.run_id.clone(),
        detail: String::from_utf8_lossy(stderr).trim().to_string(),
        help: "the task image needs bash, tar, base64 and python3 (images built on \
               taskc/base have them)"
            .into(),
    }
}

fn short_id(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

/// 32 hex digits from `/dev/urandom`.
fn random_hex() -> Result<String, BackendError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| BackendError::io("read", "/dev/urandom", e))?;
    Ok(hex::encode(bytes))
}

/// Where the log goes: a file written as it arrives, or memory; capped either way.
enum LogSink {
    File {
        file: tokio::fs::File,
        path: std::path::PathBuf,
        written: usize,
        truncated: bool,
    },
    Memory(LogBuffer),
}

impl LogSink {
    async fn open(to: Option<&std::path::Path>) -> Result<LogSink, BackendError> {
        Ok(match to {
            Some(path) => LogSink::File {
                file: tokio::fs::File::create(path)
                    .await
                    .map_err(|e| BackendError::io("create the run's log", path, e))?,
                path: path.to_path_buf(),
                written: 0,
                truncated: false,
            },
            None => LogSink::Memory(LogBuffer::new(LOG_CAP)),
        })
    }

    /// Appends `bytes`; `true` once past the cap (the run is to be stopped).
    async fn write(&mut self, bytes: &[u8]) -> Result<bool, BackendError> {
        match self {
            LogSink::File {
                file,
                path,
                written,
                truncated,
            } => {
                let take = LOG_CAP.saturating_sub(*written).min(bytes.len());
                file.write_all(&bytes[..take])
                    .await
                    .map_err(|e| BackendError::io("write the run's log", path.clone(), e))?;
                *written += take;
                *truncated |= take < bytes.len();
                Ok(*truncated)
            }
            LogSink::Memory(buffer) => {
                buffer.push(bytes);
                Ok(buffer.truncated())
            }
        }
    }

    /// The log kept in memory (empty when streamed to a file) and whether it was cut.
    async fn finish(self) -> Result<(Vec<u8>, bool), BackendError> {
        match self {
            LogSink::File {
                mut file,
                path,
                truncated,
                ..
            } => {
                if truncated {
                    file.write_all(TRUNCATION_MARKER)
                        .await
                        .map_err(|e| BackendError::io("write the run's log", path.clone(), e))?;
                }
                file.flush()
                    .await
                    .map_err(|e| BackendError::io("write the run's log", path, e))?;
                Ok((Vec::new(), truncated))
            }
            LogSink::Memory(buffer) => Ok(buffer.finish()),
        }
    }
}

/// The service and configs of one attempt, removed now or, if the future is dropped
/// (Ctrl-C), in the background.
struct Objects {
    api: Api,
    engine: bollard::Docker,
    /// This engine's node id: its tasks' containers can be killed directly.
    local_node: String,
    service: Option<String>,
    configs: Vec<String>,
    /// The task's (node, container), once known.
    container: Option<(String, String)>,
}

impl Objects {
    async fn remove_now(&mut self) -> Result<(), BackendError> {
        let service = self.service.take();
        let configs = std::mem::take(&mut self.configs);
        if let Some(id) = self.local_container() {
            kill(&self.engine, &id).await;
        }
        remove(&self.api, service, configs).await
    }

    /// The task's container when it runs on this engine's node.
    fn local_container(&mut self) -> Option<String> {
        match self.container.take() {
            Some((node, id)) if node == self.local_node => Some(id),
            _ => None,
        }
    }
}

/// Force-removes a task's container on this node before its service goes: the swarm's own
/// stop of a task is asynchronous, has been seen to leave a container writing output
/// running, and leaves exited containers behind (those of other nodes go with `taskc gc`,
/// which removes containers of dead sessions: they carry `taskc.session`).
async fn kill(engine: &bollard::Docker, id: &str) {
    let options = bollard::container::RemoveContainerOptions {
        force: true,
        v: true,
        ..Default::default()
    };
    let _ = engine.remove_container(id, Some(options)).await;
}

impl Drop for Objects {
    fn drop(&mut self) {
        if self.service.is_none() && self.configs.is_empty() {
            return;
        }
        let container = self.local_container();
        let (api, engine, service, configs) = (
            self.api.clone(),
            self.engine.clone(),
            self.service.take(),
            std::mem::take(&mut self.configs),
        );
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                if let Some(id) = container {
                    kill(&engine, &id).await;
                }
                let _ = remove(&api, service, configs).await;
            });
        }
    }
}

/// Removes a service (which stops its task), then its configs; a config still held by a
/// task being torn down is retried briefly.
pub(super) async fn remove(
    api: &Api,
    service: Option<String>,
    configs: Vec<String>,
) -> Result<(), BackendError> {
    if let Some(id) = &service {
        api.delete(&format!("/services/{id}"))
            .await
            .map_err(|e| e.into_backend("swarm: remove service", id))?;
    }
    for id in &configs {
        let mut tries = 0;
        loop {
            match api.delete(&format!("/configs/{id}")).await {
                Ok(()) => break,
                Err(e) if tries < 40 && matches!(e, super::api::ApiError::Status { .. }) => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(e) => return Err(e.into_backend("swarm: remove config", id)),
            }
        }
    }
    Ok(())
}
