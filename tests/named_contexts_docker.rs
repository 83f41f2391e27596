//! Named build contexts through the real binary on the real engine: `taskc verify` of the
//! fixture `tests/fixtures/named-contexts`, whose Dockerfile copies a file of a folder
//! context and the lock file of the repository `calc` at its base commit (each context
//! holding a `.dockerignore` that would hide them). The environment build's own `RUN` checks
//! the files and the absence of `.git`; the hidden tests check them again in the runs, so the
//! verdict is sound only if they landed. Then the repository's lock file changes: the context
//! node and the environment are rebuilt (a new id), and the new bytes land.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::process::Command;

use common::{docker_or_skip, root};

fn verify(spec: &std::path::Path, cache: &std::path::Path) -> std::process::Output {
    common::DockerGuard::new().output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args([
                "verify",
                "--no-lock",
                "--color",
                "never",
                "--backend",
                "docker",
            ])
            .arg("--cache")
            .arg(cache)
            .arg(spec),
    )
}

fn plan_nodes(spec: &std::path::Path) -> Vec<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["plan", "--color", "never"])
        .arg(spec)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    plan["images"]["nodes"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn a_folder_and_a_repository_context_land_in_the_environment() {
    if !docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let task = tmp.path().join("task");
    common::copy_dir(&root().join("tests/fixtures/named-contexts"), &task);
    let spec = task.join("named-contexts.task");
    let cache = tmp.path().join("cache");
    let _images = common::CacheImages::new(&cache, "docker");
    let o = verify(&spec, &cache);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("sound"), "{out}\n{err}");
    assert!(out.contains("calc: 1 F2P, 2 P2P"), "{out}\n{err}");
    let before = plan_nodes(&spec);
    assert_eq!(before.len(), 2, "{before:?}");
    // The repository's tree at base changes: its context node changes, the folder's does
    // not, and the build reads the new lock file (the hidden test compares it).
    std::fs::write(task.join("repos/calc/calc.lock"), "calc-lock 43\n").unwrap();
    let after = plan_nodes(&spec);
    assert_eq!(after.iter().filter(|n| before.contains(n)).count(), 1);
    let o = verify(&spec, &cache);
    let err = String::from_utf8_lossy(&o.stderr);
    // The environment's own check (`test … = "calc-lock 42"`) fails on the new bytes.
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("calc-lock 42"), "{err}");
}
