//! Services beside swarm runs, on a real single-node swarm: fresh per run, on a private
//! overlay network with no route outside (neither the internet nor the host), readiness
//! bounded, an infrastructure failure when never ready, and no service, config, container
//! or network left however the run ends. The service is the 20-line Python key-value
//! server of `docker_services.rs` on the base image. FAILS when the engine does not answer,
//! unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use taskc_runtime::backend::{Backend, Limits, RunRequest, ServiceReady, ServiceSpec};
use taskc_runtime::bootstrap::{bootstrap_base_image_with, BootstrapOptions, BASE_IMAGE};
use taskc_runtime::swarm::{OfflineNetwork, SwarmBackend};

#[path = "support/swarm_guard.rs"]
mod swarm_guard;

async fn swarm() -> Option<SwarmBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a swarm test");
        return None;
    }
    swarm_guard::ensure_swarm().expect("a single-node swarm");
    let s = SwarmBackend::connect(None, OfflineNetwork::Internal)
        .await
        .expect("connect to the swarm");
    bootstrap_base_image_with(s.engine(), &BootstrapOptions::default())
        .await
        .expect("bootstrap the base image");
    Some(s)
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
        format!("swarm-services-{name}-{}", std::process::id()),
        script,
    );
    req.timeout = Duration::from_secs(60);
    req.services = services;
    req
}

/// Objects of `kind` (`service`, `config`, `container`, `network`) labelled with `session`.
fn objects(kind: &str, session: &str) -> Vec<String> {
    let mut args = vec![kind, "ls", "-q"];
    if kind == "container" {
        args.push("-a");
    }
    let out = Command::new("docker")
        .args(args)
        .arg("--filter")
        .arg(format!("label=taskc.session={session}"))
        .output()
        .expect("docker");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect()
}

async fn assert_nothing_left(session: &str, what: &str) {
    let kinds = ["service", "config", "container", "network"];
    let mut left = Vec::new();
    for _ in 0..100 {
        left = kinds
            .iter()
            .map(|k| (*k, objects(k, session)))
            .filter(|(_, ids)| !ids.is_empty())
            .collect::<Vec<_>>();
        if left.is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    panic!("after a {what} run, left behind: {left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_data_does_not_survive_into_the_next_run() {
    let Some(s) = swarm().await else { return };
    let write = format!("{}\n{}", ask("PUT first-run"), ask("GET"));
    let req = request("survive", &write, vec![kv(ServiceReady::Tcp(7000))]);
    let out = s.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert_eq!(log, "ok\nfirst-run;\n", "the run talks to its service");
    // The same run again (same id, same session): a fresh service that knows nothing.
    let req = request("survive", &ask("GET"), vec![kv(ServiceReady::Tcp(7000))]);
    let out = s.run(&req).await.expect("run");
    assert_eq!(
        out.log_text(),
        ";\n",
        "the second run saw the first run's data"
    );
    assert_nothing_left(&req.session, "finished").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_network_reaches_neither_the_internet_nor_the_host() {
    let Some(s) = swarm().await else { return };
    // Something listening on every address of the host.
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = tokio::spawn(async move {
        tokio::time::timeout(Duration::from_secs(30), listener.accept())
            .await
            .is_ok()
    });
    // The host's addresses as a container sees them: the gateways of the default bridge,
    // of docker_gwbridge and of the run's own network (read from the run), and the
    // internet; and no default route at all.
    let script = format!(
        r#"net=$(getent hosts kv | cut -d' ' -f1 | cut -d. -f1-3)
for host in 172.17.0.1 172.18.0.1 "$net.1" 1.1.1.1 8.8.8.8; do
  if timeout 3 bash -c "</dev/tcp/$host/{port}" 2>/dev/null || timeout 3 bash -c "</dev/tcp/$host/53" 2>/dev/null; then
    echo "reached $host"
  else
    echo "unreachable $host"
  fi
done
if awk 'NR > 1 && $2 == "00000000" {{ found = 1 }} END {{ exit !found }}' /proc/net/route; then echo "a default route"; fi
{}"#,
        ask("GET")
    );
    let req = request("reach", &script, vec![kv(ServiceReady::Tcp(7000))]);
    let out = s.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(!log.contains("reached"), "{log}");
    assert!(!log.contains("a default route"), "{log}");
    assert_eq!(log.matches("unreachable").count(), 5, "{log}");
    assert!(log.ends_with(";\n"), "the service itself answers: {log}");
    assert!(!accepted.await.unwrap(), "the host's listener was reached");
    assert_nothing_left(&req.session, "finished").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_never_ready_is_an_infrastructure_failure_not_the_tests() {
    let Some(s) = swarm().await else { return };
    let mut never = kv(ServiceReady::Command("false".into()));
    never.ready_timeout = Duration::from_secs(2);
    let req = request("never", "echo the tests ran", vec![never]);
    let out = s.run(&req).await.expect("run");
    let failure = out.service_failure.clone().expect("a service failure");
    assert_eq!(failure.service, "kv");
    assert!(
        failure.detail.contains("not ready within 2s"),
        "{}",
        failure.detail
    );
    assert!(!out.log_text().contains("the tests ran"), "the script ran");
    assert_eq!(out.exit_code, None);
    assert_nothing_left(&req.session, "never-ready").await;

    // A service that exits at once: said with its code and its last output.
    let mut dies = kv(ServiceReady::Tcp(7000));
    dies.command = Some("echo cannot start >&2; exit 3".into());
    let req = request("dies", "echo the tests ran", vec![dies]);
    let out = s.run(&req).await.expect("run");
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
    assert_nothing_left(&req.session, "crashed-service").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_left_after_failed_timed_out_and_interrupted_runs() {
    let Some(s) = swarm().await else { return };
    let req = request("failed", "exit 1", vec![kv(ServiceReady::Tcp(7000))]);
    let out = s.run(&req).await.expect("run");
    assert_eq!(out.exit_code, Some(1));
    assert_nothing_left(&req.session, "failed").await;

    let mut req = request("timeout", "sleep 60", vec![kv(ServiceReady::Tcp(7000))]);
    req.timeout = Duration::from_secs(3);
    let out = s.run(&req).await.expect("run");
    assert!(out.timed_out);
    assert_nothing_left(&req.session, "timed-out").await;

    // Interrupted while the tests run (the run's future dropped, as on Ctrl-C).
    let req = request("interrupted", "sleep 60", vec![kv(ServiceReady::Tcp(7000))]);
    let cancelled = tokio::time::timeout(Duration::from_secs(10), s.run(&req)).await;
    assert!(cancelled.is_err(), "the run should still be going");
    assert_nothing_left(&req.session, "interrupted").await;

    // Interrupted while a service is being waited for; then the session's cleanup.
    let mut slow = kv(ServiceReady::Command("false".into()));
    slow.ready_timeout = Duration::from_secs(60);
    let req = request("interrupted-ready", "true", vec![slow]);
    let cancelled = tokio::time::timeout(Duration::from_secs(3), s.run(&req)).await;
    assert!(cancelled.is_err(), "the service should still be waited for");
    s.remove_session(&req.session)
        .await
        .expect("remove the session");
    assert_nothing_left(&req.session, "interrupted (readiness)").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_services_start_together() {
    let Some(s) = swarm().await else { return };
    // Two services that each note when they started and take 5 s to be ready: started one
    // after the other, the second would start at least 5 s after the first.
    let slow = |name: &str| {
        let mut k = kv(ServiceReady::Command("test -e /tmp/up".into()));
        k.name = name.into();
        k.hostname = name.into();
        k.command = Some(format!(
            "date +%s > /tmp/kv; sleep 5; touch /tmp/up; {KV_SERVER}"
        ));
        k
    };
    let req = request(
        "together",
        "for h in a b; do exec 3<>/dev/tcp/$h/7000; echo GET >&3; head -n1 <&3; done",
        vec![slow("a"), slow("b")],
    );
    let out = s.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    let starts: Vec<i64> = log
        .lines()
        .map(|l| l.trim_end_matches(';').parse().expect("a start time"))
        .collect();
    assert_eq!(starts.len(), 2, "{log}");
    assert!(
        (starts[0] - starts[1]).abs() < 4,
        "the services started {}s apart",
        (starts[0] - starts[1]).abs()
    );
    assert_nothing_left(&req.session, "finished").await;
}
