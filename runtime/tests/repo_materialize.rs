//! Materialising repositories: one synthetic commit whose id depends only on content.

use std::fs;
use std::path::Path;
use std::process::Command;

use taskc_runtime::repo::{materialize, mirror_path, RepoError, RepoSource};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// A small source folder: files, a subfolder, an executable, a symlink, an ignored file.
fn sample_folder(root: &Path) {
    write(root, "README.md", "# sample\n");
    write(root, "src/lib.py", "def f():\n    return 1\n");
    write(root, "build/out.o", "ignored but kept\n");
    write(root, ".gitignore", "build/\n");
    write(root, "run.sh", "#!/bin/sh\necho run\n");
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("src/lib.py", root.join("lib-link.py")).unwrap();
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args([
            "-c",
            "user.name=someone",
            "-c",
            "user.email=someone@example.com",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with two commits; returns (repo folder, first commit id).
fn history_repo(root: &Path) -> (std::path::PathBuf, String) {
    let repo = root.join("upstream");
    fs::create_dir_all(&repo).unwrap();
    sample_folder(&repo);
    git(&repo, &["init", "-q", "-b", "trunk"]);
    git(&repo, &["add", "-A", "-f"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    write(&repo, "src/lib.py", "def f():\n    return 2\n");
    git(&repo, &["commit", "-q", "-am", "second"]);
    (repo, first)
}

#[test]
fn a_folder_becomes_one_deterministic_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    sample_folder(&src);
    // A `.git` folder in the source is not copied.
    write(&src, ".git/HEAD", "ref: refs/heads/x\n");
    let cache = tmp.path().join("cache");
    let a = materialize(
        &RepoSource::Dir(src.clone()),
        None,
        &tmp.path().join("a"),
        &cache,
    )
    .unwrap();
    let b = materialize(&RepoSource::Dir(src), None, &tmp.path().join("b"), &cache).unwrap();
    assert_eq!(a.commit, b.commit);
    // Pinned: tree of the sample folder + fixed author, committer, date and message.
    insta::assert_snapshot!(a.commit, @"a749aba490cd39743e662333aba9f57e88d235f9");
    assert_eq!(git(&a.path, &["rev-list", "--count", "HEAD"]), "1");
    assert_eq!(
        git(&a.path, &["log", "-1", "--format=%an <%ae> %aI | %cn <%ce> %cI | %s"]),
        "taskc <taskc@localhost> 2000-01-01T00:00:00Z | taskc <taskc@localhost> 2000-01-01T00:00:00Z | base"
    );
    let files = git(&a.path, &["ls-files", "-s"]);
    assert!(files.contains("120000"), "symlink kept as a link: {files}");
    assert!(
        files.contains("100755") && files.contains("run.sh"),
        "{files}"
    );
    assert!(
        files.contains("build/out.o"),
        "ignored files are kept: {files}"
    );
    assert_eq!(git(&a.path, &["status", "--porcelain"]), "");
}

#[test]
fn a_bundle_is_checked_out_at_base_without_history() {
    let tmp = tempfile::tempdir().unwrap();
    let (upstream, first) = history_repo(tmp.path());
    let bundle = tmp.path().join("up.bundle");
    git(
        &upstream,
        &["bundle", "create", bundle.to_str().unwrap(), "--all"],
    );
    let cache = tmp.path().join("cache");
    let src = RepoSource::Bundle(bundle);
    let a = materialize(&src, Some(&first), &tmp.path().join("a"), &cache).unwrap();
    let b = materialize(&src, Some(&first), &tmp.path().join("b"), &cache).unwrap();
    assert_eq!(a.commit, b.commit);
    assert_ne!(
        a.commit, first,
        "a new synthetic commit, not the upstream one"
    );
    assert_eq!(
        fs::read_to_string(a.path.join("src/lib.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    assert_eq!(git(&a.path, &["rev-list", "--count", "HEAD"]), "1");
    // Same content as the folder it was made from: same synthetic commit.
    let plain = tmp.path().join("plain");
    sample_folder(&plain);
    let c = materialize(&RepoSource::Dir(plain), None, &tmp.path().join("c"), &cache).unwrap();
    assert_eq!(a.commit, c.commit);
}

#[test]
fn a_git_url_goes_through_a_mirror_that_works_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let (upstream, first) = history_repo(tmp.path());
    let url = format!("file://{}", upstream.display());
    let cache = tmp.path().join("cache");
    let src = RepoSource::Git(url.clone());
    let a = materialize(&src, Some(&first), &tmp.path().join("a"), &cache).unwrap();
    assert!(mirror_path(&cache, &url).join("HEAD").is_file());
    // The upstream disappears: the cached mirror still has the base.
    fs::remove_dir_all(&upstream).unwrap();
    let b = materialize(&src, Some(&first), &tmp.path().join("b"), &cache).unwrap();
    assert_eq!(a.commit, b.commit);
}

#[test]
fn a_folder_repository_with_a_base_uses_its_tree_at_base() {
    let tmp = tempfile::tempdir().unwrap();
    let (upstream, first) = history_repo(tmp.path());
    let cache = tmp.path().join("cache");
    let a = materialize(
        &RepoSource::Dir(upstream),
        Some(&first),
        &tmp.path().join("a"),
        &cache,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(a.path.join("src/lib.py")).unwrap(),
        "def f():\n    return 1\n"
    );
}

#[test]
fn a_missing_base_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (upstream, _) = history_repo(tmp.path());
    let bundle = tmp.path().join("up.bundle");
    git(
        &upstream,
        &["bundle", "create", bundle.to_str().unwrap(), "--all"],
    );
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let err = materialize(
        &RepoSource::Bundle(bundle),
        Some(missing),
        &tmp.path().join("a"),
        &tmp.path().join("cache"),
    )
    .unwrap_err();
    assert!(matches!(err, RepoError::BaseMissing { .. }), "{err}");
    assert!(err.to_string().contains(missing), "{err}");
}

#[test]
fn a_short_base_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let err = materialize(
        &RepoSource::Git("file:///nowhere".into()),
        Some("abc123"),
        &tmp.path().join("a"),
        &tmp.path().join("cache"),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("not a full 40-hex commit id"),
        "{err}"
    );
}
