//! What only the swarm backend shows, on a real single-node swarm (the shared behaviours
//! are in `backend_conformance.rs`): a cancelled run leaves no service or config behind,
//! and each way the swarm cannot run a job is an error naming the swarm operation. FAILS
//! when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;
use std::time::Duration;

use taskc_runtime::backend::{Backend, BackendError, RunRequest, Upload};
use taskc_runtime::swarm::SwarmBackend;

mod support;

use support::docker::{image_tags, UntagRepository};
use support::swarm_guard;

async fn swarm(registry: Option<&str>) -> Option<SwarmBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a swarm test");
        return None;
    }
    swarm_guard::ensure_swarm().expect("a single-node swarm");
    Some(
        SwarmBackend::connect(registry.map(String::from), Default::default())
            .await
            .expect("connect to the swarm"),
    )
}

/// The base image: every engine test needs it (`taskc image bootstrap`).
const IMAGE: &str = taskc_runtime::bootstrap::BASE_IMAGE;

async fn base(s: &SwarmBackend) {
    use taskc_runtime::bootstrap::{bootstrap_base_image_with, BootstrapOptions};
    bootstrap_base_image_with(s.engine(), &BootstrapOptions::default())
        .await
        .expect("bootstrap the base image");
}

/// Objects of `kind` (`service`, `config`, `container`) labelled with `session`.
fn objects(kind: &str, session: &str) -> usize {
    let all = if kind == "container" { "-a" } else { "-q" };
    let out = Command::new("docker")
        .args([kind, "ls", "-q", all, "--filter"])
        .arg(format!("label=taskc.session={session}"))
        .output()
        .expect("docker");
    String::from_utf8_lossy(&out.stdout).lines().count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_run_leaves_no_service_and_no_config() {
    let Some(s) = swarm(None).await else { return };
    base(&s).await;
    let session = format!("swarm-drop-{}", std::process::id());
    let req = RunRequest::new(IMAGE, "swarm-drop", &session, "sleep 120");
    let dropped = tokio::time::timeout(Duration::from_secs(4), s.run(&req)).await;
    assert!(dropped.is_err(), "the run should still be going");
    let mut left = usize::MAX;
    for _ in 0..50 {
        left = objects("service", &session)
            + objects("config", &session)
            + objects("container", &session);
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(left, 0, "the dropped run's service or configs were left");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_timed_out_and_capped_runs_leave_no_container() {
    let Some(s) = swarm(None).await else { return };
    base(&s).await;
    let session = format!("swarm-left-{}", std::process::id());
    let mut finished = RunRequest::new(IMAGE, "swarm-left-1", &session, "echo hi");
    finished.timeout = Duration::from_secs(60);
    assert!(s.run(&finished).await.expect("run").succeeded());
    let mut timed_out = RunRequest::new(IMAGE, "swarm-left-2", &session, "sleep 100");
    timed_out.timeout = Duration::from_secs(2);
    assert!(s.run(&timed_out).await.expect("run").timed_out);
    let flood = "yes \"$(printf 'taskc-flood-%.0s' $(seq 80))\"";
    let capped = RunRequest::new(IMAGE, "swarm-left-3", &session, flood);
    assert!(s.run(&capped).await.expect("run").log_truncated);
    // The engine removes a force-removed task's container asynchronously: allow it 10 s.
    let mut left = usize::MAX;
    for _ in 0..50 {
        left = objects("container", &session);
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(left, 0, "task containers were left");
    assert_eq!(
        objects("service", &session) + objects("config", &session),
        0
    );
}

/// The repository a push to the unreachable registry tags the image in.
const REFUSED_REPOSITORY: &str = "127.0.0.1:9/taskc/run-image";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registry_that_refuses_the_push_is_named_and_leaves_no_tag() {
    // Nothing listens on port 9 of loopback: the push is refused.
    let Some(s) = swarm(Some("127.0.0.1:9")).await else {
        return;
    };
    base(&s).await;
    // What an earlier, interrupted run left goes now; what this one leaves, at the end.
    let _untag = UntagRepository::new(REFUSED_REPOSITORY);
    let req = RunRequest::new(IMAGE, "swarm-push", "swarm-push", "true");
    let err = s.run(&req).await.expect_err("the push fails");
    let text = err.to_string();
    assert!(
        text.contains("swarm: push the image to the registry"),
        "{text}"
    );
    assert!(text.contains("127.0.0.1:9"), "{text}");
    // The failed push took back the tag it gave the image.
    assert_eq!(image_tags(REFUSED_REPOSITORY), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inputs_over_the_config_budget_are_refused_before_anything_is_created() {
    let Some(s) = swarm(None).await else { return };
    base(&s).await;
    let session = format!("swarm-big-{}", std::process::id());
    let mut req = RunRequest::new(IMAGE, "swarm-big", &session, "true");
    req.uploads = vec![Upload {
        path: "/taskc/blobs/huge".into(),
        bytes: vec![0; 65 * 1024 * 1024],
        mode: 0o600,
    }];
    let err = s.run(&req).await.expect_err("too big");
    assert!(
        matches!(
            err,
            BackendError::Docker {
                op: "swarm: create configs",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(objects("config", &session), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_the_swarm_rejects_is_an_error_not_an_outcome() {
    let Some(s) = swarm(None).await else { return };
    base(&s).await;
    // A working directory that is a file: the node cannot create the task's container.
    let mut req = RunRequest::new(IMAGE, "swarm-prep", "swarm-prep", "true");
    req.workdir = "/etc/hostname".into();
    let err = s.run(&req).await.expect_err("the task cannot start");
    let text = format!("{err}\nhelp: {}", err.hint().unwrap_or_default());
    assert!(text.contains("swarm: run the job's task"), "{text}");
    assert!(text.contains("docker service ps"), "{text}");
}
