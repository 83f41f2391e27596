//! Materialising repositories: one synthetic commit whose id depends only on content.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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

/// Every regular file and folder under `root` (outside `.git`) with its modification time.
fn mtimes(root: &Path) -> Vec<(String, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".git" {
                continue;
            }
            let md = fs::symlink_metadata(e.path()).unwrap();
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            if md.is_dir() {
                stack.push(e.path());
                out.push((format!("{rel}/"), md.mtime()));
            } else if md.is_file() {
                out.push((rel, md.mtime()));
            }
        }
    }
    out.sort();
    out
}

/// A bare repository whose `main` has two commits dated `dates` (committer dates); it also
/// carries `refs/pull/1/head` naming an object it does not have, as mirrors often do.
/// Returns (bare repository, commit ids oldest first).
fn upstream_with_broken_ref(root: &Path, dates: [&str; 2]) -> (std::path::PathBuf, Vec<String>) {
    let work = root.join("work");
    fs::create_dir_all(&work).unwrap();
    sample_folder(&work);
    git(&work, &["init", "-q", "-b", "main"]);
    let mut ids = Vec::new();
    for (i, date) in dates.iter().enumerate() {
        write(&work, "src/lib.py", &format!("def f():\n    return {i}\n"));
        git(&work, &["add", "-A", "-f"]);
        let out = Command::new("git")
            .current_dir(&work)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_COMMITTER_DATE", date)
            .env("GIT_AUTHOR_DATE", date)
            .args(["-c", "user.name=u", "-c", "user.email=u@example.com"])
            .args(["commit", "-q", "-m", &format!("c{i}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        ids.push(git(&work, &["rev-parse", "HEAD"]));
    }
    let bare = root.join("upstream.git");
    git(
        root,
        &["clone", "-q", "--bare", "work", bare.to_str().unwrap()],
    );
    let mut packed = fs::read_to_string(bare.join("packed-refs")).unwrap_or_default();
    packed.push_str("deadbeefdeadbeefdeadbeefdeadbeefdeadbeef refs/pull/1/head\n");
    fs::write(bare.join("packed-refs"), packed).unwrap();
    (bare, ids)
}

#[test]
fn materialised_files_carry_the_base_commit_date_not_1970() {
    let tmp = tempfile::tempdir().unwrap();
    let (bare, ids) =
        upstream_with_broken_ref(tmp.path(), ["2019-05-01T10:00:00Z", "2021-06-01T12:00:00Z"]);
    let cache = tmp.path().join("cache");
    let url = format!("file://{}", bare.display());
    let m = materialize(
        &RepoSource::Git(url),
        Some(&ids[1]),
        &tmp.path().join("a"),
        &cache,
    )
    .unwrap();
    let want = 1_622_548_800; // 2021-06-01T12:00:00Z
    assert_eq!(m.mtime, want);
    let times = mtimes(&m.path);
    assert!(times.len() > 4, "{times:?}");
    for (path, t) in &times {
        assert_eq!(*t, want, "{path}");
    }
    assert_eq!(git(&m.path, &["status", "--porcelain"]), "");

    // A folder without a base: the documented fixed date.
    let src = tmp.path().join("plain");
    sample_folder(&src);
    let d = materialize(&RepoSource::Dir(src), None, &tmp.path().join("d"), &cache).unwrap();
    assert_eq!(d.mtime, taskc_runtime::repo::DIR_MTIME);
    for (path, t) in mtimes(&d.path) {
        assert_eq!(t, 946_684_800, "{path}");
    }
}

#[test]
fn a_commit_dated_before_1980_still_gives_files_from_1980() {
    let tmp = tempfile::tempdir().unwrap();
    let (bare, ids) =
        upstream_with_broken_ref(tmp.path(), ["1975-01-01T00:00:00Z", "1976-01-01T00:00:00Z"]);
    let bundle = tmp.path().join("up.bundle");
    git(
        &bare,
        &["bundle", "create", bundle.to_str().unwrap(), "main"],
    );
    let m = materialize(
        &RepoSource::Bundle(bundle),
        Some(&ids[0]),
        &tmp.path().join("a"),
        &tmp.path().join("cache"),
    )
    .unwrap();
    assert_eq!(m.mtime, taskc_runtime::repo::MIN_MTIME);
    for (path, t) in mtimes(&m.path) {
        assert_eq!(t, taskc_runtime::repo::MIN_MTIME, "{path}");
    }
}

#[test]
fn a_git_source_fetches_only_the_base_and_ignores_broken_unrelated_refs() {
    let tmp = tempfile::tempdir().unwrap();
    let (bare, ids) =
        upstream_with_broken_ref(tmp.path(), ["2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z"]);
    let cache = tmp.path().join("cache");
    let url = format!("file://{}", bare.display());
    let m = materialize(
        &RepoSource::Git(url.clone()),
        Some(&ids[1]),
        &tmp.path().join("a"),
        &cache,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(m.path.join("src/lib.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    let mirror = mirror_path(&cache, &url);
    // Only the base commit came over (shallow), under a ref of its own; no `refs/pull/*`.
    assert_eq!(git(&mirror, &["rev-list", "--count", &ids[1]]), "1");
    let refs = git(&mirror, &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs, format!("refs/taskc/base/{}", ids[1]));
    // Another base (here the shallow boundary's parent) in the same mirror.
    let older = materialize(
        &RepoSource::Git(url),
        Some(&ids[0]),
        &tmp.path().join("older"),
        &cache,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(older.path.join("src/lib.py")).unwrap(),
        "def f():\n    return 0\n"
    );
    // A plain path to the mirror works as well as a file:// URL.
    let p = materialize(
        &RepoSource::Git(bare.display().to_string()),
        Some(&ids[0]),
        &tmp.path().join("p"),
        &cache,
    )
    .unwrap();
    assert_eq!(
        fs::read_to_string(p.path.join("src/lib.py")).unwrap(),
        "def f():\n    return 0\n"
    );
}

#[test]
fn a_base_the_repository_lacks_names_every_attempt() {
    let tmp = tempfile::tempdir().unwrap();
    let (bare, _) =
        upstream_with_broken_ref(tmp.path(), ["2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z"]);
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let err = materialize(
        &RepoSource::Git(format!("file://{}", bare.display())),
        Some(missing),
        &tmp.path().join("a"),
        &tmp.path().join("cache"),
    )
    .unwrap_err();
    // What failed, then what to do (data: `hint`, which the CLI renders as `help:`).
    let text = format!("{err}\n{}", err.hint().unwrap_or_default());
    assert!(matches!(err, RepoError::BaseMissing { .. }), "{text}");
    assert!(
        text.contains(missing) && text.contains("--depth=1"),
        "{text}"
    );
    assert!(text.contains("[sources] rewrite"), "{text}");
}
