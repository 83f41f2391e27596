//! `taskc diff --git REV SPEC`: the old version is read from git hermetically (the caller's
//! `GIT_DIR` and config do not leak in) into a temporary folder that is removed afterwards;
//! a revision that does not exist is a usage error (exit 2). Runs the real binary on a
//! git repository holding a copy of an example.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

/// A git repository with `examples/cookie-split` committed under `tasks/cookie-split/`, the
/// spec then changed in the work tree (a longer timeout for `proxy`'s tests).
fn repo(tmp: &Path) -> PathBuf {
    let repo = tmp.join("repo");
    let dir = repo.join("tasks/cookie-split");
    common::copy_dir(&common::root().join("examples/cookie-split"), &dir);
    common::git(&repo, &["init", "-q", "-b", "main"]);
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-q", "-m", "task"]);
    let spec = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    assert!(text.contains("timeout 600"));
    std::fs::write(&spec, text.replacen("timeout 600", "timeout 900", 1)).unwrap();
    spec
}

fn diff(spec: &Path, rev: &str, tmpdir: &Path) -> Output {
    std::fs::create_dir_all(tmpdir).unwrap();
    Command::new(TASKC)
        .args(["diff", "--format", "json", "--git", rev])
        .arg(spec)
        .env("TMPDIR", tmpdir)
        // Would send git elsewhere if taskc did not run it hermetically.
        .env("GIT_DIR", "/nonexistent/taskc-test.git")
        .env("GIT_WORK_TREE", "/nonexistent")
        .output()
        .unwrap()
}

#[test]
fn diff_git_reads_the_old_spec_hermetically_and_leaves_no_temp_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = repo(tmp.path());
    let tmpdir = tmp.path().join("tmp");

    let out = diff(&spec, "HEAD", &tmpdir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout.contains("timeout"),
        "the changed timeout is in the diff: {stdout}"
    );
    assert_eq!(
        std::fs::read_dir(&tmpdir).unwrap().count(),
        0,
        "the extracted old version was removed"
    );

    // Unchanged against the work tree's own version: nothing differs.
    let same = Command::new(TASKC)
        .args(["diff", "--format", "json"])
        .arg(&spec)
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    assert_ne!(String::from_utf8_lossy(&same.stdout), stdout);

    let missing = diff(&spec, "no-such-revision", &tmpdir);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no-such-revision"), "{stderr}");
}
