//! The end-to-end tests' image guard (`common::CacheImages`), with the real binary and the
//! real engine: the images a test's own cache built are gone once its guard is dropped, and
//! the images of another cache, the base image and the shared runners' image stay.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::{docker_or_skip, root, CacheImages, DockerGuard};

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `cookie-split` example copied into `dir` with a one-line environment of its own
/// (`nonce` makes its content-addressed tags this test's alone), verified on Docker with
/// cache `cache`: its images are built whatever the runs say.
fn verify_own_env(dir: &Path, cache: &Path, nonce: &str) {
    let task = dir.join("task");
    common::copy_dir(&root().join("examples/cookie-split"), &task);
    let spec: PathBuf = task.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let old = "  env python {\n    version \"3.11\"\n  }\n";
    assert!(text.contains(old));
    let env = format!("  env generic {{\n    dockerfile \"RUN echo {nonce} > /nonce\"\n  }}\n");
    std::fs::write(&spec, text.replace(old, &env)).unwrap();
    let out = DockerGuard::new().output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(["verify", "--no-lock", "--color", "never", "--jobs", "2"])
            .args(["--backend", "docker", "--cache"])
            .arg(cache)
            .arg(&spec),
    );
    // 0/1: a verdict; 2 would be an infrastructure error (no image built).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "verify: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn has_image(tag: &str) -> bool {
    Command::new("docker")
        .args(["image", "inspect", "--format", "{{.Id}}", tag])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_dropped_guard_leaves_no_image_of_its_cache_and_every_other_image() {
    if !docker_or_skip() {
        return;
    }
    let nonce = format!("dedupe-{}-{}", std::process::id(), line!());
    let shared: Vec<&str> = ["taskc/base:bookworm", "parsers-runners:bookworm"]
        .into_iter()
        .filter(|t| has_image(t))
        .collect();
    // Another cache's images, built with no guard: they must stay.
    let other = tempfile::tempdir().unwrap();
    verify_own_env(
        other.path(),
        &other.path().join("cache"),
        &format!("{nonce}-b"),
    );
    let other_tags = common::recorded(&other.path().join("cache"));
    assert!(!other_tags.is_empty(), "the other cache recorded no image");
    // Removed by its own gc at the end; by this guard if the test fails before.
    let other_cleanup = DockerGuard::new();
    for t in &other_tags {
        other_cleanup.image(t);
    }

    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let guard = CacheImages::new(&cache, "docker");
    verify_own_env(dir.path(), &cache, &nonce);
    let own = guard.recorded();
    assert!(
        own.iter().any(|t| t.starts_with("taskc/task:"))
            && own.iter().any(|t| t.starts_with("taskc/env:")),
        "the cache recorded its task and environment images: {own:?}"
    );
    // taskc itself leaves them: without the guard they would stay.
    assert_eq!(guard.on_engine().len(), own.len(), "{own:?}");
    drop(guard);
    let left: Vec<&String> = own.iter().filter(|t| has_image(t)).collect();
    assert!(left.is_empty(), "left on the engine: {left:?}");
    for t in &other_tags {
        assert!(has_image(t), "another cache's image {t} was removed");
    }
    for t in &shared {
        assert!(has_image(t), "the shared image {t} was removed");
    }

    // The other cache's images are this test's too: its own gc removes them.
    let gc = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["gc", "--color", "never", "--backend", "docker", "--cache"])
        .arg(other.path().join("cache"))
        .output()
        .unwrap();
    assert!(gc.status.success(), "{gc:?}");
    let left: Vec<&String> = other_tags.iter().filter(|t| has_image(t)).collect();
    assert!(left.is_empty(), "gc of the other cache left {left:?}");
}
