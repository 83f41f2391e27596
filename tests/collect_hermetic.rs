//! `taskc collect` is hermetic (issue 9, defence 8) and diffs against the recorded base
//! (issue 10): with the real binary on a real `taskc workspace` export, every way an agent's
//! workspace could make git run a command on the host (fsmonitor, hooks, filter drivers,
//! `diff.external`, textconv) runs nothing, which a marker file the command would create
//! proves; each attack is first shown to be real with plain git, so the test can fail.
//! Symlinks are collected as symlinks; committed, staged, untracked, deleted, renamed,
//! binary and mode changes are all collected and reproduce the agent's tree exactly.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

struct Ws {
    tmp: tempfile::TempDir,
}

impl Ws {
    /// A fresh joint export of cookie-split.
    fn export() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Ws { tmp };
        ws.export_into(&ws.dir());
        ws
    }

    fn export_into(&self, out: &Path) {
        let spec =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split/cookie-split.task");
        let o = Command::new(TASKC)
            .args(["workspace", "--backend", "local", "--cache"])
            .arg(self.tmp.path().join("cache"))
            .arg("--out")
            .arg(out)
            .arg(&spec)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("ws")
    }

    fn repo(&self) -> PathBuf {
        self.dir().join("proxy")
    }

    /// Where an agent's command would leave its mark (outside the workspace).
    fn marker(&self) -> PathBuf {
        self.tmp.path().join("AGENT-COMMAND-RAN")
    }

    /// An executable script that creates the marker, then behaves like `cat`.
    fn evil_script(&self) -> PathBuf {
        let path = self.tmp.path().join("evil.sh");
        std::fs::write(
            &path,
            format!("#!/bin/sh\ntouch '{}'\ncat\n", self.marker().display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn collect(&self) -> Output {
        Command::new(TASKC)
            .arg("collect")
            .arg(self.dir())
            .output()
            .unwrap()
    }

    /// The collected patches (collect must succeed and run no agent command).
    fn patches(&self) -> serde_json::Map<String, serde_json::Value> {
        let o = self.collect();
        assert!(o.status.success(), "{o:?}");
        assert!(
            !self.marker().exists(),
            "collect ran a command the workspace chose"
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["patches"].as_object().unwrap().clone()
    }

    fn proxy_patch(&self) -> String {
        self.patches()["proxy"].as_str().unwrap().to_string()
    }
}

fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "agent")
        .env("GIT_AUTHOR_EMAIL", "agent@example.org")
        .env("GIT_COMMITTER_NAME", "agent")
        .env("GIT_COMMITTER_EMAIL", "agent@example.org")
        .output()
        .unwrap()
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let o = git(dir, args);
    assert!(o.status.success(), "git {args:?}: {o:?}");
    String::from_utf8(o.stdout).unwrap()
}

fn edit_cookies(repo: &Path) {
    let file = repo.join("proxy/cookies.py");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\n# agent was here\n");
    std::fs::write(&file, text).unwrap();
}

/// The agent's workspace config: `git config --file <repo>/.git/config key value`.
fn agent_config(repo: &Path, key: &str, value: &str) {
    let file = repo.join(".git/config");
    git_ok(
        repo,
        &["config", "--file", file.to_str().unwrap(), key, value],
    );
}

/// What `taskc collect` did before it was hermetic (and what any tool running plain git in
/// the workspace does): the attack is real when this creates the marker.
fn plain_git_collect(ws: &Ws) {
    let repo = ws.repo();
    let _ = git(&repo, &["add", "-A", "-N"]);
    let _ = git(&repo, &["status"]);
    let _ = git(&repo, &["diff", "HEAD"]);
    assert!(
        ws.marker().exists(),
        "the attack does not work with plain git: the test proves nothing"
    );
}

#[test]
fn core_fsmonitor_runs_nothing() {
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    agent_config(
        &ws.repo(),
        "core.fsmonitor",
        ws.evil_script().to_str().unwrap(),
    );
    assert!(ws.proxy_patch().contains("+# agent was here"));
    plain_git_collect(&ws);
}

#[test]
fn hooks_and_core_hooks_path_run_nothing() {
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    let hooks = ws.tmp.path().join("hooks");
    std::fs::create_dir(&hooks).unwrap();
    for dir in [hooks.clone(), ws.repo().join(".git/hooks")] {
        std::fs::create_dir_all(&dir).unwrap();
        for hook in [
            "post-index-change",
            "pre-commit",
            "post-checkout",
            "reference-transaction",
        ] {
            std::fs::copy(ws.evil_script(), dir.join(hook)).unwrap();
        }
    }
    agent_config(&ws.repo(), "core.hooksPath", hooks.to_str().unwrap());
    assert!(ws.proxy_patch().contains("+# agent was here"));
    plain_git_collect(&ws);
}

#[test]
fn a_filter_driver_runs_nothing_and_does_not_rewrite_content() {
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    std::fs::write(ws.repo().join(".gitattributes"), "* filter=evil\n").unwrap();
    let evil = ws.evil_script();
    agent_config(&ws.repo(), "filter.evil.clean", evil.to_str().unwrap());
    agent_config(&ws.repo(), "filter.evil.smudge", evil.to_str().unwrap());
    agent_config(&ws.repo(), "filter.evil.required", "true");
    let patch = ws.proxy_patch();
    assert!(patch.contains("+# agent was here"), "{patch}");
    assert!(patch.contains("+* filter=evil"), "{patch}");
    plain_git_collect(&ws);
}

#[test]
fn diff_external_and_textconv_run_nothing() {
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    std::fs::write(ws.repo().join(".gitattributes"), "*.py diff=evil\n").unwrap();
    let evil = ws.evil_script();
    agent_config(&ws.repo(), "diff.external", evil.to_str().unwrap());
    agent_config(&ws.repo(), "diff.evil.textconv", evil.to_str().unwrap());
    agent_config(&ws.repo(), "diff.evil.command", evil.to_str().unwrap());
    let patch = ws.proxy_patch();
    assert!(patch.contains("+# agent was here"), "{patch}");
    // plain `git diff` runs diff.external (and textconv): the attack is real.
    let _ = git(&ws.repo(), &["diff"]);
    assert!(
        ws.marker().exists(),
        "diff.external did not run with plain git"
    );
}

#[test]
fn a_symlink_to_etc_is_collected_as_a_symlink_never_followed() {
    let ws = Ws::export();
    std::os::unix::fs::symlink("/etc", ws.repo().join("etc-link")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", ws.repo().join("passwd-link")).unwrap();
    // A base folder replaced by a symlink to /etc: its files are deleted, /etc is not read.
    let tests = ws.repo().join("tests");
    std::fs::remove_dir_all(&tests).unwrap();
    std::os::unix::fs::symlink("/etc", &tests).unwrap();
    let patch = ws.proxy_patch();
    assert!(
        patch.contains("diff --git a/etc-link b/etc-link\nnew file mode 120000"),
        "{patch}"
    );
    assert!(
        patch.contains("+/etc\n\\ No newline at end of file"),
        "{patch}"
    );
    assert!(patch.contains("+/etc/passwd\n"), "{patch}");
    assert!(patch.contains("new file mode 120000"), "{patch}");
    assert!(patch.contains("deleted file mode"), "{patch}");
    assert!(
        !patch.contains("root:"),
        "collect read /etc/passwd:\n{patch}"
    );
    assert!(
        !patch.contains("+++ b/tests/"),
        "collect followed tests -> /etc:\n{patch}"
    );
}

#[test]
fn an_agent_that_committed_still_gets_its_changes_collected() {
    let ws = Ws::export();
    let repo = ws.repo();
    edit_cookies(&repo);
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "agent's fix"]);
    // Before: `git diff HEAD` after the commit gave `"patches":{}`.
    assert_eq!(git_ok(&repo, &["diff", "HEAD"]), "");
    assert!(ws.proxy_patch().contains("+# agent was here"));
    // A second branch and a reset do not hide it either.
    git_ok(&repo, &["checkout", "-q", "-b", "elsewhere"]);
    assert!(ws.proxy_patch().contains("+# agent was here"));
}

#[test]
fn every_kind_of_change_is_collected_and_reproduces_the_tree() {
    let ws = Ws::export();
    let repo = ws.repo();
    // staged
    edit_cookies(&repo);
    git_ok(&repo, &["add", "proxy/cookies.py"]);
    // committed
    std::fs::write(repo.join("README.md"), "rewritten by the agent\n").unwrap();
    git_ok(&repo, &["commit", "-q", "-am", "wip"]);
    // untracked (also in a new folder)
    std::fs::create_dir_all(repo.join("proxy/new")).unwrap();
    std::fs::write(repo.join("proxy/new/split.py"), "def split():\n    pass\n").unwrap();
    // deleted
    std::fs::remove_file(repo.join("pyproject.toml")).unwrap();
    // renamed
    let tests: Vec<_> = std::fs::read_dir(repo.join("tests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".py"))
        .collect();
    let moved = &tests[0];
    std::fs::rename(
        repo.join("tests").join(moved),
        repo.join("tests").join(format!("renamed_{moved}")),
    )
    .unwrap();
    // binary
    std::fs::write(repo.join("blob.bin"), [0u8, 159, 146, 150, 255, 0, 1, 2]).unwrap();
    // mode change
    let cookies = repo.join("proxy/cookies.py");
    std::fs::set_permissions(&cookies, std::fs::Permissions::from_mode(0o755)).unwrap();

    let patch = ws.proxy_patch();
    for want in [
        "+# agent was here",
        "+rewritten by the agent",
        "new file mode 100644",
        "+def split():",
        "deleted file mode 100644",
        &format!("rename to tests/renamed_{moved}"),
        "GIT binary patch",
        "old mode 100644\nnew mode 100755",
    ] {
        assert!(patch.contains(want), "no `{want}` in\n{patch}");
    }

    // Applied to a fresh export, the patch gives exactly the agent's tree.
    let fresh = ws.tmp.path().join("fresh");
    ws.export_into(&fresh);
    let file = ws.tmp.path().join("proxy.diff");
    std::fs::write(&file, &patch).unwrap();
    git_ok(&fresh.join("proxy"), &["apply", file.to_str().unwrap()]);
    for dir in [fresh.join("proxy"), repo.clone()] {
        git_ok(&dir, &["add", "-A"]);
    }
    assert_eq!(
        git_ok(&fresh.join("proxy"), &["write-tree"]),
        git_ok(&repo, &["write-tree"]),
        "the collected patch does not reproduce the agent's tree"
    );
}

#[test]
fn a_workspace_without_its_record_is_an_error_with_a_code() {
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    std::fs::remove_file(ws.dir().join(".taskc-workspace.json")).unwrap();
    let o = ws.collect();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("error[E1001]: "), "{stderr}");
    assert!(o.stdout.is_empty());
    insta::assert_snapshot!(format!(
        "$ rm <WS>/.taskc-workspace.json && taskc collect <WS>\n{}",
        stderr.replace(&ws.dir().display().to_string(), "<WS>")
    ));
}

#[test]
fn a_repository_without_its_base_is_an_error_with_a_code() {
    let ws = Ws::export();
    let repo = ws.repo();
    let base = git_ok(&repo, &["rev-parse", "HEAD"]);
    // The agent rewrote history: a fresh repository whose only commit is not the base.
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    git_ok(&repo, &["init", "-q"]);
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "history rewritten"]);
    let o = ws.collect();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("error[E1004]: "), "{stderr}");
    let commit = git_ok(&repo, &["rev-parse", "HEAD"]);
    insta::assert_snapshot!(format!(
        "$ rm -rf <WS>/proxy/.git && git init && git commit -am … && taskc collect <WS>\n{}",
        stderr
            .replace(&ws.dir().display().to_string(), "<WS>")
            .replace(commit.trim(), "<NEW>")
            .replace(base.trim(), "<BASE>")
    ));

    // A recorded repository replaced by a symlink is refused, not followed.
    std::fs::remove_dir_all(&repo).unwrap();
    std::os::unix::fs::symlink("/etc", &repo).unwrap();
    let o = ws.collect();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.starts_with("error[E1003]: "), "{stderr}");
    assert!(stderr.contains("is a symlink"), "{stderr}");
}

#[test]
fn collect_with_a_relative_path_inside_the_workspace() {
    // Before: `taskc collect .` failed with E1004 ("does not hold its recorded base commit").
    let ws = Ws::export();
    edit_cookies(&ws.repo());
    for (cwd, arg) in [(ws.dir(), "."), (ws.tmp.path().to_path_buf(), "ws")] {
        let o = Command::new(TASKC)
            .arg("collect")
            .arg(arg)
            .current_dir(&cwd)
            .output()
            .unwrap();
        assert!(o.status.success(), "collect {arg} in {cwd:?}: {o:?}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let proxy = v["patches"]["proxy"].as_str().unwrap();
        assert!(proxy.contains("+# agent was here"), "{proxy}");
    }
}
