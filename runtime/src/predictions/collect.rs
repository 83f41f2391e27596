//! Collecting a prediction from an agent's finished workspace: a folder holding one git
//! repository per task repository (`<dir>/<repo>/`, each at its synthetic base commit, as
//! `taskc workspace` exports it). Each repository's change is `git diff HEAD --binary` after
//! `git add -A -N` (so new files are included); unchanged repositories get no patch.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use super::Prediction;

/// The file `taskc workspace` writes at the top of a workspace.
pub const WORKSPACE_FILE: &str = ".taskc-workspace.json";

/// Why a workspace could not be collected.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error("cannot read workspace folder {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not valid: {message}\n  help: it should hold {{\"task\": \"<id>\", \"mode\": \"joint\"}}")]
    WorkspaceFile { path: String, message: String },
    #[error("no task id: {dir} has no {WORKSPACE_FILE}\n  help: pass --task <id>")]
    NoTask { dir: String },
    #[error("{dir} holds no git repository (expected one folder per repository, e.g. {dir}/<repo>/.git)")]
    NoRepos { dir: String },
    #[error("cannot run git: {0}\n  help: install git (scripts/setup.sh does)")]
    GitMissing(std::io::Error),
    #[error("`git {args}` failed in {repo}: {stderr}")]
    Git {
        repo: String,
        args: String,
        stderr: String,
    },
    #[error("the change in {repo} is not UTF-8 text; commit such files as binary (add them to .gitattributes with `binary`) and collect again")]
    NotUtf8 { repo: String },
}

#[derive(Deserialize)]
struct WorkspaceFile {
    task: String,
}

/// Collect the prediction of `model` from workspace `dir`; `task` overrides the task id of
/// the workspace's `.taskc-workspace.json`.
pub fn collect(dir: &Path, task: Option<&str>, model: &str) -> Result<Prediction, CollectError> {
    if let Err(source) = std::fs::read_dir(dir) {
        return Err(CollectError::Read {
            path: dir.display().to_string(),
            source,
        });
    }
    let task = match task {
        Some(t) => t.to_string(),
        None => read_task(dir)?,
    };
    let repos = repos_in(dir)?;
    if repos.is_empty() {
        return Err(CollectError::NoRepos {
            dir: dir.display().to_string(),
        });
    }
    let mut patches = BTreeMap::new();
    for (name, path) in repos {
        git(&path, &["add", "-A", "-N"])?;
        let diff = git(
            &path,
            &[
                "-c",
                "core.quotepath=true",
                "-c",
                "diff.noprefix=false",
                "-c",
                "diff.renames=true",
                "diff",
                "HEAD",
                "--binary",
                "--no-color",
                "--no-ext-diff",
                "--src-prefix=a/",
                "--dst-prefix=b/",
            ],
        )?;
        let diff = String::from_utf8(diff).map_err(|_| CollectError::NotUtf8 {
            repo: path.display().to_string(),
        })?;
        if !diff.trim().is_empty() {
            patches.insert(name, diff);
        }
    }
    Ok(Prediction {
        task,
        model: model.to_string(),
        patches,
    })
}

fn read_task(dir: &Path) -> Result<String, CollectError> {
    let path = dir.join(WORKSPACE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CollectError::NoTask {
                dir: dir.display().to_string(),
            })
        }
        Err(source) => {
            return Err(CollectError::Read {
                path: path.display().to_string(),
                source,
            })
        }
    };
    let w: WorkspaceFile =
        serde_json::from_str(&text).map_err(|e| CollectError::WorkspaceFile {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    Ok(w.task)
}

/// Sub-folders of `dir` that are git repositories, sorted by name; hidden folders skipped.
fn repos_in(dir: &Path) -> Result<Vec<(String, PathBuf)>, CollectError> {
    let read = |source| CollectError::Read {
        path: dir.display().to_string(),
        source,
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(read)? {
        let entry = entry.map_err(read)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with('.') || !path.is_dir() || !path.join(".git").exists() {
            continue;
        }
        out.push((name, path));
    }
    out.sort();
    Ok(out)
}

fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, CollectError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(CollectError::GitMissing)?;
    if !out.status.success() {
        return Err(CollectError::Git {
            repo: repo.display().to_string(),
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}
