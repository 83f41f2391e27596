//! The git CLI, run hermetically: no system or user config, no hooks, fixed identity and
//! dates, so results (commit ids) depend only on content.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::RepoError;

/// Identity of every synthetic commit.
pub const AUTHOR_NAME: &str = "taskc";
/// Email of every synthetic commit.
pub const AUTHOR_EMAIL: &str = "taskc@localhost";
/// Date of every synthetic commit.
pub const COMMIT_DATE: &str = "2000-01-01T00:00:00Z";

/// Environment variables that would let the caller's setup change git's behaviour.
const CLEARED: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CEILING_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
    "XDG_CONFIG_HOME",
    "EMAIL",
];

/// A git invocation in `dir` with a hermetic environment.
pub(crate) struct Git {
    dir: PathBuf,
    index_file: Option<PathBuf>,
}

impl Git {
    /// Git run in `dir`.
    pub(crate) fn new(dir: impl Into<PathBuf>) -> Git {
        Git {
            dir: dir.into(),
            index_file: None,
        }
    }

    /// Uses a private index file (for checkouts from a shared repository).
    pub(crate) fn with_index(mut self, index: &Path) -> Git {
        self.index_file = Some(index.to_path_buf());
        self
    }

    /// The command, ready for arguments.
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        for var in CLEARED {
            cmd.env_remove(var);
        }
        cmd.current_dir(&self.dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_AUTHOR_NAME", AUTHOR_NAME)
            .env("GIT_AUTHOR_EMAIL", AUTHOR_EMAIL)
            .env("GIT_AUTHOR_DATE", COMMIT_DATE)
            .env("GIT_COMMITTER_NAME", AUTHOR_NAME)
            .env("GIT_COMMITTER_EMAIL", AUTHOR_EMAIL)
            .env("GIT_COMMITTER_DATE", COMMIT_DATE)
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .stdin(Stdio::null());
        if let Some(index) = &self.index_file {
            cmd.env("GIT_INDEX_FILE", index);
        }
        cmd.args([
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.safecrlf=false",
            "-c",
            "core.fileMode=true",
            "-c",
            "core.symlinks=true",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgSign=false",
            "-c",
            "gc.auto=0",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "safe.directory=*",
            "-c",
            "protocol.file.allow=always",
        ]);
        cmd
    }

    /// Runs `git <args>`; a non-zero exit is a [`RepoError::Git`] naming the command.
    pub(crate) fn run(&self, args: &[&str]) -> Result<Output, RepoError> {
        let output = self
            .command()
            .args(args)
            .output()
            .map_err(|e| RepoError::Io {
                op: "run git in",
                path: self.dir.clone(),
                source: e,
            })?;
        if !output.status.success() {
            return Err(RepoError::Git {
                command: format!("git {}", args.join(" ")),
                dir: self.dir.clone(),
                status: output.status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            });
        }
        Ok(output)
    }

    /// Runs `git <args>` and returns its trimmed stdout.
    pub(crate) fn read(&self, args: &[&str]) -> Result<String, RepoError> {
        let output = self.run(args)?;
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    }

    /// Whether `rev` names a commit in this repository.
    pub(crate) fn has_commit(&self, rev: &str) -> bool {
        self.command()
            .args(["cat-file", "-e", &format!("{rev}^{{commit}}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }
}
