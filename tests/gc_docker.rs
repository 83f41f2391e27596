//! `taskc gc --backend docker --dry-run` against the real engine (shared with other users:
//! this test removes only what it created). It lists a stale container and an image this
//! test made with taskc's labels and recorded as its cache's, never the base image, and
//! removes nothing.
//! Skipped with `TASKC_SKIP_DOCKER=1`; fails loudly if the engine does not answer.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(out.status.success(), "docker {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Removes this test's container and image, also when an assertion fails.
struct Cleanup {
    container: String,
    image: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["rm", "-f", &self.container])
            .output();
        let _ = Command::new("docker").args(["rmi", &self.image]).output();
    }
}

#[test]
fn dry_run_lists_stale_taskc_objects_and_removes_nothing() {
    if std::env::var("TASKC_SKIP_DOCKER").is_ok_and(|v| v == "1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipped");
        return;
    }
    let up = Command::new("docker").arg("version").output();
    assert!(
        up.is_ok_and(|o| o.status.success()),
        "the Docker Engine does not answer; start it or set TASKC_SKIP_DOCKER=1"
    );
    let tmp = tempfile::tempdir().unwrap();
    let image = format!("taskc-gc-test/h10:{}", std::process::id());
    std::fs::write(
        tmp.path().join("Dockerfile"),
        "FROM scratch\nLABEL taskc.image=gc-test\n",
    )
    .unwrap();
    docker(&["build", "-q", "-t", &image, tmp.path().to_str().unwrap()]);
    // A container of a session whose process is gone (pid 99999999 cannot exist).
    let session = format!("s99999999-{}", std::process::id());
    let label = format!("taskc.session={session}");
    let container = docker(&["create", "--label", &label, &image, "none"]);
    let _cleanup = Cleanup {
        container: container.clone(),
        image: image.clone(),
    };
    // The session is this cache's (its record is there) and it used the image: gc touches
    // only its own cache's objects (see tests/gc_shared.rs).
    let sessions = tmp.path().join("cache/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(sessions.join(format!("{session}.lock")), "1\n").unwrap();
    std::fs::write(
        sessions.join(format!("{session}.images")),
        format!("{image}\n"),
    )
    .unwrap();

    let spec =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split/cookie-split.task");
    let out = Command::new(TASKC)
        .args(["gc", "--backend", "docker", "--dry-run", "--cache"])
        .arg(tmp.path().join("cache"))
        .arg("--keep")
        .arg(&spec)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("would remove image {image}\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "would remove container {} (session {session})",
            &container[..12]
        )),
        "{text}"
    );
    assert!(
        !text.contains("taskc/base:"),
        "the base image is never removed: {text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("removed ")), "{text}");
    // Nothing was removed.
    docker(&["image", "inspect", &image]);
    docker(&["container", "inspect", &container]);
}
