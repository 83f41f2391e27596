//! End to end on the real Docker Engine: the `dockerfile` recipe builds a curator's
//! Dockerfile with its build context, and a synthetic WideSWE-layout case (its repositories
//! made into git repositories by the test from plain files) is imported, verified and
//! compared with its oracle id for id. `TASKC_SKIP_DOCKER=1` skips (never silently).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{docker_or_skip, root};

use std::path::{Path, PathBuf};
use std::process::Command;

const CASE: &str = "demo_greet_app_0a1b2c3d4e5f";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn taskc(args: &[&str], cwd: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .args(["--color", "never"])
        .current_dir(cwd)
        .output()
        .expect("the taskc binary runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "fixture")
        .env("GIT_AUTHOR_EMAIL", "fixture@example.invalid")
        .env("GIT_COMMITTER_NAME", "fixture")
        .env("GIT_COMMITTER_EMAIL", "fixture@example.invalid")
        .env("GIT_AUTHOR_DATE", "2025-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2025-01-01T00:00:00Z")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A git repository made from the fixture's plain files; returns its base commit.
fn make_repo(name: &str, dest: &Path) -> String {
    common::copy_dir(
        &root().join("tests/fixtures/wideswe/repos").join(name),
        dest,
    );
    git(dest, &["init", "-q"]);
    git(dest, &["add", "-A"]);
    git(dest, &["commit", "-q", "-m", "base"]);
    git(dest, &["rev-parse", "HEAD"])
}

#[test]
fn dockerfile_recipe_builds_with_its_context() {
    if !docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let _images = common::CacheImages::new(tmp.path(), "docker");
    let cache = tmp.path().to_string_lossy().into_owned();
    let spec = "tests/fixtures/dockerfile-env/dockerfile-env.task";
    let r = taskc(
        &[
            "verify",
            spec,
            "--backend",
            "docker",
            "--no-lock",
            "--cache",
            &cache,
        ],
        &root(),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Test 1 passes only when the context file was copied in; test 2 is the fix.
    assert!(r.stdout.contains("calc: 1 F2P, 1 P2P"), "{}", r.stdout);
}

#[test]
fn wideswe_case_verifies_and_agrees_with_its_oracle() {
    if !docker_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let _images = common::CacheImages::new(&d.join("cache"), "docker");
    let greet = make_repo("greet", &d.join("repos/greet"));
    let app = make_repo("app", &d.join("repos/app"));
    let case = d.join("case");
    common::copy_dir(
        &root().join("tests/fixtures/wideswe/cases/demo").join(CASE),
        &case,
    );
    let repos = format!("file://{}", d.join("repos").display());
    for f in ["task.yaml", "repos.yaml"] {
        let p = case.join(f);
        let text = std::fs::read_to_string(&p)
            .expect("read")
            .replace("@REPOS@", &repos)
            .replace("@GREET_BASE@", &greet)
            .replace("@APP_BASE@", &app);
        std::fs::write(&p, text).expect("write");
    }
    let r = taskc(
        &[
            "import",
            "wideswe",
            "case",
            "--out",
            "out",
            "--base-image",
            "taskc/base:bookworm",
        ],
        d,
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let folder: PathBuf = d.join("out").join(CASE);
    let spec = format!("{CASE}.task");
    let oracle = format!("{CASE}.oracle.toml");
    let cache = d.join("cache").to_string_lossy().into_owned();
    let verify = |oracle: &str| {
        taskc(
            &[
                "verify",
                &spec,
                "--backend",
                "docker",
                "--no-lock",
                "--cache",
                &cache,
                "--compare-oracle",
                oracle,
            ],
            &folder,
        )
    };
    let r = verify(&oracle);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("2 of 2 repositories agree id for id"),
        "{}",
        r.stdout
    );

    // A changed oracle is reported id by id and fails the run (results come from the cache).
    let text = std::fs::read_to_string(folder.join(&oracle)).expect("read oracle");
    let edited = text.replace(
        "\"tests.test_greet::test_shout\"",
        "\"tests.test_greet::test_whisper\"",
    );
    assert_ne!(text, edited);
    std::fs::write(folder.join("edited.oracle.toml"), edited).expect("write");
    let r = verify("edited.oracle.toml");
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("greet f2p: only in the imported oracle: tests.test_greet::test_whisper")
            && r.stdout
                .contains("greet f2p: only derived by taskc: tests.test_greet::test_shout")
            && r.stdout.contains("1 of 2 repositories agree"),
        "{}",
        r.stdout
    );
}
