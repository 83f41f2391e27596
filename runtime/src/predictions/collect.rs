//! Collecting a prediction from an agent's finished workspace: a folder holding one git
//! repository per task repository (`<dir>/<repo>/`, as `taskc workspace` exports it) and the
//! record `.taskc-workspace.json` naming the task and each repository's base commit.
//!
//! Collecting is **hermetic**: everything in the workspace was written by the agent, so
//! nothing of it may decide what runs on the host. Git runs with a git directory, index and
//! configuration taskc owns (a temporary folder; `GIT_CONFIG_NOSYSTEM`, global config
//! `/dev/null`, hooks `/dev/null`, no fsmonitor, no attributes, no textconv, no external
//! diff). The agent's `.git/objects` is only *read* (as an alternate object store) to find
//! the recorded base; its config, hooks, index, `info/` and refs are never consulted. The
//! work tree is read by taskc itself: every path of the base tree and every untracked,
//! not-ignored path (`.gitignore` files are honoured, as data), `lstat`-ed, never followed:
//! a symlink is collected as a symlink whatever it points to. File contents are hashed with
//! `hash-object --no-filters`, so no clean filter, `eol` or `ident` conversion applies.
//! The patch is the base tree against that snapshot, whatever the agent did with git
//! (committed, staged, reset, branched): staged, committed, untracked, deleted, renamed,
//! binary and mode changes are all collected.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;
use taskc_compiler::Code;

use super::Prediction;

/// The file `taskc workspace` writes at the top of a workspace.
pub const WORKSPACE_FILE: &str = ".taskc-workspace.json";

/// Git's empty tree: the source of attributes (none) when git supports `--attr-source`.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Why a workspace could not be collected.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{dir} has no {WORKSPACE_FILE}: it is not a workspace `taskc workspace` exported")]
    NoRecord { dir: String },
    #[error("{path} is not a valid workspace record: {message}")]
    InvalidRecord { path: String, message: String },
    #[error("repository `{repo}` of the workspace record is missing: {path} {problem}")]
    RepoMissing {
        repo: String,
        path: String,
        problem: &'static str,
    },
    #[error("repository `{repo}` ({path}) does not hold its recorded base commit {commit}")]
    BaseMissing {
        repo: String,
        path: String,
        commit: String,
    },
    #[error("cannot run git: {0}")]
    GitMissing(std::io::Error),
    #[error("`git {args}` failed collecting `{repo}`: {stderr}")]
    Git {
        repo: String,
        args: String,
        stderr: String,
    },
    #[error("the change in `{repo}` is not UTF-8 text")]
    NotUtf8 { repo: String },
}

impl CollectError {
    /// The stable code of this error (documented in `docs/diagnostics.md`).
    pub fn code(&self) -> Code {
        match self {
            CollectError::Read { .. } => Code::CollectUnreadable,
            CollectError::NoRecord { .. } => Code::WorkspaceRecordMissing,
            CollectError::InvalidRecord { .. } => Code::WorkspaceRecordInvalid,
            CollectError::RepoMissing { .. } => Code::CollectRepoMissing,
            CollectError::BaseMissing { .. } => Code::CollectBaseMissing,
            CollectError::GitMissing(_) | CollectError::Git { .. } => Code::CollectGitFailed,
            CollectError::NotUtf8 { .. } => Code::CollectNotUtf8,
        }
    }

    /// How to fix it.
    pub fn hint(&self) -> String {
        match self {
            CollectError::Read { .. } => "check the path and its permissions".into(),
            CollectError::NoRecord { .. } => format!(
                "collect the folder `taskc workspace --out DIR` exported (it writes \
                 {WORKSPACE_FILE}, which records the task and each repository's base commit)"
            ),
            CollectError::InvalidRecord { .. } => format!(
                "{WORKSPACE_FILE} is written by `taskc workspace`; restore it from a fresh export"
            ),
            CollectError::RepoMissing { .. } => {
                "every repository of the record must be a folder (not a symlink) in the \
                 workspace; restore it from a fresh export and re-apply the changes"
                    .into()
            }
            CollectError::BaseMissing { .. } => {
                "the agent removed or rewrote the base commit (e.g. `git gc --prune` after a \
                 history rewrite); export a fresh workspace, copy the changed files into it \
                 and collect that"
                    .into()
            }
            CollectError::GitMissing(_) => "install git (scripts/setup.sh does)".into(),
            CollectError::Git { .. } => "this is a bug in taskc or a broken git; report it \
                                         with the message above"
                .into(),
            CollectError::NotUtf8 { .. } => "commit such files as binary: mark them with \
                                             `binary` in .gitattributes of the base, or \
                                             re-encode them as UTF-8"
                .into(),
        }
    }
}

#[derive(Deserialize)]
struct Record {
    task: String,
    repos: Vec<RecordRepo>,
}

#[derive(Deserialize)]
struct RecordRepo {
    name: String,
    commit: String,
}

/// Collect the prediction of `model` from workspace `dir`; `task` overrides the task id of
/// the workspace record. Repositories are collected in the record's order (sorted by name);
/// an unchanged repository gets no patch.
pub fn collect(dir: &Path, task: Option<&str>, model: &str) -> Result<Prediction, CollectError> {
    // An absolute path first: git runs with a git directory of taskc's own, elsewhere, so a
    // relative work tree (`taskc collect .`) would name another folder (and its base would
    // look "removed").
    let dir = &std::fs::canonicalize(dir).map_err(|source| CollectError::Read {
        path: dir.display().to_string(),
        source,
    })?;
    let record = read_record(dir)?;
    let mut patches = BTreeMap::new();
    let mut repos: Vec<&RecordRepo> = record.repos.iter().collect();
    repos.sort_by(|a, b| a.name.cmp(&b.name));
    for repo in repos {
        let path = repo_dir(dir, &repo.name)?;
        let diff = collect_repo(&repo.name, &path, &repo.commit)?;
        if !diff.trim().is_empty() {
            patches.insert(repo.name.clone(), diff);
        }
    }
    Ok(Prediction {
        task: task.map_or(record.task, str::to_string),
        model: model.to_string(),
        patches,
    })
}

fn read_record(dir: &Path) -> Result<Record, CollectError> {
    let path = dir.join(WORKSPACE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Err(source) = std::fs::read_dir(dir) {
                return Err(CollectError::Read {
                    path: dir.display().to_string(),
                    source,
                });
            }
            return Err(CollectError::NoRecord {
                dir: dir.display().to_string(),
            });
        }
        Err(source) => {
            return Err(CollectError::Read {
                path: path.display().to_string(),
                source,
            })
        }
    };
    let invalid = |message: String| CollectError::InvalidRecord {
        path: path.display().to_string(),
        message,
    };
    let record: Record = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    for r in &record.repos {
        let plain = !r.name.is_empty()
            && r.name != "."
            && r.name != ".."
            && !r.name.contains('/')
            && !r.name.contains('\0');
        if !plain {
            return Err(invalid(format!("`{}` is not a repository name", r.name)));
        }
        if r.commit.len() != 40 || !r.commit.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid(format!(
                "the base commit of `{}` is not a full hex commit id: `{}`",
                r.name, r.commit
            )));
        }
    }
    if record.repos.is_empty() {
        return Err(invalid("it records no repository".into()));
    }
    Ok(record)
}

/// `<dir>/<name>`, which must be a real folder holding `.git/objects` (never a symlink).
fn repo_dir(dir: &Path, name: &str) -> Result<PathBuf, CollectError> {
    let path = dir.join(name);
    let missing = |problem| CollectError::RepoMissing {
        repo: name.to_string(),
        path: path.display().to_string(),
        problem,
    };
    match std::fs::symlink_metadata(&path) {
        Err(_) => return Err(missing("does not exist")),
        Ok(m) if m.file_type().is_symlink() => return Err(missing("is a symlink")),
        Ok(m) if !m.is_dir() => return Err(missing("is not a folder")),
        Ok(_) => {}
    }
    match std::fs::symlink_metadata(path.join(".git/objects")) {
        Ok(m) if m.is_dir() => Ok(path),
        _ => Err(missing("has no .git/objects folder")),
    }
}

/// The git directory and index taskc owns while collecting one repository.
struct Hermetic<'a> {
    repo: &'a str,
    work: &'a Path,
    scratch: tempfile::TempDir,
    attr_source: bool,
}

impl Hermetic<'_> {
    fn git_dir(&self) -> PathBuf {
        self.scratch.path().join("git")
    }

    /// `git` with taskc's git dir, index, config and environment, cwd the work tree.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.scratch.path())
            .env("XDG_CONFIG_HOME", self.scratch.path())
            .env("LC_ALL", "C")
            .env("GIT_DIR", self.git_dir())
            .env("GIT_WORK_TREE", self.work)
            .env("GIT_INDEX_FILE", self.scratch.path().join("index"))
            .env(
                "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                self.work.join(".git/objects"),
            )
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .current_dir(self.work);
        for (key, value) in [
            ("core.fsmonitor", "false"),
            ("core.hooksPath", "/dev/null"),
            ("core.attributesFile", "/dev/null"),
            ("core.excludesFile", "/dev/null"),
            ("core.untrackedCache", "false"),
            ("core.quotepath", "true"),
            ("core.symlinks", "true"),
            ("core.fileMode", "true"),
            ("core.autocrlf", "false"),
            ("core.bare", "false"),
            ("safe.directory", "*"),
            ("diff.noprefix", "false"),
            ("diff.external", ""),
            ("diff.renames", "true"),
        ] {
            cmd.arg("-c").arg(format!("{key}={value}"));
        }
        if self.attr_source {
            cmd.arg(format!("--attr-source={EMPTY_TREE}"));
        }
        cmd.args(args);
        cmd
    }

    fn run(&self, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CollectError> {
        let mut cmd = self.command(args);
        cmd.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(CollectError::GitMissing)?;
        if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
            // A writer thread: git may fill its stdout pipe before reading all its input.
            let bytes = bytes.to_vec();
            std::thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            });
        }
        let out = child.wait_with_output().map_err(CollectError::GitMissing)?;
        if !out.status.success() {
            return Err(CollectError::Git {
                repo: self.repo.to_string(),
                args: args.join(" "),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(out.stdout)
    }
}

/// Whether this git understands `--attr-source` (git ≥ 2.40).
fn git_has_attr_source() -> bool {
    Command::new("git")
        .arg(format!("--attr-source={EMPTY_TREE}"))
        .arg("version")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One entry of the collected snapshot.
struct Entry {
    mode: &'static str,
    oid: String,
}

fn collect_repo(name: &str, work: &Path, base: &str) -> Result<String, CollectError> {
    let scratch = tempfile::Builder::new()
        .prefix("taskc-collect-")
        .tempdir()
        .map_err(|source| CollectError::Read {
            path: std::env::temp_dir().display().to_string(),
            source,
        })?;
    let git = Hermetic {
        repo: name,
        work,
        scratch,
        attr_source: git_has_attr_source(),
    };
    // A git directory of taskc's own: empty templates (no hooks), nothing of the agent's.
    let git_dir = git.git_dir();
    let init = Command::new("git")
        .args(["init", "-q", "--bare", "--template="])
        .arg(&git_dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", git.scratch.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .output()
        .map_err(CollectError::GitMissing)?;
    if !init.status.success() {
        return Err(CollectError::Git {
            repo: name.to_string(),
            args: "init --bare".into(),
            stderr: String::from_utf8_lossy(&init.stderr).trim().to_string(),
        });
    }
    let base_commit = format!("{base}^{{commit}}");
    if git.run(&["cat-file", "-e", &base_commit], None).is_err() {
        return Err(CollectError::BaseMissing {
            repo: name.to_string(),
            path: work.display().to_string(),
            commit: base.to_string(),
        });
    }
    git.run(&["read-tree", base], None)?;

    // Every path to look at: the base tree's and the untracked, not-ignored ones.
    let mut snapshot: BTreeMap<Vec<u8>, Entry> = BTreeMap::new();
    let mut paths: Vec<Vec<u8>> = Vec::new();
    let staged = git.run(&["ls-files", "-z", "--stage"], None)?;
    for record in staged.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        // `<mode> <oid> <stage>\t<path>`
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let (meta, path) = (&record[..tab], &record[tab + 1..]);
        if meta.starts_with(b"160000") {
            // A submodule's commit: kept as the base has it (the work tree cannot change it).
            let oid = String::from_utf8_lossy(meta.split(|b| *b == b' ').nth(1).unwrap_or(b""));
            snapshot.insert(
                path.to_vec(),
                Entry {
                    mode: "160000",
                    oid: oid.into_owned(),
                },
            );
            continue;
        }
        paths.push(path.to_vec());
    }
    let others = git.run(&["ls-files", "-z", "--others", "--exclude-standard"], None)?;
    paths.extend(
        others
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty() && !p.ends_with(b"/"))
            .map(<[u8]>::to_vec),
    );

    // lstat each path (never following a symlink); hash files without filters.
    let mut files: Vec<(Vec<u8>, &'static str)> = Vec::new();
    let mut links: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for path in paths {
        let host = work.join(std::ffi::OsStr::from_bytes(&path));
        if !inside_without_symlinks(work, &path) {
            continue; // below a symlinked folder: the symlink itself is the change
        }
        let Ok(meta) = std::fs::symlink_metadata(&host) else {
            continue; // deleted
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(&host).map_err(|source| CollectError::Read {
                path: host.display().to_string(),
                source,
            })?;
            links.push((path, target.as_os_str().as_bytes().to_vec()));
        } else if kind.is_file() {
            let mode = if meta.permissions().mode() & 0o100 != 0 {
                "100755"
            } else {
                "100644"
            };
            files.push((path, mode));
        }
    }
    if !files.is_empty() {
        let mut input = Vec::new();
        for (path, _) in &files {
            input.extend_from_slice(path);
            input.push(b'\n');
        }
        // `--stdin-paths` takes one path a line: a name with a newline cannot be hashed by
        // path, so such files are refused rather than mis-collected.
        if let Some((bad, _)) = files.iter().find(|(p, _)| p.contains(&b'\n')) {
            return Err(CollectError::Read {
                path: work
                    .join(std::ffi::OsStr::from_bytes(bad))
                    .display()
                    .to_string(),
                source: std::io::Error::other("a file name with a newline cannot be collected"),
            });
        }
        let oids = git.run(
            &["hash-object", "-w", "--no-filters", "--stdin-paths"],
            Some(&input),
        )?;
        let oids: Vec<&str> = std::str::from_utf8(&oids)
            .map_err(|_| CollectError::NotUtf8 {
                repo: name.to_string(),
            })?
            .lines()
            .collect();
        for ((path, mode), oid) in files.into_iter().zip(oids) {
            snapshot.insert(
                path,
                Entry {
                    mode,
                    oid: oid.to_string(),
                },
            );
        }
    }
    for (path, target) in links {
        let oid = git.run(&["hash-object", "-w", "--stdin"], Some(&target))?;
        snapshot.insert(
            path,
            Entry {
                mode: "120000",
                oid: String::from_utf8_lossy(&oid).trim().to_string(),
            },
        );
    }

    // The snapshot as a fresh index, then the base tree against it.
    std::fs::remove_file(git.scratch.path().join("index")).map_err(|source| {
        CollectError::Read {
            path: git.scratch.path().display().to_string(),
            source,
        }
    })?;
    let mut info = Vec::new();
    for (path, e) in &snapshot {
        info.extend_from_slice(format!("{} {}\t", e.mode, e.oid).as_bytes());
        info.extend_from_slice(path);
        info.push(0);
    }
    git.run(&["update-index", "-z", "--index-info"], Some(&info))?;
    let diff = git.run(
        &[
            "diff",
            "--cached",
            "--binary",
            "--full-index",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            base,
            "--",
        ],
        None,
    )?;
    String::from_utf8(diff).map_err(|_| CollectError::NotUtf8 {
        repo: name.to_string(),
    })
}

/// Whether no proper prefix folder of `path` (relative to `work`) is a symlink.
fn inside_without_symlinks(work: &Path, path: &[u8]) -> bool {
    let mut at = work.to_path_buf();
    let parts: Vec<&[u8]> = path.split(|b| *b == b'/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(std::ffi::OsStr::from_bytes(part));
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => {}
            _ => return false,
        }
    }
    true
}
