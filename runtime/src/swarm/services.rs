//! Services beside a swarm run: per attempt, a fresh `internal` overlay network (no route
//! out, no gateway, no address on any host: neither the internet nor a node is reachable
//! through it), each service a swarm service of one task on it (no restart, answering to
//! its hostname by DNS round robin), all created at once and waited for together (bounded)
//! before the run's own task joins the network. Readiness is the task's health check: the
//! swarm keeps a task `starting` (and its name out of the DNS) until the check passes,
//! on whatever node the task runs, so no exec into a node is needed. Everything carries
//! `taskc.run`/`taskc.session` (services also `taskc.service`) and is removed with the
//! run, also when its future is dropped (Ctrl-C); `remove_session` and `gc` find
//! leftovers by label (`docs/backends.md`, "Services").

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bollard::models::{
    EndpointSpec, EndpointSpecModeEnum, HealthConfig, Limit, NetworkAttachmentConfig,
    ServiceCreateResponse, ServiceSpec as SwarmServiceSpec, ServiceSpecMode,
    ServiceSpecModeReplicated, Task, TaskSpec, TaskSpecContainerSpec, TaskSpecResources,
    TaskSpecRestartPolicy, TaskSpecRestartPolicyConditionEnum, TaskState,
};
use bollard::network::CreateNetworkOptions;
use futures_util::StreamExt;

use super::api::{percent_encode, Api};
use super::frame::Demux;
use super::SwarmBackend;
use crate::backend::{
    BackendError, ServiceFailure, ServiceReady, ServiceSpec, RUN_LABEL, SESSION_LABEL,
};

/// Label naming the service a swarm service runs (as on Docker).
const SERVICE_LABEL: &str = "taskc.service";
/// Pause between two readings of the services' tasks.
const POLL: Duration = Duration::from_millis(200);
/// Interval of the readiness check (the task's health check).
const PROBE_INTERVAL: Duration = Duration::from_millis(250);
/// Bound on one readiness check.
const PROBE_LIMIT: Duration = Duration::from_secs(10);
/// Time the swarm gets to schedule a service's task and start its container, on top of
/// the service's own readiness time.
const SCHEDULE_GRACE: Duration = Duration::from_secs(30);
/// At most this much of a failed service's output goes into the error.
const LOG_TAIL: usize = 2000;

/// The network and services of one attempt, removed by [`ServiceSet::remove`] or, if
/// never called (the future dropped), by a task spawned on drop.
pub(super) struct ServiceSet {
    api: Api,
    engine: bollard::Docker,
    /// The overlay network's id.
    pub(super) network: String,
    services: Vec<String>,
    removed: bool,
}

/// What starting the services of a run gave.
pub(super) enum Started {
    Ready(ServiceSet),
    /// A service did not start or become ready; the set is still to be removed.
    NotReady(ServiceSet, ServiceFailure),
}

/// Only `[A-Za-z0-9_.-]`, as swarm object names need.
fn clean(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// A swarm service name for service `name` of attempt `short` (at most 63 characters).
fn service_name(short: &str, name: &str) -> String {
    let mut n = format!("taskc-{short}-svc-{}", clean(name));
    n.truncate(63);
    n.trim_end_matches(['-', '.', '_']).to_string()
}

/// The readiness of `ready` as the task's health check (`NONE` for "running is ready", so
/// that an image's own HEALTHCHECK does not gate it either).
fn health_check(ready: &ServiceReady, timeout: Duration) -> HealthConfig {
    let test = match ready {
        ServiceReady::Started => return HealthConfig {
            test: Some(vec!["NONE".into()]),
            ..Default::default()
        },
        ServiceReady::Command(c) => c.clone(),
        ServiceReady::Tcp(port) => format!(
            "if command -v bash >/dev/null 2>&1; then bash -c '</dev/tcp/127.0.0.1/{port}'; else nc -z 127.0.0.1 {port}; fi"
        ),
    };
    let nanos = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
    HealthConfig {
        test: Some(vec!["CMD-SHELL".into(), test]),
        interval: Some(nanos(PROBE_INTERVAL)),
        timeout: Some(nanos(PROBE_LIMIT)),
        // Failures within the service's readiness time do not count; the first after it
        // makes the task unhealthy (and the swarm stops it).
        start_period: Some(nanos(timeout.max(Duration::from_millis(1)))),
        retries: Some(1),
        start_interval: None,
    }
}

fn spec(
    s: &ServiceSpec,
    image: &str,
    name: &str,
    network: &str,
    labels: HashMap<String, String>,
) -> SwarmServiceSpec {
    let container = TaskSpecContainerSpec {
        image: Some(image.to_string()),
        labels: Some(labels.clone()),
        hostname: Some(s.hostname.clone()),
        command: s
            .command
            .as_ref()
            .map(|c| vec!["sh".to_string(), "-c".to_string(), c.clone()]),
        env: Some(s.env.iter().map(|(k, v)| format!("{k}={v}")).collect()),
        init: Some(true),
        health_check: Some(health_check(&s.ready, s.ready_timeout)),
        stop_signal: Some("SIGKILL".into()),
        stop_grace_period: Some(1_000_000_000),
        ..Default::default()
    };
    let limits = Limit {
        nano_cpus: s.limits.cpus.map(|c| (c * 1e9) as i64),
        memory_bytes: s
            .limits
            .memory_bytes
            .map(|m| i64::try_from(m).unwrap_or(i64::MAX)),
        pids: s.limits.pids,
    };
    SwarmServiceSpec {
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
            networks: Some(vec![NetworkAttachmentConfig {
                target: Some(network.to_string()),
                aliases: Some(vec![s.hostname.clone()]),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        mode: Some(ServiceSpecMode {
            replicated: Some(ServiceSpecModeReplicated { replicas: Some(1) }),
            ..Default::default()
        }),
        // The hostname resolves to the task itself (no virtual IP, no load balancer).
        endpoint_spec: Some(EndpointSpec {
            mode: Some(EndpointSpecModeEnum::DNSRR),
            ports: None,
        }),
        ..Default::default()
    }
}

impl SwarmBackend {
    /// Create attempt `short`'s overlay network and every service on it, and wait until all
    /// are ready (started together: the slowest one bounds the wait).
    pub(super) async fn start_services(
        &self,
        session: &str,
        run_id: &str,
        short: &str,
        services: &[ServiceSpec],
    ) -> Result<Started, BackendError> {
        let labels = HashMap::from([
            (RUN_LABEL.to_string(), run_id.to_string()),
            (SESSION_LABEL.to_string(), session.to_string()),
        ]);
        let name = format!("taskc-svc-{short}");
        let client = self.engine.client();
        let created = client
            .create_network(CreateNetworkOptions {
                name: name.clone(),
                check_duplicate: true,
                driver: "overlay".to_string(),
                internal: true,
                labels: labels.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| {
                crate::docker::docker_error("swarm: create the run's network", &name, e)
            })?;
        let mut set = ServiceSet {
            api: self.api.clone(),
            engine: client.clone(),
            network: if created.id.is_empty() {
                name
            } else {
                created.id
            },
            services: Vec::new(),
            removed: false,
        };
        match self
            .create_and_wait(&mut set, short, &labels, services)
            .await
        {
            Ok(None) => Ok(Started::Ready(set)),
            Ok(Some(failure)) => Ok(Started::NotReady(set, failure)),
            Err(e) => {
                set.remove().await.ok();
                Err(e)
            }
        }
    }

    async fn create_and_wait(
        &self,
        set: &mut ServiceSet,
        short: &str,
        labels: &HashMap<String, String>,
        services: &[ServiceSpec],
    ) -> Result<Option<ServiceFailure>, BackendError> {
        let started = Instant::now();
        let mut waiting = Vec::new();
        for s in services {
            let image = self.image_ref(&s.image).await.map_err(|e| match e {
                BackendError::ImageMissing { tag, .. } => BackendError::ImageMissing {
                    tag,
                    help: format!(
                        "the image of service `{}` was not built: run `taskc verify` (it builds every image of the plan)",
                        s.name
                    ),
                },
                other => other,
            })?;
            let mut labels = labels.clone();
            labels.insert(SERVICE_LABEL.to_string(), s.name.clone());
            let name = service_name(short, &s.name);
            let created: ServiceCreateResponse = self
                .api
                .post(
                    "/services/create",
                    &spec(s, &image, &name, &set.network, labels),
                )
                .await
                .map_err(|e| e.into_backend("swarm: create service", &name))?;
            let Some(id) = created.id else {
                return Err(BackendError::Docker {
                    op: "swarm: create service",
                    target: name,
                    detail: "the engine answered without a service id".into(),
                    help: "check that the engine is Docker 20.10 or newer".into(),
                });
            };
            set.services.push(id.clone());
            waiting.push((s, id, started + s.ready_timeout + SCHEDULE_GRACE));
        }
        while !waiting.is_empty() {
            let mut still = Vec::new();
            for (s, id, deadline) in waiting {
                let task = self.task_of(&id).await?;
                let status = task.and_then(|t| t.status).unwrap_or_default();
                let err = status.err.clone().unwrap_or_default();
                let code = status.container_status.as_ref().and_then(|c| c.exit_code);
                match status.state {
                    Some(TaskState::RUNNING) => continue,
                    Some(
                        state @ (TaskState::COMPLETE
                        | TaskState::FAILED
                        | TaskState::REJECTED
                        | TaskState::SHUTDOWN
                        | TaskState::ORPHANED
                        | TaskState::REMOVE),
                    ) => {
                        let why = if err.contains("unhealthy") {
                            format!("it was not ready within {}s", s.ready_timeout.as_secs())
                        } else {
                            let code = code
                                .filter(|c| *c != 0 || state == TaskState::COMPLETE)
                                .map(|c| format!(" with code {c}"))
                                .unwrap_or_default();
                            let err = if err.is_empty() {
                                String::new()
                            } else {
                                format!(" ({err})")
                            };
                            format!("it exited{code} before it was ready (its task: {state}{err})")
                        };
                        return Ok(Some(ServiceFailure {
                            service: s.name.clone(),
                            detail: format!("{why}{}", self.tail(&id).await),
                        }));
                    }
                    _ if Instant::now() >= deadline => {
                        return Ok(Some(ServiceFailure {
                            service: s.name.clone(),
                            detail: format!(
                                "it was not ready within {}s (its task: {}){}",
                                s.ready_timeout.as_secs(),
                                status
                                    .state
                                    .map(|s| s.to_string())
                                    .unwrap_or_else(|| "not scheduled".into()),
                                self.tail(&id).await
                            ),
                        }));
                    }
                    _ => still.push((s, id, deadline)),
                }
            }
            waiting = still;
            if !waiting.is_empty() {
                tokio::time::sleep(POLL).await;
            }
        }
        Ok(None)
    }

    /// The task of service `id` (the only one: it never restarts).
    async fn task_of(&self, id: &str) -> Result<Option<Task>, BackendError> {
        let filter = serde_json::json!({ "service": [id] }).to_string();
        let mut tasks: Vec<Task> = self
            .api
            .get(&format!("/tasks?filters={}", percent_encode(&filter)))
            .await
            .map_err(|e| e.into_backend("swarm: list tasks", id))?;
        Ok(tasks.pop())
    }

    /// The last lines of a service's output, for the error (empty if none can be read).
    async fn tail(&self, id: &str) -> String {
        let Ok(mut stream) = self
            .api
            .stream(&format!("/services/{id}/logs?stdout=1&stderr=1&tail=20"))
            .await
        else {
            return String::new();
        };
        let mut demux = Demux::default();
        let mut out = Vec::new();
        let read = async {
            while let Some(Ok(chunk)) = stream.next().await {
                for (_, payload) in demux.push(&chunk) {
                    out.extend_from_slice(&payload);
                }
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(5), read).await;
        let text = String::from_utf8_lossy(&out);
        let text = text.trim();
        if text.is_empty() {
            return String::new();
        }
        let start = text.len().saturating_sub(LOG_TAIL);
        let start = (start..text.len())
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(text.len());
        format!("; its last output:\n{}", &text[start..])
    }
}

impl ServiceSet {
    /// Remove the services (their tasks stop), then the network once they left it.
    pub(super) async fn remove(mut self) -> Result<(), BackendError> {
        self.removed = true;
        let services = std::mem::take(&mut self.services);
        remove_all(&self.api, &self.engine, &services, &self.network).await
    }
}

async fn remove_all(
    api: &Api,
    engine: &bollard::Docker,
    services: &[String],
    network: &str,
) -> Result<(), BackendError> {
    for id in services {
        super::run::remove(api, Some(id.clone()), Vec::new()).await?;
    }
    remove_network(engine, network).await
}

/// Remove an overlay network, waiting (bounded) for the tasks still attached to go.
pub(super) async fn remove_network(
    engine: &bollard::Docker,
    network: &str,
) -> Result<(), BackendError> {
    let mut tries = 0;
    loop {
        match engine.remove_network(network).await {
            Ok(()) => return Ok(()),
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 404, ..
            }) => return Ok(()),
            Err(_) if tries < 100 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => {
                return Err(crate::docker::docker_error(
                    "swarm: remove the run's network",
                    network,
                    e,
                ))
            }
        }
    }
}

impl Drop for ServiceSet {
    fn drop(&mut self) {
        if self.removed {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let (api, engine) = (self.api.clone(), self.engine.clone());
            let services = std::mem::take(&mut self.services);
            let network = self.network.clone();
            handle.spawn(async move {
                let _ = remove_all(&api, &engine, &services, &network).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_names_are_swarm_names() {
        assert_eq!(service_name("ab12", "db"), "taskc-ab12-svc-db");
        assert_eq!(service_name("ab12", "a b/c"), "taskc-ab12-svc-a-b-c");
        assert!(service_name("0123456789abcdef", &"x".repeat(80)).len() <= 63);
    }

    #[test]
    fn readiness_is_the_tasks_health_check() {
        let t = Duration::from_secs(30);
        let started = health_check(&ServiceReady::Started, t);
        assert_eq!(started.test, Some(vec!["NONE".to_string()]));
        let tcp = health_check(&ServiceReady::Tcp(5432), t);
        let test = tcp.test.unwrap_or_default();
        assert_eq!(test.first().map(String::as_str), Some("CMD-SHELL"));
        assert!(test[1].contains("/dev/tcp/127.0.0.1/5432"), "{test:?}");
        assert_eq!(tcp.start_period, Some(30_000_000_000));
        assert_eq!(tcp.retries, Some(1));
    }
}
