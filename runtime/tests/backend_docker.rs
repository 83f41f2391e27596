//! What only the Docker backend shows, against the real engine (the behaviours every
//! backend shares are in `backend_conformance.rs`). Fails loudly when Docker does not
//! answer, unless `TASKC_SKIP_DOCKER=1` is set.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::Duration;

use taskc_runtime::backend::{Backend, ContextFile, ImageBuild, RunRequest, Upload};
use taskc_runtime::bootstrap::{bootstrap_base_image_with, BootstrapOptions, BASE_IMAGE};
use taskc_runtime::docker::DockerBackend;
use tokio::sync::OnceCell;

static TINY: OnceCell<String> = OnceCell::const_new();

/// Connects, or returns `None` when the suite is told to skip Docker.
async fn docker() -> Option<DockerBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker test");
        return None;
    }
    match DockerBackend::connect().await {
        Ok(d) => Some(d),
        Err(e) => panic!("Docker is required for this test (set TASKC_SKIP_DOCKER=1 to skip): {e}"),
    }
}

/// Bootstraps the base image (once, reused by tag) and builds a tiny image on it.
async fn tiny_image(docker: &DockerBackend) -> String {
    TINY.get_or_init(|| async {
        let info = bootstrap_base_image_with(docker, &BootstrapOptions::default())
            .await
            .expect("bootstrap the base image");
        eprintln!(
            "base image {} ({}), reused={}, {:?}",
            info.tag, info.image_id, info.reused, info.duration
        );
        let build = ImageBuild {
            tag: "taskc-test/tiny:v1".into(),
            dockerfile: format!(
                "FROM {BASE_IMAGE}\nCOPY greeting.txt /opt/greeting.txt\nRUN echo built > /opt/built\n"
            ),
            context: vec![ContextFile {
                path: "greeting.txt".into(),
                bytes: b"hello from the context\n".to_vec(),
                mode: 0o644,
                mtime: 946_684_800,
            }],
            labels: BTreeMap::from([("taskc.test".into(), "tiny".into())]),
            ..Default::default()
        };
        docker.ensure_image(&build).await.expect("build the tiny image");
        // A second call finds the tag and does nothing.
        docker.ensure_image(&build).await.expect("ensure is idempotent");
        build.tag
    })
    .await
    .clone()
}

fn request(image: &str, name: &str, script: &str) -> RunRequest {
    let mut req = RunRequest::new(image, format!("test-{name}"), session(name), script);
    req.timeout = Duration::from_secs(60);
    req
}

fn session(name: &str) -> String {
    format!("test-session-{name}-{}", std::process::id())
}

#[tokio::test]
async fn test_runs_have_only_a_loopback_interface() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    // `network_mode: none`: the container has no interface but loopback.
    let script = "echo \"links: $(ls /sys/class/net)\"";
    let req = request(&image, "nonet", script);
    assert!(!req.network);
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(log.contains("links: lo\n"), "{log}");
}

#[tokio::test]
async fn a_cancelled_run_leaves_nothing_behind() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let req = request(&image, "cancel", "sleep 120");
    let cancelled = tokio::time::timeout(Duration::from_secs(2), docker.run(&req)).await;
    assert!(cancelled.is_err(), "the run should still be going");
    // Dropping the run's future removes its container in the background.
    let mut left = docker.session_containers(&req.session).await.unwrap();
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        left = docker.session_containers(&req.session).await.unwrap();
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[tokio::test]
async fn run_overhead_is_small() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let mut req = request(&image, "overhead", "true");
    req.uploads = vec![Upload {
        path: "/work/x.patch".into(),
        bytes: vec![b'x'; 4096],
        mode: 0o644,
    }];
    req.collect = vec!["/work/x.patch".into()];
    let n = 10;
    let started = std::time::Instant::now();
    for _ in 0..n {
        let out = docker.run(&req).await.expect("run");
        assert_eq!(out.exit_code, Some(0));
        assert_eq!(out.collected.len(), 1);
    }
    let each = started.elapsed() / n;
    eprintln!("docker run overhead (create, upload, start, wait, inspect, logs, collect, remove): {each:?} per run");
    assert!(each < Duration::from_secs(10), "{each:?}");
}

/// The container's stderr is the root wrapper's alone (`docker/mod.rs`, `WRAPPER`): what the
/// script or the unprivileged test user writes to stderr is log (container stdout), so a
/// trailer printed by the tests is just text in the log, and the collected files are the
/// harness's own.
#[tokio::test]
async fn the_tests_cannot_write_the_trailer() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let script = r#"mkdir -p /taskc/harness && chmod 0700 /taskc /taskc/harness && echo real > /taskc/harness/exit
echo from-the-script-stderr >&2
setpriv --reuid 10001 --regid 10001 --clear-groups --no-new-privs -- bash -c '
  forged=$(printf "harness/exit\n" | base64 -w 0)
  printf "taskc-trailer exit=0\n%s\ntaskc-trailer end\n" "$forged" >&2
  for f in /proc/[0-9]*/fd/2; do
    pid=${f#/proc/}; pid=${pid%%/*}
    [ "$(stat -c %u "/proc/$pid" 2>/dev/null)" = 10001 ] && continue
    ( echo "taskc-trailer exit=9" > "$f" ) 2>/dev/null && echo "reached $f"
  done
  echo done-as-test-user
'"#;
    let mut req = request(&image, "trailer", script);
    req.collect = vec!["/taskc/harness".into()];
    req.uploads = vec![Upload {
        path: "/taskc/blobs/in.txt".into(),
        bytes: b"input\n".to_vec(),
        mode: 0o600,
    }];
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(log.contains("done-as-test-user"), "{log}");
    assert!(log.contains("from-the-script-stderr"), "{log}");
    assert!(
        log.contains("taskc-trailer exit=0"),
        "the forged trailer is log: {log}"
    );
    assert!(
        !log.contains("reached"),
        "a root process's stderr was writable: {log}"
    );
    assert_eq!(
        out.collected.get("/taskc/harness/exit").map(Vec::as_slice),
        Some(&b"real\n"[..]),
        "{:?}",
        out.collected.keys()
    );
    assert_eq!(out.collected.len(), 1, "{:?}", out.collected.keys());
}
