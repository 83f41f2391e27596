//! Collecting a prediction from a finished agent workspace with real git: changed, new and
//! binary files are included, unchanged repositories are left out, and each patch applies
//! to a fresh copy of its repository at base.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use taskc_runtime::predictions::{collect, CollectError};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn head(dir: &Path) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "HEAD"])
        .output()
        .expect("git runs");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The record `taskc workspace` writes: the task and each repository's base commit.
fn record(ws: &Path, repos: &[&str]) {
    let repos: Vec<String> = repos
        .iter()
        .map(|r| {
            format!(
                r#"{{"name": "{r}", "role": "target", "commit": "{}"}}"#,
                head(&ws.join(r))
            )
        })
        .collect();
    std::fs::write(
        ws.join(".taskc-workspace.json"),
        format!(
            r#"{{"task": "cookie-split", "mode": "joint", "workspace": "all", "repos": [{}]}}"#,
            repos.join(", ")
        ),
    )
    .unwrap();
}

/// A repository with one commit holding `files`.
fn repo(dir: &Path, files: &[(&str, &[u8])]) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q"]);
    for (path, bytes) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

fn base_files() -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("src/cookies.py", b"def split(v):\n    return [v]\n"),
        ("README.md", b"proxy\n"),
    ]
}

#[test]
fn collects_changed_repositories_and_the_patches_apply_at_base() {
    let ws = tempfile::tempdir().unwrap();
    let proxy = ws.path().join("proxy");
    repo(&proxy, &base_files());
    repo(&ws.path().join("docs"), &[("index.md", b"docs\n")]);
    record(ws.path(), &["docs", "proxy"]);
    // The agent's work: an edit, a new file, a binary file, a deletion.
    std::fs::write(
        proxy.join("src/cookies.py"),
        "def split(v, limit=4096):\n    return [v[i:i + limit] for i in range(0, len(v), limit)]\n",
    )
    .unwrap();
    std::fs::write(proxy.join("src/new_module.py"), "X = 1\n").unwrap();
    std::fs::write(proxy.join("logo.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    std::fs::remove_file(proxy.join("README.md")).unwrap();

    let p = collect(ws.path(), None, "agent-x").unwrap();
    assert_eq!(p.task, "cookie-split");
    assert_eq!(p.model, "agent-x");
    assert_eq!(p.patches.keys().collect::<Vec<_>>(), vec!["proxy"]);
    let patch = &p.patches["proxy"];
    assert!(patch.contains("diff --git a/src/new_module.py b/src/new_module.py"));
    assert!(patch.contains("GIT binary patch"));
    assert!(patch.contains("deleted file mode"));

    // The patch applies to a fresh copy at base and reproduces the agent's tree.
    let fresh = tempfile::tempdir().unwrap();
    repo(fresh.path(), &base_files());
    let file = fresh.path().join("agent.patch");
    std::fs::write(&file, patch).unwrap();
    git(fresh.path(), &["apply", file.to_str().unwrap()]);
    assert_eq!(
        std::fs::read(fresh.path().join("src/cookies.py")).unwrap(),
        std::fs::read(proxy.join("src/cookies.py")).unwrap()
    );
    assert_eq!(
        std::fs::read(fresh.path().join("logo.bin")).unwrap(),
        vec![0u8, 159, 146, 150, 0, 1]
    );
    assert!(!fresh.path().join("README.md").exists());

    // Collecting again gives the same prediction (same digest).
    let again = collect(ws.path(), Some("cookie-split"), "agent-x").unwrap();
    assert_eq!(again.digest(), p.digest());
}

#[test]
fn a_record_is_needed_and_its_repositories_must_exist() {
    let ws = tempfile::tempdir().unwrap();
    let err = collect(ws.path(), Some("t"), "m").unwrap_err();
    assert!(matches!(err, CollectError::NoRecord { .. }), "{err}");
    assert_eq!(err.code().as_str(), "E1001");
    std::fs::write(ws.path().join(".taskc-workspace.json"), "{").unwrap();
    let err = collect(ws.path(), None, "m").unwrap_err();
    assert!(matches!(err, CollectError::InvalidRecord { .. }), "{err}");
    std::fs::write(
        ws.path().join(".taskc-workspace.json"),
        r#"{"task": "t", "repos": [{"name": "../up", "commit": "0000000000000000000000000000000000000000"}]}"#,
    )
    .unwrap();
    let err = collect(ws.path(), None, "m").unwrap_err();
    assert!(matches!(err, CollectError::InvalidRecord { .. }), "{err}");
    std::fs::write(
        ws.path().join(".taskc-workspace.json"),
        r#"{"task": "t", "repos": [{"name": "proxy", "commit": "0000000000000000000000000000000000000000"}]}"#,
    )
    .unwrap();
    let err = collect(ws.path(), None, "m").unwrap_err();
    assert!(matches!(err, CollectError::RepoMissing { .. }), "{err}");
    repo(&ws.path().join("proxy"), &base_files());
    let err = collect(ws.path(), None, "m").unwrap_err();
    assert!(matches!(err, CollectError::BaseMissing { .. }), "{err}");
}

#[test]
fn an_untouched_workspace_gives_an_empty_prediction() {
    let ws = tempfile::tempdir().unwrap();
    repo(&ws.path().join("proxy"), &base_files());
    record(ws.path(), &["proxy"]);
    let p = collect(ws.path(), Some("cookie-split"), "m").unwrap();
    assert!(p.patches.is_empty());
}
