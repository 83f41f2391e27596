//! The behaviours every backend shows, written once over `Arc<dyn Backend>` and run
//! against each backend (`docker`, `local`, `swarm` modules below). A new backend is
//! accepted when it passes this suite: add one `conformance!` line and a subject.
//!
//! Docker and swarm need the engine (they fail loudly without it unless
//! `TASKC_SKIP_DOCKER=1`); the swarm subject turns the engine into a single-node swarm for
//! the run of the binary and leaves it afterwards if it made it (`support/swarm_guard.rs`).
//! On the engine, gc only dry-runs: other images on it are not this test's to remove.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use taskc_runtime::backend::{
    Backend, BackendError, ContextFile, GcItem, ImageBuild, KeepImages, Limits, Ownership,
    RunRequest, Upload, LOG_CAP, TRUNCATION_MARKER,
};
use tokio::sync::OnceCell;

#[path = "support/swarm_guard.rs"]
mod swarm_guard;

const IMAGE: &str = "taskc-test/conformance:v1";
const OTHER: &str = "taskc-test/conformance-other:v1";

/// A backend under test and what it is known to enforce.
struct Subject {
    backend: Arc<dyn Backend>,
    /// Memory limits are enforced (OOM kills are outcomes).
    limits_memory: bool,
    /// Test runs are cut off from the network.
    offline: bool,
    /// Images have engine content ids and names.
    engine_images: bool,
    /// gc may really remove here (a private cache, not a shared engine).
    gc_removes: bool,
    /// `remove_session` stops runs still in flight (engines); the local backend's runs
    /// stop when their futures are dropped, which Ctrl-C does first.
    removes_live_runs: bool,
    _cache: Option<tempfile::TempDir>,
}

/// The image every behaviour runs on, built the same way on each backend: a file from the
/// context and one written by a build step.
fn image_build(tag: &str) -> ImageBuild {
    ImageBuild {
        tag: tag.into(),
        dockerfile: format!(
            "FROM {}\nCOPY opt/greeting.txt /opt/greeting.txt\nRUN echo built > /opt/built\n",
            taskc_runtime::bootstrap::BASE_IMAGE
        ),
        context: vec![ContextFile {
            path: "opt/greeting.txt".into(),
            bytes: b"hello from the context\n".to_vec(),
            mode: 0o644,
            mtime: 946_684_800,
        }],
        labels: BTreeMap::from([("taskc.test".into(), "conformance".into())]),
        local_setup: vec!["echo built > opt/built".into()],
        local_requires: vec!["bash".into(), "python3".into()],
    }
}

fn skip_engine() -> bool {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker/swarm conformance test");
        return true;
    }
    false
}

static BASE: OnceCell<()> = OnceCell::const_new();

/// Bootstraps the base image once per binary (reused by tag).
async fn base_image(docker: &taskc_runtime::docker::DockerBackend) {
    BASE.get_or_init(|| async {
        use taskc_runtime::bootstrap::{bootstrap_base_image_with, BootstrapOptions};
        bootstrap_base_image_with(docker, &BootstrapOptions::default())
            .await
            .expect("bootstrap the base image");
    })
    .await;
}

async fn with_images(backend: &dyn Backend) {
    backend
        .ensure_image(&image_build(IMAGE))
        .await
        .expect("build");
    // A second call finds the tag and does nothing.
    backend
        .ensure_image(&image_build(IMAGE))
        .await
        .expect("ensure is idempotent");
    backend
        .ensure_image(&image_build(OTHER))
        .await
        .expect("build other");
}

async fn docker_subject() -> Option<Subject> {
    if skip_engine() {
        return None;
    }
    let docker = taskc_runtime::docker::DockerBackend::connect()
        .await
        .unwrap_or_else(|e| panic!("Docker is required (TASKC_SKIP_DOCKER=1 skips): {e}"));
    base_image(&docker).await;
    with_images(&docker).await;
    Some(Subject {
        backend: Arc::new(docker),
        limits_memory: true,
        offline: true,
        engine_images: true,
        gc_removes: false,
        removes_live_runs: true,
        _cache: None,
    })
}

async fn local_subject() -> Option<Subject> {
    let cache = tempfile::tempdir().unwrap();
    let local = taskc_runtime::local::LocalBackend::new(cache.path());
    let offline = local.isolates_network();
    with_images(&local).await;
    Some(Subject {
        backend: Arc::new(local),
        limits_memory: false,
        offline,
        engine_images: false,
        gc_removes: true,
        removes_live_runs: false,
        _cache: Some(cache),
    })
}

async fn swarm_subject() -> Option<Subject> {
    if skip_engine() {
        return None;
    }
    swarm_guard::ensure_swarm().expect("a single-node swarm");
    let docker = taskc_runtime::docker::DockerBackend::connect()
        .await
        .unwrap_or_else(|e| panic!("Docker is required (TASKC_SKIP_DOCKER=1 skips): {e}"));
    base_image(&docker).await;
    let swarm = taskc_runtime::swarm::SwarmBackend::connect(None, Default::default())
        .await
        .expect("connect to the swarm");
    with_images(&swarm).await;
    Some(Subject {
        backend: Arc::new(swarm),
        limits_memory: true,
        offline: true,
        engine_images: true,
        gc_removes: false,
        removes_live_runs: true,
        _cache: None,
    })
}

fn request(name: &str, script: &str) -> RunRequest {
    let mut req = RunRequest::new(
        IMAGE,
        format!("conformance-{name}"),
        format!("conformance-{name}-{}", std::process::id()),
        script,
    );
    req.timeout = Duration::from_secs(60);
    req
}

/// Nothing of the run's session is left (remove_session finds nothing to remove).
async fn assert_nothing_left(s: &Subject, req: &RunRequest) {
    let left = s
        .backend
        .remove_session(&req.session)
        .await
        .expect("remove_session");
    assert_eq!(left, 0, "runs of session {} were left behind", req.session);
}

/// Every behaviour, once.
mod behaviour {
    use super::*;

    pub async fn exit_codes_and_combined_output(s: &Subject) {
        let req = request(
            "print",
            "cat \"$TASKC_ROOT/opt/greeting.txt\" \"$TASKC_ROOT/opt/built\"\n\
             echo to-stderr >&2\necho last-line; exit 3",
        );
        let out = s.backend.run(&req).await.expect("run");
        let log = out.log_text();
        assert_eq!(out.exit_code, Some(3), "{log}");
        assert!(!out.timed_out && !out.oom_killed && !out.log_truncated);
        assert!(log.contains("hello from the context\nbuilt\n"), "{log}");
        assert!(log.contains("to-stderr"), "{log}");
        // stdout and stderr are two streams: their order against each other may differ.
        assert!(log.contains("last-line\n"), "{log:?}");
        let ok = s.backend.run(&request("true", "true")).await.expect("run");
        assert!(ok.succeeded(), "{}", ok.log_text());
        assert_nothing_left(s, &req).await;
    }

    pub async fn pipefail_and_errexit_are_on(s: &Subject) {
        let out = s
            .backend
            .run(&request("pipefail", "false | true\necho unreachable"))
            .await
            .expect("run");
        assert_eq!(out.exit_code, Some(1));
        assert!(!out.log_text().contains("unreachable"));
    }

    pub async fn uploads_go_in_at_their_paths_and_collected_files_come_back(s: &Subject) {
        let mut req = request(
            "files",
            "mkdir -p out/sub\n\
             tr a-z A-Z < in/data.txt > out/result.xml\n\
             echo nested > out/sub/n.txt\n\
             stat -c %a in/run.sh\n\
             ./in/run.sh",
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
        let out = s.backend.run(&req).await.expect("run");
        let log = out.log_text();
        assert_eq!(out.exit_code, Some(0), "{log}");
        assert!(log.contains("755\nran-upload"), "{log}");
        let keys: Vec<&str> = out.collected.keys().map(String::as_str).collect();
        assert_eq!(keys, ["/work/out/result.xml", "/work/out/sub/n.txt"]);
        assert_eq!(out.collected["/work/out/result.xml"], b"SHOUT\n");
        assert_nothing_left(s, &req).await;
    }

    pub async fn a_large_upload_arrives_whole(s: &Subject) {
        // Over a swarm config's 500 KiB: split and joined again.
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let mut req = request(
            "large",
            "sha256sum \"$TASKC_ROOT/taskc/blobs/big.bin\" | cut -c1-64",
        );
        let want = {
            use sha2::Digest;
            hex::encode(sha2::Sha256::digest(&bytes))
        };
        req.uploads = vec![Upload {
            path: "/taskc/blobs/big.bin".into(),
            bytes,
            mode: 0o600,
        }];
        let out = s.backend.run(&req).await.expect("run");
        assert_eq!(out.exit_code, Some(0), "{}", out.log_text());
        assert_eq!(out.log_text().trim(), want);
    }

    pub async fn a_run_past_its_timeout_is_a_timeout(s: &Subject) {
        let mut req = request("timeout", "echo started; sleep 120");
        req.timeout = Duration::from_secs(3);
        let out = s.backend.run(&req).await.expect("run");
        assert!(out.timed_out, "{out:?}");
        assert_eq!(out.exit_code, None);
        assert!(out.duration < Duration::from_secs(20), "{:?}", out.duration);
        assert!(out.log_text().contains("started"), "{}", out.log_text());
        assert_nothing_left(s, &req).await;
    }

    pub async fn a_run_over_its_memory_limit_is_oom_killed(s: &Subject) {
        if !s.limits_memory {
            eprintln!("{}: no memory limits", s.backend.name());
            return;
        }
        let mut req = request(
            "oom",
            "python3 -c \"x = b'a' * (512 * 1024 * 1024); print(len(x))\"",
        );
        req.limits = Limits {
            memory_bytes: Some(64 * 1024 * 1024),
            cpus: Some(1.0),
            pids: Some(64),
        };
        let out = s.backend.run(&req).await.expect("run");
        assert!(
            out.oom_killed,
            "exit {:?}: {}",
            out.exit_code,
            out.log_text()
        );
        assert_ne!(out.exit_code, Some(0));
        assert_nothing_left(s, &req).await;
    }

    pub async fn output_past_the_cap_is_cut_with_a_marker_and_stops_the_run(s: &Subject) {
        // Lines of 1 KiB: the swarm's log broker handles each line as one message.
        let flood = "yes \"$(printf 'taskc-flood-%.0s' $(seq 80))\"";
        let started = Instant::now();
        let out = s
            .backend
            .run(&request("huge", &format!("{flood}; echo done")))
            .await
            .expect("run");
        assert!(
            started.elapsed() < Duration::from_secs(50),
            "{:?}",
            started.elapsed()
        );
        assert!(!out.timed_out);
        assert_ne!(out.exit_code, Some(0), "the run was not stopped");
        assert!(out.log_truncated);
        assert_eq!(out.log.len(), LOG_CAP + TRUNCATION_MARKER.len());
        assert!(out.log.ends_with(TRUNCATION_MARKER));
        assert!(!out.log_text().contains("done"));
        // Streamed to a file: the same cap and marker.
        let dir = tempfile::tempdir().unwrap();
        let mut req = request("huge-file", flood);
        req.log_to = Some(dir.path().join("log"));
        let out = s.backend.run(&req).await.expect("run");
        assert!(out.log_truncated);
        // The local backend keeps the log in memory even when asked to stream it.
        let written = std::fs::read(dir.path().join("log")).unwrap_or_default();
        let written = if written.is_empty() { out.log } else { written };
        assert_eq!(written.len(), LOG_CAP + TRUNCATION_MARKER.len());
    }

    pub async fn test_runs_have_no_network(s: &Subject) {
        if !s.offline {
            eprintln!("{}: this host cannot take runs offline", s.backend.name());
            return;
        }
        let script = r#"
if timeout 10 getent hosts deb.debian.org; then echo RESOLVED; fi
python3 - <<'PY' || true
import socket
try:
    socket.create_connection(("151.101.2.132", 80), timeout=3)
    print("CONNECTED")
except OSError as e:
    print("no connection:", e)
PY
"#;
        let started = Instant::now();
        let out = s.backend.run(&request("nonet", script)).await.expect("run");
        let log = out.log_text();
        assert_eq!(out.exit_code, Some(0), "{log}");
        assert!(
            !log.contains("RESOLVED") && !log.contains("CONNECTED"),
            "{log}"
        );
        assert!(log.contains("no connection"), "{log}");
        // Name lookups fail at once, they do not wait for a resolver that never answers.
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{:?}",
            started.elapsed()
        );
    }

    pub async fn runs_do_not_see_each_other(s: &Subject) {
        let first = s
            .backend
            .run(&request(
                "a",
                "echo changed > \"$TASKC_ROOT/opt/greeting.txt\"",
            ))
            .await
            .expect("run");
        assert_eq!(first.exit_code, Some(0), "{}", first.log_text());
        let second = s
            .backend
            .run(&request("b", "cat \"$TASKC_ROOT/opt/greeting.txt\""))
            .await
            .expect("run");
        assert!(
            second.log_text().contains("hello from the context"),
            "{}",
            second.log_text()
        );
    }

    pub async fn the_harness_can_drop_to_the_unprivileged_test_user(s: &Subject) {
        let script = r#"mkdir -p "$TASKC_ROOT/work/repo" && chown -R 10001:10001 "$TASKC_ROOT/work/repo"
setpriv --reuid 10001 --regid 10001 --clear-groups --no-new-privs -- bash -c '
  echo "uid=$(id -u)"
  touch "$TASKC_ROOT/work/repo/ok" && echo repo-writable
  ( touch "$TASKC_ROOT/opt/x" ) 2>/dev/null && echo harness-writable
  grep -q "^CapEff:.0000000000000000" /proc/self/status && echo no-caps
'"#;
        let out = s.backend.run(&request("drop", script)).await.expect("run");
        let log = out.log_text();
        for want in ["uid=10001", "repo-writable", "no-caps"] {
            assert!(log.contains(want), "no `{want}`: {log}");
        }
        assert!(!log.contains("harness-writable"), "{log}");
    }

    pub async fn remove_session_stops_and_removes_the_sessions_runs(s: &Subject) {
        if !s.removes_live_runs {
            eprintln!("{}: runs stop with their futures", s.backend.name());
            return;
        }
        let req = request("ctrl-c", "sleep 120");
        let (backend, running_req) = (s.backend.clone(), req.clone());
        let running = tokio::spawn(async move { backend.run(&running_req).await });
        // What Ctrl-C handling does, once the run exists.
        let mut removed = 0;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            removed = s
                .backend
                .remove_session(&req.session)
                .await
                .expect("remove");
            if removed > 0 {
                break;
            }
        }
        assert_eq!(removed, 1, "the run's object should have existed");
        let finished = tokio::time::timeout(Duration::from_secs(40), running).await;
        assert!(
            finished.is_ok(),
            "the run hung after its session was removed"
        );
        // Removal may still be under way in the engine for a moment.
        let mut left = 1;
        for _ in 0..50 {
            left = s
                .backend
                .remove_session(&req.session)
                .await
                .expect("remove");
            if left == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert_eq!(left, 0, "runs of the session were left behind");
    }

    pub async fn a_cancelled_run_is_cleaned_up(s: &Subject) {
        let req = request("cancel", "sleep 120");
        let cancelled = tokio::time::timeout(Duration::from_secs(3), s.backend.run(&req)).await;
        assert!(cancelled.is_err(), "the run should still be going");
        s.backend
            .remove_session(&req.session)
            .await
            .expect("remove");
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_nothing_left(s, &req).await;
    }

    pub async fn bad_requests_and_missing_images_are_clear_errors(s: &Subject) {
        let mut req = request("bad", "true");
        req.uploads = vec![Upload {
            path: "work/x".into(),
            bytes: vec![],
            mode: 0o644,
        }];
        let err = s.backend.run(&req).await.unwrap_err();
        assert!(matches!(err, BackendError::InvalidRequest { .. }), "{err}");
        assert!(err.to_string().contains("must be absolute"), "{err}");
        req.uploads[0].path = "/work/../../x".into();
        let err = s.backend.run(&req).await.unwrap_err();
        assert!(err.to_string().contains("must not contain `..`"), "{err}");
        let mut req = request("missing", "true");
        req.image = "taskc-test/does-not-exist:v0".into();
        let err = s.backend.run(&req).await.unwrap_err();
        assert!(matches!(err, BackendError::ImageMissing { .. }), "{err}");
        assert!(err.to_string().contains("does not exist"), "{err}");
    }

    pub async fn a_failing_build_shows_its_output(s: &Subject) {
        let mut build = image_build("taskc-test/conformance-broken:v1");
        build.dockerfile = format!(
            "FROM {}\nRUN echo about-to-fail && exit 7\n",
            taskc_runtime::bootstrap::BASE_IMAGE
        );
        build.local_setup = vec!["echo about-to-fail; exit 7".into()];
        let err = s.backend.ensure_image(&build).await.unwrap_err();
        assert!(err.to_string().contains("about-to-fail"), "{err}");
        let mut req = request("broken", "true");
        req.image = build.tag.clone();
        let err = s.backend.run(&req).await.unwrap_err();
        assert!(matches!(err, BackendError::ImageMissing { .. }), "{err}");
    }

    pub async fn image_content_ids_and_names(s: &Subject) {
        let id = s.backend.image_content_id(IMAGE).await.expect("content id");
        let again = s.backend.image_content_id(IMAGE).await.expect("content id");
        assert_eq!(id, again, "stable");
        let tagged = s
            .backend
            .tag_image(IMAGE, "taskc-test/conformance-named:v1")
            .await;
        if s.engine_images {
            let id = id.expect("an engine image has a content id");
            assert!(id.starts_with("sha256:"), "{id}");
            let other = s.backend.image_content_id(OTHER).await.unwrap().unwrap();
            assert_ne!(id, other, "different images, different ids");
            let err = s
                .backend
                .image_content_id("taskc-test/does-not-exist:v0")
                .await
                .unwrap_err();
            assert!(matches!(err, BackendError::ImageMissing { .. }), "{err}");
            tagged.expect("tag");
            let mut req = request("named", "cat \"$TASKC_ROOT/opt/built\"");
            req.image = "taskc-test/conformance-named:v1".into();
            let out = s.backend.run(&req).await.expect("run on the new name");
            assert_eq!(out.log_text(), "built\n");
        } else {
            assert_eq!(id, None);
            let err = tagged.unwrap_err();
            assert!(matches!(err, BackendError::Unsupported { .. }), "{err}");
        }
    }

    pub async fn gc_keeps_what_it_is_told_and_dry_runs(s: &Subject) {
        // The test's sessions used both images (gc touches only what its cache's sessions used).
        let keep = KeepImages {
            tags: [IMAGE.to_string()].into(),
            owner: Ownership {
                images: [IMAGE.to_string(), OTHER.to_string()].into(),
                ..Ownership::default()
            },
        };
        let names = |items: &[GcItem]| -> Vec<String> {
            items
                .iter()
                .filter_map(|i| match i {
                    GcItem::Image { name } => Some(name.clone()),
                    GcItem::ImageFolder { path } => Some(path.display().to_string()),
                    _ => None,
                })
                .collect()
        };
        let dry = s.backend.gc(&keep, true).await.expect("gc dry run");
        assert!(dry.dry_run);
        let listed = names(&dry.removed);
        let other = listed.iter().any(|n| n.contains("conformance-other"));
        assert!(other, "the unkept image is listed: {listed:?}");
        let kept = |n: &&String| {
            n.contains("conformance")
                && !["-other", "-broken", "-named"]
                    .iter()
                    .any(|x| n.contains(x))
        };
        assert!(
            !listed.iter().any(|n| kept(&n)),
            "the kept image is not listed: {listed:?}"
        );
        assert!(
            !listed.iter().any(|n| n.starts_with("taskc/base:")),
            "{listed:?}"
        );
        // Nothing was removed by the dry run.
        let req = |image: &str| {
            let mut r = request("after-gc", "true");
            r.image = image.into();
            r
        };
        assert!(s
            .backend
            .run(&req(OTHER))
            .await
            .expect("still there")
            .succeeded());
        if s.gc_removes {
            let report = s.backend.gc(&keep, false).await.expect("gc");
            assert_eq!(report.removed, dry.removed);
            let err = s.backend.run(&req(OTHER)).await.unwrap_err();
            assert!(matches!(err, BackendError::ImageMissing { .. }), "{err}");
            assert!(s.backend.run(&req(IMAGE)).await.expect("kept").succeeded());
        }
    }
}

/// One test per behaviour for a backend `$name` whose subject `$subject` opens.
macro_rules! conformance {
    ($name:ident, $subject:ident) => {
        mod $name {
            use super::*;

            macro_rules! case {
                ($case:ident) => {
                    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                    async fn $case() {
                        let Some(s) = $subject().await else { return };
                        behaviour::$case(&s).await;
                    }
                };
            }

            case!(exit_codes_and_combined_output);
            case!(pipefail_and_errexit_are_on);
            case!(uploads_go_in_at_their_paths_and_collected_files_come_back);
            case!(a_large_upload_arrives_whole);
            case!(a_run_past_its_timeout_is_a_timeout);
            case!(a_run_over_its_memory_limit_is_oom_killed);
            case!(output_past_the_cap_is_cut_with_a_marker_and_stops_the_run);
            case!(test_runs_have_no_network);
            case!(runs_do_not_see_each_other);
            case!(the_harness_can_drop_to_the_unprivileged_test_user);
            case!(remove_session_stops_and_removes_the_sessions_runs);
            case!(a_cancelled_run_is_cleaned_up);
            case!(bad_requests_and_missing_images_are_clear_errors);
            case!(a_failing_build_shows_its_output);
            case!(image_content_ids_and_names);
            case!(gc_keeps_what_it_is_told_and_dry_runs);
        }
    };
}

conformance!(docker, docker_subject);
conformance!(local, local_subject);
conformance!(swarm, swarm_subject);
