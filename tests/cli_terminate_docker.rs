//! SIGTERM to the process group of a `taskc verify` on Docker while a run and its service
//! container are up: taskc removes what its session started (the run container, the
//! service container, their network) and exits 143 (128 + SIGTERM), as Ctrl-C does with
//! 130. Before, SIGTERM ended the process at once and left the run's containers and network
//! behind (seen on WideSWE case 106's verifies). Real binary, real Docker Engine, a copy of
//! tests/fixtures/dockerfile-env whose test sleeps first and uses an idle service.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

/// The containers and networks of the taskc process `pid` (sessions `s<pid>-…`), each as
/// `<kind> <name> <service label>`.
fn session_objects(pid: u32) -> Vec<String> {
    let prefix = format!("s{pid}-");
    let mut found = Vec::new();
    for (kind, list) in [
        (
            "container",
            vec![
                "ps",
                "-a",
                "--filter",
                "label=taskc.session",
                "--format",
                "{{.Names}} {{.Label \"taskc.session\"}} {{.Label \"taskc.service\"}}",
            ],
        ),
        (
            "network",
            vec![
                "network",
                "ls",
                "--filter",
                "label=taskc.session",
                "--format",
                "{{.Name}} {{.Label \"taskc.session\"}} -",
            ],
        ),
    ] {
        let out = Command::new("docker").args(&list).output().expect("docker");
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut f = line.split(' ');
            let (name, session, service) = (f.next(), f.next(), f.next());
            if session.is_some_and(|s| s.starts_with(&prefix)) {
                found.push(format!(
                    "{kind} {} {}",
                    name.unwrap_or_default(),
                    service.unwrap_or_default()
                ));
            }
        }
    }
    found
}

#[test]
fn sigterm_to_the_process_group_mid_run_leaves_nothing_of_the_session() {
    if !common::docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dockerfile-env"),
        &dir,
    );
    std::fs::create_dir_all(dir.join("idle")).unwrap();
    std::fs::write(
        dir.join("idle/Dockerfile"),
        "FROM taskc/base:bookworm\nCMD [\"sleep\", \"infinity\"]\n",
    )
    .unwrap();
    let spec = dir.join("dockerfile-env.task");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("run \"", "run \"sleep 300; ")
        .replace(
            "  repo calc {\n",
            "  service idle {\n    image dockerfile {\n      dockerfile file(\"idle/Dockerfile\")\n    }\n  }\n\n  repo calc {\n    services idle\n",
        );
    assert!(text.contains("services idle"), "{text}");
    std::fs::write(&spec, text).unwrap();
    let cache = tmp.path().join("cache");
    let _images = common::CacheImages::new(&cache, "docker");
    let log = tmp.path().join("stderr.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["verify", "--no-lock", "--color", "never", "--jobs", "1"])
        .args(["--backend", "docker", "--cache"])
        .arg(&cache)
        .arg(&spec)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        // Its own process group, signalled as a whole (as a shell's job control does).
        .process_group(0)
        .spawn()
        .unwrap();
    let pid = child.id();

    // Wait until a run container is up beside its service container.
    let start = Instant::now();
    loop {
        let objects = session_objects(pid);
        let run = objects
            .iter()
            .any(|o| o.starts_with("container ") && o.ends_with(' '));
        let service = objects.iter().any(|o| o.ends_with(" idle"));
        if run && service {
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "taskc ended ({status}) before its run started:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(
            start.elapsed() < Duration::from_secs(900),
            "no run with its service started: {objects:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1));
    let sent = Command::new("kill")
        .args(["-TERM", "--", &format!("-{pid}")])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    // Nothing of the session left: the run and service containers and their network.
    let left = session_objects(pid);
    assert!(
        left.is_empty(),
        "left after SIGTERM ({status}): {left:?}\n{stderr}"
    );
    assert_eq!(status.code(), Some(143), "{status}\n{stderr}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
}
