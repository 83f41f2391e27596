//! End to end: `taskc verify` on every example task, on both backends, with the real binary.
//! The Docker tests run against the real Docker Engine; when it does not answer they FAIL,
//! unless `TASKC_SKIP_DOCKER=1` says to skip them (no silent skip).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{docker_or_skip, redact, root};

use std::path::Path;
use std::process::Command;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn taskc(args: &[&str], cache: &Path, cwd: &Path) -> Run {
    let guard = common::DockerGuard::new();
    let out = guard.output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(args)
            .arg("--cache")
            .arg(cache)
            .arg("--color")
            .arg("never")
            .current_dir(cwd),
    );
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn check(args: &[&str], cwd: &Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .arg("check")
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

fn verify(example: &str, backend: &str) -> (i32, String) {
    let cache = tempfile::tempdir().expect("temp dir");
    let _images = common::CacheImages::new(cache.path(), backend);
    let spec = format!("examples/{example}/{example}.task");
    let r = taskc(
        &[
            "verify",
            &spec,
            "--backend",
            backend,
            "--no-lock",
            "--jobs",
            "2",
        ],
        cache.path(),
        &root(),
    );
    assert!(
        r.code == 0 || r.code == 1,
        "verify {example} on {backend} failed to run (exit {}):\n{}\n{}",
        r.code,
        r.stdout,
        r.stderr
    );
    (r.code, redact(&r.stdout))
}

macro_rules! verify_test {
    ($name:ident, $example:literal, $backend:literal, $code:literal) => {
        #[test]
        fn $name() {
            if $backend == "docker" && !docker_or_skip() {
                return;
            }
            let (code, table) = verify($example, $backend);
            assert_eq!(code, $code, "exit code of verify {}:\n{table}", $example);
            insta::assert_snapshot!(table);
        }
    };
}

verify_test!(local_cookie_split, "cookie-split", "local", 0);
verify_test!(local_config_merge, "config-merge", "local", 0);
verify_test!(local_unsound_partial, "unsound-partial", "local", 1);
verify_test!(local_context_docs, "context-docs", "local", 0);
verify_test!(local_sdk_retry, "sdk-retry", "local", 0);
verify_test!(docker_cookie_split, "cookie-split", "docker", 0);
verify_test!(docker_config_merge, "config-merge", "docker", 0);
verify_test!(docker_unsound_partial, "unsound-partial", "docker", 1);
verify_test!(docker_context_docs, "context-docs", "docker", 0);
verify_test!(docker_sdk_retry, "sdk-retry", "docker", 0);

/// A second `verify` with nothing changed executes no run; after editing one repository's
/// test command, only the runs of that repository execute again.
#[test]
fn reverify_reuses_results_and_reruns_only_what_changed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = dir.path().join("cookie-split");
    common::copy_dir(&root().join("examples/cookie-split"), &ex);
    let cache = dir.path().join("cache");
    let args = [
        "verify",
        "cookie-split.task",
        "--backend",
        "local",
        "--no-lock",
    ];
    let first = taskc(&args, &cache, &ex);
    assert_eq!(first.code, 0, "{}{}", first.stdout, first.stderr);
    assert!(
        first.stdout.contains("7 runs: 7 executed, 0 cached"),
        "{}",
        first.stdout
    );

    let second = taskc(&args, &cache, &ex);
    assert_eq!(second.code, 0, "{}{}", second.stdout, second.stderr);
    assert!(
        second.stdout.contains("7 runs: 0 executed, 7 cached"),
        "{}",
        second.stdout
    );

    // gateway's runs (base, proxy's gold narrowed, both golds: the gateway-only cell is not
    // run, proxy's base run already fails that configuration) depend on its test command;
    // proxy's four (two configurations, two `uses` checks) do not.
    let spec = ex.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).expect("spec");
    let edited = text.replacen(
        "run \"PYTHONPATH=../proxy python3",
        "run \"PYTHONPATH=../proxy TASKC_EDITED=1 python3",
        1,
    );
    assert_ne!(
        text, edited,
        "the example's gateway run command changed; update this test"
    );
    std::fs::write(&spec, edited).expect("write spec");
    let third = taskc(&args, &cache, &ex);
    assert_eq!(third.code, 0, "{}{}", third.stdout, third.stderr);
    assert!(
        third.stdout.contains("7 runs: 3 executed, 4 cached"),
        "{}",
        third.stdout
    );
}

/// `verify` writes the lock beside the spec; `check` finds it fresh, and stale (naming the
/// changed input) once a hidden test patch changes.
#[test]
fn verify_writes_a_lock_that_check_reports_stale_after_an_edit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = dir.path().join("config-merge");
    common::copy_dir(&root().join("examples/config-merge"), &ex);
    std::fs::remove_file(ex.join("config-merge.lock")).expect("remove the committed lock");
    let cache = dir.path().join("cache");
    let v = taskc(
        &["verify", "config-merge.task", "--backend", "local"],
        &cache,
        &ex,
    );
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    let lock = std::fs::read_to_string(ex.join("config-merge.lock")).expect("lock written");
    assert!(lock.contains("[repos.loader]") && lock.contains("rule = \"unrequested\""));

    let fresh = check(&["config-merge.task"], &ex);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    assert!(
        fresh.stderr.contains("0 errors, 0 warnings"),
        "{}",
        fresh.stderr
    );

    let patch = ex.join("tests/loader.patch");
    let text = std::fs::read_to_string(&patch).expect("patch");
    // A byte-level change that keeps the patch valid: one more trailing newline.
    std::fs::write(&patch, format!("{text}\n")).expect("write");
    let stale = check(&["config-merge.task"], &ex);
    assert!(stale.stderr.contains("W0900"), "{}", stale.stderr);
    assert!(stale.stderr.contains("tests.loader"), "{}", stale.stderr);
    // A stale lock is not a spec warning (`check --deny-warnings && verify` works after
    // an edit); `--deny-stale-lock` is the gate for it.
    let deny = check(&["--deny-warnings", "config-merge.task"], &ex);
    assert_eq!(deny.code, 0, "{}", deny.stderr);
    let deny = check(&["--deny-stale-lock", "config-merge.task"], &ex);
    assert_eq!(deny.code, 1, "{}", deny.stderr);
}

/// The README's quick start (`verify examples/cookie-split/…` on Docker) must leave the
/// checkout clean: before, the lock's provenance took this machine's image ids (its own
/// bootstrapped base image) and the committed lock changed.
#[test]
fn docker_verify_of_a_committed_example_leaves_its_lock_untouched() {
    if !docker_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = dir.path().join("cookie-split");
    common::copy_dir(&root().join("examples/cookie-split"), &ex);
    let before = std::fs::read(ex.join("cookie-split.lock")).expect("committed lock");
    let _images = common::CacheImages::new(&dir.path().join("cache"), "docker");
    let v = taskc(
        &["verify", "cookie-split.task", "--backend", "docker"],
        &dir.path().join("cache"),
        &ex,
    );
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    let after = std::fs::read(ex.join("cookie-split.lock")).expect("lock");
    assert!(
        before == after,
        "verify rewrote the committed lock:\n{}",
        String::from_utf8_lossy(&after)
    );
}
