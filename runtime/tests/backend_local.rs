//! What only the local backend shows: its environment, process-group kills, programs on
//! PATH, the bubblewrap sandbox (the behaviours every backend shares are in
//! `backend_conformance.rs`).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use taskc_runtime::backend::{Backend, BackendError, ContextFile, ImageBuild, RunRequest};
use taskc_runtime::local::LocalBackend;

struct Fixture {
    cache: tempfile::TempDir,
    backend: LocalBackend,
}

async fn fixture() -> Fixture {
    let cache = tempfile::tempdir().unwrap();
    let backend = LocalBackend::new(cache.path());
    let build = ImageBuild {
        tag: "taskc-test/local:v1".into(),
        dockerfile: "FROM scratch\n".into(),
        context: vec![ContextFile {
            path: "opt/greeting.txt".into(),
            bytes: b"hello from the context\n".to_vec(),
            mode: 0o644,
            mtime: 946_684_800,
        }],
        local_setup: vec!["echo built > opt/built".into()],
        local_requires: vec!["bash".into(), "git".into()],
        ..Default::default()
    };
    backend.ensure_image(&build).await.unwrap();
    backend.ensure_image(&build).await.unwrap();
    Fixture { cache, backend }
}

fn request(name: &str, script: &str) -> RunRequest {
    let mut req = RunRequest::new(
        "taskc-test/local:v1",
        format!("run-{name}"),
        "session-1",
        script,
    );
    req.timeout = Duration::from_secs(30);
    req
}

/// Everything under the cache folder except images (i.e. leftovers of runs).
fn leftovers(f: &Fixture) -> Vec<String> {
    let runs = f.cache.path().join("runs");
    let mut out = Vec::new();
    if let Ok(sessions) = std::fs::read_dir(&runs) {
        for s in sessions.flatten() {
            for r in std::fs::read_dir(s.path()).unwrap().flatten() {
                out.push(r.path().display().to_string());
            }
        }
    }
    out
}

#[tokio::test]
async fn runs_a_script_with_a_clean_environment() {
    let f = fixture().await;
    let script = r#"cat "$TASKC_ROOT/opt/greeting.txt" "$TASKC_ROOT/opt/built"
echo to-stderr >&2
echo "home=$HOME"
echo "user=${USER:-unset}"
echo "pwd=$PWD"
exit 3"#;
    let out = f.backend.run(&request("print", script)).await.unwrap();
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(3), "{log}");
    assert!(
        log.contains("hello from the context") && log.contains("built"),
        "{log}"
    );
    assert!(log.contains("to-stderr"), "{log}");
    assert!(log.contains("user=unset"), "env is cleared: {log}");
    let cache = f.cache.path().display().to_string();
    assert!(
        log.contains(&format!("home={cache}")),
        "HOME inside the cache: {log}"
    );
    assert!(leftovers(&f).is_empty(), "{:?}", leftovers(&f));
}

#[tokio::test]
async fn a_timeout_kills_the_whole_process_group() {
    let f = fixture().await;
    let marker = f.cache.path().join("survivor");
    let script = format!(
        "(sleep 3; touch {}) &\necho started\nsleep 120",
        marker.display()
    );
    let mut req = request("timeout", &script);
    req.timeout = Duration::from_secs(1);
    let out = f.backend.run(&req).await.unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code, None);
    assert!(out.duration < Duration::from_secs(5), "{:?}", out.duration);
    assert!(out.log_text().contains("started"));
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(!marker.exists(), "a background child survived the kill");
    assert!(leftovers(&f).is_empty());
}

#[tokio::test]
async fn a_missing_program_is_named() {
    let f = fixture().await;
    let build = ImageBuild {
        tag: "taskc-test/needs:v1".into(),
        local_requires: vec!["taskc-no-such-program".into()],
        ..Default::default()
    };
    let err = f.backend.ensure_image(&build).await.unwrap_err();
    assert!(matches!(err, BackendError::MissingProgram { .. }));
    // The message says what failed; what to do is data (`hint`), rendered by the CLI.
    insta::assert_snapshot!(err.to_string(), @"image `taskc-test/needs:v1` needs the program `taskc-no-such-program`, which is not on PATH");
    assert_eq!(
        err.hint().as_deref(),
        Some("install `taskc-no-such-program` on this machine, or use `--backend docker`")
    );
}

#[tokio::test]
async fn the_network_namespace_is_used_only_for_offline_runs() {
    let f = fixture().await;
    if !f.backend.isolates_network() {
        // SAFETY: geteuid has no preconditions.
        assert_ne!(
            unsafe { libc::geteuid() },
            0,
            "as root, `unshare --net` must work"
        );
        eprintln!("this host does not allow `unshare --net`: runs keep the network");
        return;
    }
    // Offline runs are the conformance suite's (`test_runs_have_no_network`); here: as root
    // the namespace must be available, and with the network asked for it is not used.
    // With the network asked for, the namespace is not used.
    let mut req = request("net", "getent hosts localhost >/dev/null && echo ok");
    req.network = true;
    assert_eq!(f.backend.run(&req).await.unwrap().exit_code, Some(0));
}

#[tokio::test]
async fn run_overhead_is_small() {
    let f = fixture().await;
    let n = 20;
    let started = std::time::Instant::now();
    for _ in 0..n {
        let out = f.backend.run(&request("overhead", "true")).await.unwrap();
        assert_eq!(out.exit_code, Some(0));
    }
    let each = started.elapsed() / n;
    eprintln!("local run overhead (copy image, spawn, wait, remove): {each:?} per run");
    assert!(each < Duration::from_secs(2), "{each:?}");
}

#[tokio::test]
async fn setup_runs_where_the_image_lives() {
    let f = fixture().await;
    let build = ImageBuild {
        tag: "taskc-test/where:v1".into(),
        local_setup: vec![
            "printf '#!/bin/sh\\necho from-setup\\n' > tool.sh && chmod +x tool.sh".into(),
            "ln -s \"$TASKC_ROOT/tool.sh\" link.sh".into(),
        ],
        ..Default::default()
    };
    f.backend.ensure_image(&build).await.unwrap();
    let dir = f.backend.image_dir("taskc-test/where:v1");
    // An absolute path recorded by setup points into the image folder, which persists.
    assert_eq!(
        std::fs::read_link(dir.join("link.sh")).unwrap(),
        dir.join("tool.sh")
    );
    let req = RunRequest::new("taskc-test/where:v1", "r", "s", "\"$TASKC_ROOT/link.sh\"");
    let out = f.backend.run(&req).await.unwrap();
    assert!(out.log_text().contains("from-setup"), "{}", out.log_text());
}

/// The sandbox is on where bubblewrap is installed (scripts/setup.sh installs it): these
/// tests fail rather than skip without it.
fn sandboxed(f: &Fixture) {
    let status = f.backend.sandbox_status();
    assert!(
        status.is_sandboxed(),
        "the local backend is not sandboxed here: {status:?} (run scripts/setup.sh)"
    );
}

#[tokio::test]
async fn a_sandboxed_run_sees_only_its_own_workspace() {
    let f = fixture().await;
    sandboxed(&f);
    let image = f.backend.image_dir("taskc-test/local:v1");
    let cache = f.cache.path().display().to_string();
    let caller = std::env::current_dir().unwrap().display().to_string();
    let script = format!(
        r#"echo "hostname=$(hostname)"
echo "pids=$(ls /proc | grep -c '^[0-9]')"
echo "root=$TASKC_ROOT"
for p in /var/run/docker.sock /run/docker.sock /sys /home /root '{caller}' '{cache}/images/.setup-x'; do
  if [ -e "$p" ]; then echo "visible: $p"; fi
done
ls '{cache}/images'
# writes into the cached image land in the run's copy
echo rigged > "$TASKC_ROOT/opt/greeting.txt"
# nothing else on the host is writable
for p in /usr/rigged /etc/rigged /opt/rigged; do
  if ( echo x > "$p" ) 2>/dev/null; then echo "wrote: $p"; fi
done
( mount -o remount,rw /usr ) 2>/dev/null && echo "remounted /usr"
# host-wide sysctls (rewritten with their own value: harmless if this ever succeeds)
v=$(cat /proc/sys/kernel/core_pattern)
( printf '%s\n' "$v" > /proc/sys/kernel/core_pattern ) 2>/dev/null && echo "wrote: /proc/sys"
true"#
    );
    let out = f.backend.run(&request("view", &script)).await.unwrap();
    let log = out.log_text();
    assert_eq!(out.exit_code, Some(0), "{log}");
    assert!(log.contains("hostname=taskc"), "{log}");
    // bash, the pipeline's ls and grep, and bwrap's init: no host process.
    let pids: usize = log
        .lines()
        .find_map(|l| l.strip_prefix("pids="))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(pids <= 6, "{pids} processes visible: {log}");
    assert!(log.contains(&format!("root={}", image.display())), "{log}");
    assert!(!log.contains("visible:"), "{log}");
    assert!(!log.contains("wrote:"), "{log}");
    assert!(!log.contains("remounted"), "{log}");
    // Of the cache, the run sees only the mount points of its own folders: `images/` holds
    // its own copy and nothing else.
    let listed: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("taskc-test"))
        .collect();
    assert_eq!(listed.len(), 1, "{log}");
    assert_eq!(
        std::fs::read_to_string(image.join("opt/greeting.txt")).unwrap(),
        "hello from the context\n",
        "the run wrote into the cached image"
    );
}

#[tokio::test]
async fn a_detached_process_dies_with_its_sandboxed_run() {
    let f = fixture().await;
    sandboxed(&f);
    let marker = f.cache.path().join("outlived-probe");
    // The daemon would write the marker (via the run's HOME, which is on the host) after
    // the run ended; with the pid namespace gone it never does.
    let script = r#"setsid bash -c 'sleep 2; echo alive > "$HOME/../../../../outlived-probe"; exec -a taskc-detached-probe sleep 300' >/dev/null 2>&1 < /dev/null &
disown
echo started"#;
    let out = f.backend.run(&request("detach", script)).await.unwrap();
    assert!(out.log_text().contains("started"), "{}", out.log_text());
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!marker.exists());
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("taskc-detached-probe") || c.contains("outlived-probe"))
        .collect();
    assert!(
        survivors.is_empty(),
        "processes outlived the run: {survivors:?}"
    );
}

#[tokio::test]
async fn the_harness_can_drop_to_an_unprivileged_test_user() {
    let f = fixture().await;
    sandboxed(&f);
    let script = r#"mkdir -p "$TASKC_ROOT/work/repo" && chown -R 10001:10001 "$TASKC_ROOT/work/repo"
setpriv --reuid 10001 --regid 10001 --clear-groups --no-new-privs -- bash -c '
  echo "uid=$(id -u)"
  touch "$TASKC_ROOT/work/repo/ok" && echo repo-writable
  touch "$HOME/ok" && echo home-writable
  touch "$TMPDIR/ok" /tmp/ok && echo tmp-writable
  ( touch "$TASKC_ROOT/opt/x" ) 2>/dev/null && echo harness-writable
  grep -q "^CapEff:.0000000000000000" /proc/self/status && echo no-caps
'"#;
    let out = f.backend.run(&request("drop", script)).await.unwrap();
    let log = out.log_text();
    for want in [
        "uid=10001",
        "repo-writable",
        "home-writable",
        "tmp-writable",
        "no-caps",
    ] {
        assert!(log.contains(want), "no `{want}`: {log}");
    }
    assert!(!log.contains("harness-writable"), "{log}");
}

#[tokio::test]
async fn unsandboxed_the_backend_refuses_a_predictions_code() {
    let cache = tempfile::tempdir().unwrap();
    let backend = LocalBackend::new(cache.path()).with_bwrap(None);
    assert!(!backend.sandbox_status().is_sandboxed());
    let build = ImageBuild {
        tag: "taskc-test/unsandboxed:v1".into(),
        ..Default::default()
    };
    backend.ensure_image(&build).await.unwrap();
    let marker = cache.path().join("agent-code-ran");
    let mut req = RunRequest::new(
        "taskc-test/unsandboxed:v1",
        "r",
        "s",
        format!("touch '{}'", marker.display()),
    );
    req.untrusted = true;
    let err = backend.run(&req).await.unwrap_err();
    assert!(matches!(err, BackendError::Unsandboxed { .. }), "{err}");
    assert!(
        err.hint().unwrap_or_default().contains("bubblewrap"),
        "{err}"
    );
    assert!(!marker.exists());
    // The spec's own baselines still run.
    req.untrusted = false;
    let out = backend.run(&req).await.unwrap();
    assert_eq!(out.exit_code, Some(0), "{}", out.log_text());
    assert!(marker.exists());
}

#[tokio::test]
async fn the_test_user_runs_the_callers_toolchains() {
    // The caller's PATH (pyenv shims, ~/.cargo/bin, …) is shown read-only, and the folders on
    // the way are traversable for the unprivileged test user.
    let cache = tempfile::tempdir().unwrap();
    let path = std::env::var("PATH").unwrap();
    let backend = LocalBackend::new(cache.path()).with_path(path);
    assert!(backend.sandbox_status().is_sandboxed());
    let build = ImageBuild {
        tag: "taskc-test/tools:v1".into(),
        ..Default::default()
    };
    backend.ensure_image(&build).await.unwrap();
    let script = r#"setpriv --reuid 10001 --regid 10001 --clear-groups --no-new-privs -- \
  python3 -c 'import os, pytest; print("tools-ok", os.getuid())'"#;
    let out = backend
        .run(&RunRequest::new("taskc-test/tools:v1", "r", "s", script))
        .await
        .unwrap();
    assert!(
        out.log_text().contains("tools-ok 10001"),
        "{}",
        out.log_text()
    );
}
