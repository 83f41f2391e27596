//! Services beside a Docker run: a fresh `internal` bridge network per run (no route
//! outside, no NAT; and no address on the bridge, so the gateway containers route to does
//! not exist and the host's addresses are unreachable as well), each service a container on it answering to
//! its hostname, started and waited for (bounded) before the run's own container starts on
//! the same network; all of it labelled `taskc.run`/`taskc.session`/`taskc.service` and
//! removed with the run (containers with their anonymous volumes, then the network), also
//! when the run's future is dropped (Ctrl-C). `remove_session` and `gc` find leftovers by
//! label (`docs/backends.md`, "Services").

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bollard::container::{
    Config, CreateContainerOptions, LogsOptions, RemoveContainerOptions, StartContainerOptions,
};
use bollard::exec::{CreateExecOptions, StartExecOptions, StartExecResults};
use bollard::models::{EndpointSettings, HostConfig};
use bollard::network::{CreateNetworkOptions, ListNetworksOptions};
use bollard::Docker;
use futures_util::StreamExt;

use super::{docker_error, is_not_found};
use crate::backend::{
    BackendError, ServiceFailure, ServiceReady, ServiceSpec, RUN_LABEL, SESSION_LABEL,
};

/// Label naming the service a container runs.
pub(crate) const SERVICE_LABEL: &str = "taskc.service";

/// Pause between two readiness probes.
const PROBE_INTERVAL: Duration = Duration::from_millis(200);
/// Bound on one probe (a probe command that hangs is retried, not waited for).
const PROBE_LIMIT: Duration = Duration::from_secs(10);
/// At most this much of a failed service's output goes into the error.
const LOG_TAIL: usize = 2000;

/// A run's network and its service containers, removed by [`ServiceSet::remove`] or, if
/// never called (the future dropped), by a task spawned on drop.
pub(crate) struct ServiceSet {
    docker: Docker,
    pub(crate) network: String,
    containers: Vec<String>,
    removed: bool,
}

/// What starting the services of a run gave.
pub(crate) enum Started {
    Ready(ServiceSet),
    /// A service did not start or become ready; the set is still to be removed.
    NotReady(ServiceSet, ServiceFailure),
}

/// A Docker object name for the run's network: `taskc-svc-<session>-<run>`, only
/// `[A-Za-z0-9_.-]`.
fn network_name(session: &str, run_id: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    };
    format!("taskc-svc-{}-{}", clean(session), clean(run_id))
}

fn labels(session: &str, run_id: &str) -> HashMap<String, String> {
    HashMap::from([
        (RUN_LABEL.to_string(), run_id.to_string()),
        (SESSION_LABEL.to_string(), session.to_string()),
    ])
}

/// Create the run's network and start every service on it, each waited for until ready
/// (in declaration order: a later service may need an earlier one).
pub(crate) async fn start(
    docker: &Docker,
    session: &str,
    run_id: &str,
    services: &[ServiceSpec],
) -> Result<Started, BackendError> {
    let network = network_name(session, run_id);
    docker
        .create_network(CreateNetworkOptions {
            name: network.clone(),
            check_duplicate: true,
            driver: "bridge".to_string(),
            internal: true,
            // No address on the bridge: the gateway a container routes to is nobody, so the
            // host (any of its addresses) is unreachable too, not only the outside.
            options: HashMap::from([(
                "com.docker.network.bridge.inhibit_ipv4".to_string(),
                "true".to_string(),
            )]),
            labels: labels(session, run_id),
            ..Default::default()
        })
        .await
        .map_err(|e| docker_error("create network", &network, e))?;
    let mut set = ServiceSet {
        docker: docker.clone(),
        network,
        containers: Vec::new(),
        removed: false,
    };
    for s in services {
        match set.start_one(session, run_id, s).await {
            Ok(None) => {}
            Ok(Some(failure)) => return Ok(Started::NotReady(set, failure)),
            Err(e) => {
                set.remove().await.ok();
                return Err(e);
            }
        }
    }
    Ok(Started::Ready(set))
}

impl ServiceSet {
    /// Start `s` and wait until it is ready; `Some` when it never is.
    async fn start_one(
        &mut self,
        session: &str,
        run_id: &str,
        s: &ServiceSpec,
    ) -> Result<Option<ServiceFailure>, BackendError> {
        let mut labels = labels(session, run_id);
        labels.insert(SERVICE_LABEL.to_string(), s.name.clone());
        let memory = s
            .limits
            .memory_bytes
            .map(|m| i64::try_from(m).unwrap_or(i64::MAX));
        let host_config = HostConfig {
            network_mode: Some(self.network.clone()),
            memory,
            memory_swap: memory,
            nano_cpus: s.limits.cpus.map(|c| (c * 1e9) as i64),
            pids_limit: s.limits.pids,
            init: Some(true),
            ..Default::default()
        };
        let endpoint = EndpointSettings {
            aliases: Some(vec![s.hostname.clone()]),
            ..Default::default()
        };
        let config = Config {
            image: Some(s.image.clone()),
            hostname: Some(s.hostname.clone()),
            cmd: s
                .command
                .as_ref()
                .map(|c| vec!["sh".to_string(), "-c".to_string(), c.clone()]),
            env: Some(s.env.iter().map(|(k, v)| format!("{k}={v}")).collect()),
            labels: Some(labels),
            host_config: Some(host_config),
            networking_config: Some(bollard::container::NetworkingConfig {
                endpoints_config: HashMap::from([(self.network.clone(), endpoint)]),
            }),
            ..Default::default()
        };
        let started = Instant::now();
        let created = self
            .docker
            .create_container(None::<CreateContainerOptions<String>>, config)
            .await
            .map_err(|e| {
                if is_not_found(&e) {
                    BackendError::ImageMissing {
                        tag: s.image.clone(),
                        help: format!(
                            "the image of service `{}` was not built: run `taskc verify` (it builds every image of the plan)",
                            s.name
                        ),
                    }
                } else {
                    docker_error("create service container", &s.image, e)
                }
            })?;
        self.containers.push(created.id.clone());
        let id = created.id;
        if let Err(e) = self
            .docker
            .start_container(&id, None::<StartContainerOptions<String>>)
            .await
        {
            return Ok(Some(ServiceFailure {
                service: s.name.clone(),
                detail: format!("its container did not start: {e}"),
            }));
        }
        let deadline = started + s.ready_timeout;
        loop {
            let state = self
                .docker
                .inspect_container(&id, None)
                .await
                .map_err(|e| docker_error("inspect service container", &id, e))?
                .state
                .unwrap_or_default();
            if state.running != Some(true) {
                let code = state
                    .exit_code
                    .map(|c| format!(" with code {c}"))
                    .unwrap_or_default();
                let oom = if state.oom_killed == Some(true) {
                    " (killed: out of memory)"
                } else {
                    ""
                };
                return Ok(Some(ServiceFailure {
                    service: s.name.clone(),
                    detail: format!(
                        "it exited{code}{oom} before it was ready{}",
                        self.tail(&id).await
                    ),
                }));
            }
            let ready = match &s.ready {
                ServiceReady::Started => true,
                ServiceReady::Command(c) => self.probe(&id, c).await?,
                ServiceReady::Tcp(port) => {
                    let c = format!(
                        "if command -v bash >/dev/null 2>&1; then bash -c '</dev/tcp/127.0.0.1/{port}'; else nc -z 127.0.0.1 {port}; fi"
                    );
                    self.probe(&id, &c).await?
                }
            };
            if ready {
                return Ok(None);
            }
            if Instant::now() >= deadline {
                return Ok(Some(ServiceFailure {
                    service: s.name.clone(),
                    detail: format!(
                        "it was not ready within {}s{}",
                        s.ready_timeout.as_secs(),
                        self.tail(&id).await
                    ),
                }));
            }
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
    }

    /// Run `command` with `sh -c` in the service's container; whether it exited 0. A probe
    /// that outlasts [`PROBE_LIMIT`] counts as not ready.
    async fn probe(&self, id: &str, command: &str) -> Result<bool, BackendError> {
        let exec = self
            .docker
            .create_exec(
                id,
                CreateExecOptions::<String> {
                    cmd: Some(vec!["sh".into(), "-c".into(), command.to_string()]),
                    attach_stdout: Some(true),
                    attach_stderr: Some(true),
                    ..Default::default()
                },
            )
            .await;
        let exec = match exec {
            Ok(e) => e,
            // The container stopped between the inspection and the probe.
            Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 409, ..
            }) => return Ok(false),
            Err(e) => return Err(docker_error("create readiness probe", id, e)),
        };
        let run = async {
            let started = self
                .docker
                .start_exec(
                    &exec.id,
                    Some(StartExecOptions {
                        detach: false,
                        ..Default::default()
                    }),
                )
                .await?;
            if let StartExecResults::Attached { mut output, .. } = started {
                while output.next().await.is_some() {}
            }
            self.docker.inspect_exec(&exec.id).await
        };
        match tokio::time::timeout(PROBE_LIMIT, run).await {
            Ok(Ok(inspect)) => Ok(inspect.exit_code == Some(0)),
            Ok(Err(bollard::errors::Error::DockerResponseServerError {
                status_code: 409, ..
            })) => Ok(false),
            Ok(Err(e)) => Err(docker_error("run readiness probe", id, e)),
            Err(_) => Ok(false),
        }
    }

    /// The last lines of a service's output, for the error (empty if none can be read).
    async fn tail(&self, id: &str) -> String {
        let mut stream = self.docker.logs(
            id,
            Some(LogsOptions::<String> {
                stdout: true,
                stderr: true,
                tail: "20".to_string(),
                ..Default::default()
            }),
        );
        let mut out = Vec::new();
        while let Some(Ok(chunk)) = stream.next().await {
            out.extend_from_slice(&chunk.into_bytes());
        }
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

    /// Remove the service containers (with their anonymous volumes), then the network.
    pub(crate) async fn remove(mut self) -> Result<(), BackendError> {
        self.removed = true;
        remove_all(&self.docker, &self.containers, &self.network).await
    }
}

async fn remove_all(
    docker: &Docker,
    containers: &[String],
    network: &str,
) -> Result<(), BackendError> {
    for id in containers {
        let options = RemoveContainerOptions {
            force: true,
            v: true,
            ..Default::default()
        };
        match docker.remove_container(id, Some(options)).await {
            Ok(()) => {}
            Err(e) if is_not_found(&e) => {}
            Err(e) => return Err(docker_error("remove service container", id, e)),
        }
    }
    remove_network(docker, network).await
}

/// Remove a network, waiting (bounded) for the containers still attached to go: the run's
/// own container may be being removed at the same time.
pub(crate) async fn remove_network(docker: &Docker, network: &str) -> Result<(), BackendError> {
    let mut tries = 0;
    loop {
        match docker.remove_network(network).await {
            Ok(()) => return Ok(()),
            Err(e) if is_not_found(&e) => return Ok(()),
            Err(e) if tries < 50 => {
                let _ = e;
                tries += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => return Err(docker_error("remove network", network, e)),
        }
    }
}

impl Drop for ServiceSet {
    fn drop(&mut self) {
        if self.removed {
            return;
        }
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let docker = self.docker.clone();
            let containers = std::mem::take(&mut self.containers);
            let network = self.network.clone();
            handle.spawn(async move {
                let _ = remove_all(&docker, &containers, &network).await;
            });
        }
    }
}

/// Names of the networks (with their session) carrying the label filter `filter`.
pub(crate) async fn labelled_networks(
    docker: &Docker,
    filter: String,
) -> Result<Vec<(String, String)>, BackendError> {
    let networks = docker
        .list_networks(Some(ListNetworksOptions {
            filters: HashMap::from([("label".to_string(), vec![filter])]),
        }))
        .await
        .map_err(|e| docker_error("list networks", "taskc networks", e))?;
    Ok(networks
        .into_iter()
        .filter_map(|n| {
            let session = n.labels.as_ref()?.get(SESSION_LABEL)?.clone();
            Some((n.name?, session))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_names_are_docker_names() {
        assert_eq!(network_name("s1 2", "run-ab/c"), "taskc-svc-s1-2-run-ab-c");
    }
}
