//! Services beside Docker runs, against the real engine: fresh per run, on a private
//! network with no route outside, waited for with a bounded time, an infrastructure error
//! when never ready, and nothing left behind however the run ends. The services are a
//! 20-line Python key-value server on the base image (no extra image). Fails loudly when
//! Docker does not answer, unless `TASKC_SKIP_DOCKER=1` is set.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bollard::container::ListContainersOptions;
use bollard::network::ListNetworksOptions;
use taskc_runtime::backend::{
    Backend, Limits, RunRequest, ServiceReady, ServiceSpec, SESSION_LABEL,
};
use taskc_runtime::bootstrap::{bootstrap_base_image_with, BootstrapOptions, BASE_IMAGE};
use taskc_runtime::docker::DockerBackend;
use taskc_runtime::local::LocalBackend;

/// Connects, or returns `None` when the suite is told to skip Docker.
async fn docker() -> Option<DockerBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker test");
        return None;
    }
    match DockerBackend::connect().await {
        Ok(d) => {
            bootstrap_base_image_with(&d, &BootstrapOptions::default())
                .await
                .expect("bootstrap the base image");
            Some(d)
        }
        Err(e) => panic!("Docker is required for this test (set TASKC_SKIP_DOCKER=1 to skip): {e}"),
    }
}

/// A line-oriented key-value server on port 7000 that keeps what it is told in a file of
/// its container (`PUT x` appends, anything else answers the lines so far).
const KV_SERVER: &str = r#"python3 -c '
import socketserver
class H(socketserver.StreamRequestHandler):
    def handle(self):
        line = self.rfile.readline().decode().strip()
        if line.startswith("PUT "):
            with open("/tmp/kv", "a") as f:
                f.write(line[4:] + "\n")
            self.wfile.write(b"ok\n")
        else:
            try:
                data = open("/tmp/kv").read().split()
            except FileNotFoundError:
                data = []
            self.wfile.write((",".join(data) + ";\n").encode())
socketserver.TCPServer.allow_reuse_address = True
socketserver.TCPServer(("0.0.0.0", 7000), H).serve_forever()
'"#;

fn kv(ready: ServiceReady) -> ServiceSpec {
    ServiceSpec {
        name: "kv".into(),
        hostname: "kv".into(),
        image: BASE_IMAGE.into(),
        env: BTreeMap::new(),
        command: Some(KV_SERVER.into()),
        ready,
        ready_timeout: Duration::from_secs(30),
        limits: Limits {
            memory_bytes: Some(128 << 20),
            cpus: Some(0.5),
            pids: None,
        },
    }
}

/// Talk to the key-value service from the run: one request, the answer on stdout.
fn ask(line: &str) -> String {
    format!("exec 3<>/dev/tcp/kv/7000; echo '{line}' >&3; head -n1 <&3; exec 3<&-")
}

fn request(name: &str, script: &str, services: Vec<ServiceSpec>) -> RunRequest {
    let mut req = RunRequest::new(
        BASE_IMAGE,
        format!("svc-{name}"),
        format!("services-test-{name}-{}", std::process::id()),
        script,
    );
    req.timeout = Duration::from_secs(60);
    req.services = services;
    req
}

/// Containers and networks the session still has.
async fn leftovers(docker: &DockerBackend, session: &str) -> (Vec<String>, Vec<String>) {
    let filter = HashMap::from([(
        "label".to_string(),
        vec![format!("{SESSION_LABEL}={session}")],
    )]);
    let containers = docker
        .client()
        .list_containers(Some(ListContainersOptions {
            all: true,
            filters: filter.clone(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_iter()
        .filter_map(|c| c.id)
        .collect();
    let networks = docker
        .client()
        .list_networks(Some(ListNetworksOptions { filters: filter }))
        .await
        .unwrap()
        .into_iter()
        .filter_map(|n| n.name)
        .collect();
    (containers, networks)
}

async fn assert_nothing_left(docker: &DockerBackend, session: &str, what: &str) {
    let mut left = leftovers(docker, session).await;
    for _ in 0..100 {
        if left.0.is_empty() && left.1.is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = leftovers(docker, session).await;
    }
    panic!(
        "after a {what} run, left behind: containers {:?}, networks {:?}",
        left.0, left.1
    );
}

#[tokio::test]
async fn a_runs_data_does_not_survive_into_the_next_run() {
    let Some(docker) = docker().await else { return };
    let write = format!("{}\n{}", ask("PUT first-run"), ask("GET"));
    let req = request("survive", &write, vec![kv(ServiceReady::Tcp(7000))]);
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert_eq!(log, "ok\nfirst-run;\n", "the run talks to its service");
    // The same run again (same id, same session): a fresh service that knows nothing.
    let req = request("survive", &ask("GET"), vec![kv(ServiceReady::Tcp(7000))]);
    let out = docker.run(&req).await.expect("run");
    assert_eq!(
        out.log_text(),
        ";\n",
        "the second run saw the first run's data"
    );
    assert_nothing_left(&docker, &req.session, "finished").await;
}

#[tokio::test]
async fn the_service_network_reaches_neither_the_internet_nor_the_host() {
    let Some(docker) = docker().await else { return };
    // Something listening on every address of the host.
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = tokio::spawn(async move {
        tokio::time::timeout(Duration::from_secs(40), listener.accept())
            .await
            .is_ok()
    });
    // The host's addresses as a container sees them: the gateways of the default bridge
    // and of the run's own network (read from the run), and the internet.
    let script = format!(
        r#"net=$(getent hosts kv | cut -d' ' -f1 | cut -d. -f1-3)
for host in 172.17.0.1 "$net.1" 1.1.1.1 8.8.8.8; do
  if timeout 3 bash -c "</dev/tcp/$host/{port}" 2>/dev/null || timeout 3 bash -c "</dev/tcp/$host/53" 2>/dev/null; then
    echo "reached $host"
  else
    echo "unreachable $host"
  fi
done
{}"#,
        ask("GET")
    );
    let req = request("reach", &script, vec![kv(ServiceReady::Tcp(7000))]);
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(!log.contains("reached"), "{log}");
    assert_eq!(log.matches("unreachable").count(), 4, "{log}");
    assert!(log.ends_with(";\n"), "the service itself answers: {log}");
    assert!(!accepted.await.unwrap(), "the host's listener was reached");
    assert_nothing_left(&docker, &req.session, "finished").await;
}

#[tokio::test]
async fn a_service_never_ready_is_an_infrastructure_failure_not_the_tests() {
    let Some(docker) = docker().await else { return };
    let mut never = kv(ServiceReady::Command("false".into()));
    never.ready_timeout = Duration::from_secs(2);
    let req = request("never", "echo the tests ran", vec![never]);
    let out = docker.run(&req).await.expect("run");
    let failure = out.service_failure.clone().expect("a service failure");
    assert_eq!(failure.service, "kv");
    assert!(
        failure.detail.contains("not ready within 2s"),
        "{}",
        failure.detail
    );
    assert!(!out.log_text().contains("the tests ran"), "the script ran");
    assert_nothing_left(&docker, &req.session, "never-ready").await;

    // A service that exits at once: said with its code and its last output.
    let mut dies = kv(ServiceReady::Tcp(7000));
    dies.command = Some("echo cannot start >&2; exit 3".into());
    let req = request("dies", "echo the tests ran", vec![dies]);
    let out = docker.run(&req).await.expect("run");
    let failure = out.service_failure.clone().expect("a service failure");
    assert!(
        failure.detail.contains("exited with code 3"),
        "{}",
        failure.detail
    );
    assert!(
        failure.detail.contains("cannot start"),
        "{}",
        failure.detail
    );
    assert_nothing_left(&docker, &req.session, "crashed-service").await;
}

#[tokio::test]
async fn nothing_is_left_after_failed_timed_out_and_interrupted_runs() {
    let Some(docker) = docker().await else { return };
    let req = request("failed", "exit 1", vec![kv(ServiceReady::Tcp(7000))]);
    let out = docker.run(&req).await.expect("run");
    assert_eq!(out.exit_code, Some(1));
    assert_nothing_left(&docker, &req.session, "failed").await;

    let mut req = request("timeout", "sleep 60", vec![kv(ServiceReady::Tcp(7000))]);
    req.timeout = Duration::from_secs(3);
    let out = docker.run(&req).await.expect("run");
    assert!(out.timed_out);
    assert_nothing_left(&docker, &req.session, "timed-out").await;

    // Interrupted while the tests run (the run's future dropped, as on Ctrl-C).
    let req = request("interrupted", "sleep 60", vec![kv(ServiceReady::Tcp(7000))]);
    let cancelled = tokio::time::timeout(Duration::from_secs(8), docker.run(&req)).await;
    assert!(cancelled.is_err(), "the run should still be going");
    assert_nothing_left(&docker, &req.session, "interrupted").await;

    // Interrupted while a service is being waited for; then the session's cleanup.
    let mut slow = kv(ServiceReady::Command("false".into()));
    slow.ready_timeout = Duration::from_secs(60);
    let req = request("interrupted-ready", "true", vec![slow]);
    let cancelled = tokio::time::timeout(Duration::from_secs(3), docker.run(&req)).await;
    assert!(cancelled.is_err(), "the service should still be waited for");
    docker
        .remove_session(&req.session)
        .await
        .expect("remove the session");
    assert_nothing_left(&docker, &req.session, "interrupted (readiness)").await;
}

#[tokio::test]
async fn the_local_backend_refuses_a_run_with_services_naming_the_service() {
    let cache = tempfile::tempdir().unwrap();
    let backend = LocalBackend::new(cache.path());
    let req = request("local", "true", vec![kv(ServiceReady::Started)]);
    let err = backend.run(&req).await.expect_err("refused");
    let text = err.to_string();
    assert!(
        text.contains("local backend cannot start service `kv`"),
        "{text}"
    );
    assert!(
        err.hint().unwrap_or_default().contains("--backend docker"),
        "{:?}",
        err.hint()
    );
}
