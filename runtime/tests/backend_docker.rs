//! The Docker backend against the real engine. Fails loudly when Docker does not answer,
//! unless `TASKC_SKIP_DOCKER=1` is set.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::Duration;

use taskc_runtime::backend::{Backend, ContextFile, ImageBuild, Limits, RunRequest, Upload};
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

async fn assert_no_containers(docker: &DockerBackend, session: &str) {
    let left = docker
        .remove_session(session)
        .await
        .expect("list session containers");
    assert_eq!(left, 0, "containers of session {session} were left behind");
}

#[tokio::test]
async fn runs_a_script_and_captures_combined_output() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let req = request(
        &image,
        "print",
        "cat /opt/greeting.txt /opt/built; echo to-stderr >&2; echo \"root=[$TASKC_ROOT]\"; exit 3",
    );
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(3), "log: {log}");
    assert!(!out.timed_out && !out.oom_killed);
    assert!(log.contains("hello from the context"), "{log}");
    assert!(log.contains("built"), "{log}");
    assert!(log.contains("to-stderr"), "{log}");
    assert!(log.contains("root=[]"), "{log}");
    assert_no_containers(&docker, &req.session).await;
}

#[tokio::test]
async fn pipefail_and_errexit_are_on() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let req = request(&image, "pipefail", "false | true\necho unreachable");
    let out = docker.run(&req).await.expect("run");
    assert_eq!(out.exit_code, Some(1));
    assert!(!out.log_text().contains("unreachable"));
}

#[tokio::test]
async fn a_run_past_its_timeout_is_killed() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let mut req = request(&image, "timeout", "echo started; sleep 120");
    req.timeout = Duration::from_secs(2);
    let out = docker.run(&req).await.expect("run");
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert!(out.duration < Duration::from_secs(20), "{:?}", out.duration);
    assert!(out.log_text().contains("started"));
    assert_no_containers(&docker, &req.session).await;
}

#[tokio::test]
async fn a_run_over_its_memory_limit_is_oom_killed() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let mut req = request(
        &image,
        "oom",
        "python3 -c \"x = b'a' * (512 * 1024 * 1024); print(len(x))\"",
    );
    req.limits = Limits {
        memory_bytes: Some(64 * 1024 * 1024),
        cpus: Some(1.0),
        pids: Some(64),
    };
    let out = docker.run(&req).await.expect("run");
    assert!(
        out.oom_killed,
        "exit {:?}, log: {}",
        out.exit_code,
        out.log_text()
    );
    assert_ne!(out.exit_code, Some(0));
    assert_no_containers(&docker, &req.session).await;
}

#[tokio::test]
async fn test_runs_have_no_network() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let script = r#"
if getent hosts deb.debian.org; then echo RESOLVED; fi
python3 - <<'PY' || true
import socket
try:
    socket.create_connection(("151.101.2.132", 80), timeout=3)
    print("CONNECTED")
except OSError as e:
    print("no connection:", e)
PY
ip_links=$(ls /sys/class/net)
echo "links: $ip_links"
"#;
    let req = request(&image, "nonet", script);
    assert!(!req.network);
    let out = docker.run(&req).await.expect("run");
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(!log.contains("RESOLVED"), "{log}");
    assert!(!log.contains("CONNECTED"), "{log}");
    assert!(log.contains("links: lo"), "{log}");
}

#[tokio::test]
async fn uploads_go_in_and_collected_files_come_back() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let mut req = request(
        &image,
        "files",
        "mkdir -p /work/out/sub\n\
         tr a-z A-Z < /work/in/data.txt > /work/out/result.xml\n\
         echo nested > /work/out/sub/n.txt\n\
         test -x /work/in/run.sh && /work/in/run.sh",
    );
    req.workdir = "/work".into();
    req.uploads = vec![
        Upload {
            path: "/work/in/data.txt".into(),
            bytes: b"shout\n".to_vec(),
            mode: 0o644,
        },
        Upload {
            path: "/work/in/run.sh".into(),
            bytes: b"#!/bin/sh\necho ran-upload\n".to_vec(),
            mode: 0o755,
        },
    ];
    req.collect = vec!["/work/out".into(), "/work/missing.xml".into()];
    let out = docker.run(&req).await.expect("run");
    assert_eq!(out.exit_code, Some(0), "{}", out.log_text());
    assert!(out.log_text().contains("ran-upload"));
    let keys: Vec<&str> = out.collected.keys().map(String::as_str).collect();
    assert_eq!(keys, ["/work/out/result.xml", "/work/out/sub/n.txt"]);
    assert_eq!(out.collected["/work/out/result.xml"], b"SHOUT\n");
    assert_no_containers(&docker, &req.session).await;
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
async fn remove_session_removes_every_container_of_the_session() {
    let Some(docker) = docker().await else { return };
    let image = tiny_image(&docker).await;
    let req = request(&image, "ctrl-c", "sleep 120");
    let (a, b) = (docker.clone(), req.clone());
    let running = tokio::spawn(async move { a.run(&b).await });
    let mut ids = Vec::new();
    for _ in 0..50 {
        ids = docker.session_containers(&req.session).await.unwrap();
        if !ids.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ids.len(), 1, "the run's container should exist");
    // What Ctrl-C handling does.
    assert_eq!(docker.remove_session(&req.session).await.unwrap(), 1);
    // A container whose output is being followed may stay listed for a moment while the
    // engine finishes removing it.
    let mut left = docker.session_containers(&req.session).await.unwrap();
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = docker.session_containers(&req.session).await.unwrap();
    }
    assert!(left.is_empty(), "left behind: {left:?}");
    // The interrupted run reports an error or an outcome; it does not hang.
    let finished = tokio::time::timeout(Duration::from_secs(30), running).await;
    assert!(
        finished.is_ok(),
        "the run hung after its container was removed"
    );
}

#[tokio::test]
async fn a_missing_image_is_a_clear_error() {
    let Some(docker) = docker().await else { return };
    let req = request("taskc-test/does-not-exist:v0", "missing", "true");
    let err = docker.run(&req).await.expect_err("no such image");
    let text = err.to_string();
    assert!(text.contains("does not exist"), "{text}");
    assert!(text.contains("taskc image bootstrap"), "{text}");
}

#[tokio::test]
async fn a_failing_build_shows_its_output() {
    let Some(docker) = docker().await else { return };
    let _ = tiny_image(&docker).await;
    let build = ImageBuild {
        tag: "taskc-test/broken:v1".into(),
        dockerfile: format!("FROM {BASE_IMAGE}\nRUN echo about-to-fail && exit 7\n"),
        ..Default::default()
    };
    let err = docker.ensure_image(&build).await.expect_err("build fails");
    let text = err.to_string();
    assert!(
        text.contains("building image `taskc-test/broken:v1` failed"),
        "{text}"
    );
    assert!(text.contains("about-to-fail"), "{text}");
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
