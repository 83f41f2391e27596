//! Strict patch application and escape rejection.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use taskc_runtime::apply::{apply_command, apply_patch, check_patch_paths, ApplyError};
use taskc_runtime::repo::{materialize, RepoSource};

fn repo(tmp: &Path) -> std::path::PathBuf {
    let src = tmp.join("src");
    fs::create_dir_all(src.join("pkg")).unwrap();
    fs::write(src.join("pkg/a.py"), "one\ntwo\nthree\n").unwrap();
    fs::create_dir_all(tmp.join("outside")).unwrap();
    std::os::unix::fs::symlink(tmp.join("outside"), src.join("link")).unwrap();
    materialize(
        &RepoSource::Dir(src),
        None,
        &tmp.join("repo"),
        &tmp.join("cache"),
    )
    .unwrap()
    .path
}

fn patch_for(path_a: &str, path_b: &str) -> String {
    format!(
        "diff --git a/{path_a} b/{path_b}\n--- a/{path_a}\n+++ b/{path_b}\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    )
}

#[test]
fn a_good_patch_applies() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    apply_patch(&repo, "gold.patch", &patch_for("pkg/a.py", "pkg/a.py")).unwrap();
    assert_eq!(
        fs::read_to_string(repo.join("pkg/a.py")).unwrap(),
        "one\nTWO\nthree\n"
    );
}

#[test]
fn a_patch_with_wrong_context_does_not_apply_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    let bad = "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,3 +1,3 @@\n one\n-deux\n+TWO\n three\n";
    let err = apply_patch(&repo, "gold.patch", bad).unwrap_err();
    assert!(matches!(err, ApplyError::DoesNotApply { .. }), "{err}");
    assert!(err.to_string().contains("pkg/a.py"), "{err}");
    assert_eq!(
        fs::read_to_string(repo.join("pkg/a.py")).unwrap(),
        "one\ntwo\nthree\n"
    );
}

fn escape_error(path: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    let err = apply_patch(&repo, "evil.patch", &patch_for(path, path)).unwrap_err();
    assert!(matches!(err, ApplyError::Escapes { .. }), "{err}");
    assert!(!tmp.path().join("outside/x").exists());
    err.to_string()
}

#[test]
fn dotdot_paths_are_rejected() {
    insta::assert_snapshot!(escape_error("../outside/x"), @r"
    patch `evil.patch` touches `../outside/x`, which contains `..` and could leave the repository
      help: paths in a patch are relative to the repository root (`a/src/x.py`, `b/src/x.py`)
    ");
}

#[test]
fn absolute_paths_are_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    let patch = "--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n-a\n+b\n";
    let err = apply_patch(&repo, "evil.patch", patch).unwrap_err();
    insta::assert_snapshot!(err.to_string(), @r"
    patch `evil.patch` touches `/etc/passwd`, which is an absolute path
      help: paths in a patch are relative to the repository root (`a/src/x.py`, `b/src/x.py`)
    ");
}

#[test]
fn paths_through_symlinks_are_rejected() {
    insta::assert_snapshot!(escape_error("link/x"), @r"
    patch `evil.patch` touches `link/x`, which goes through the symlink `link` inside the repository
      help: change the file at its real location instead of through the link
    ");
}

#[test]
fn paths_into_dot_git_are_rejected() {
    insta::assert_snapshot!(escape_error(".git/config"), @r"
    patch `evil.patch` touches `.git/config`, which is inside the repository's `.git` folder
      help: patches may only change tracked files
    ");
}

#[test]
fn renames_are_checked_on_both_sides() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = repo(tmp.path());
    let patch = "diff --git a/pkg/a.py b/../a.py\nsimilarity index 100%\nrename from pkg/a.py\nrename to ../a.py\n";
    let err = check_patch_paths(&repo, "evil.patch", patch).unwrap_err();
    assert!(err.to_string().contains("`../a.py`"), "{err}");
}

#[test]
fn the_container_command_is_quoted() {
    assert_eq!(
        apply_command("/work/it's.patch"),
        "git -c core.hooksPath=/dev/null apply --check --whitespace=nowarn '/work/it'\\''s.patch' && \
         git -c core.hooksPath=/dev/null apply --whitespace=nowarn '/work/it'\\''s.patch'"
    );
}
