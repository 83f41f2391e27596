//! Strict patch application: paths are checked first (no `..`, no absolute paths, nothing
//! under `.git`, nothing through a symlink inside the repository), then `git apply --check`
//! and `git apply` with exact context (git never fuzzes) and `--whitespace=nowarn`.
//!
//! The same rules hold inside containers: [`apply_command`] gives the script line, and
//! `git apply` itself refuses paths beyond a symlink there.

use std::io::Write;
use std::path::{Component, Path};
use std::process::Stdio;

use taskc_compiler::patch::parse_patch;

use crate::repo::Git;

/// Why a patch was not applied.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The patch names a path outside the repository (or inside `.git`).
    #[error("patch `{patch}` touches `{path}`, which {why}\n  help: {help}")]
    Escapes {
        patch: String,
        path: String,
        why: String,
        help: String,
    },

    /// The patch is not a unified diff.
    #[error("patch `{patch}` cannot be read: {message}")]
    Unreadable { patch: String, message: String },

    /// `git apply` refused the patch (context mismatch, missing file, …).
    #[error(
        "patch `{patch}` does not apply to `{repo}`:\n{stderr}\n  help: regenerate the patch \
         against the base commit (`git diff <base>`); taskc applies with exact context, no fuzz"
    )]
    DoesNotApply {
        patch: String,
        repo: String,
        stderr: String,
    },

    #[error("running git apply in `{repo}`: {source}")]
    Io {
        repo: String,
        #[source]
        source: std::io::Error,
    },
}

/// The shell line applying the patch at `patch_path` in the current folder (container side).
pub fn apply_command(patch_path: &str) -> String {
    let quoted = format!("'{}'", patch_path.replace('\'', "'\\''"));
    format!(
        "git -c core.hooksPath=/dev/null apply --check --whitespace=nowarn {quoted} && \
         git -c core.hooksPath=/dev/null apply --whitespace=nowarn {quoted}"
    )
}

/// Every path the patch touches (old and new), checked to stay inside `repo`.
/// `label` names the patch in errors (e.g. its spec path).
pub fn check_patch_paths(repo: &Path, label: &str, text: &str) -> Result<Vec<String>, ApplyError> {
    let patch = parse_patch(text).map_err(|e| ApplyError::Unreadable {
        patch: label.to_string(),
        message: e.message,
    })?;
    let mut paths = Vec::new();
    for file in &patch.files {
        for path in [&file.old_path, &file.new_path].into_iter().flatten() {
            check_path(repo, label, path)?;
            if !paths.contains(path) {
                paths.push(path.clone());
            }
        }
    }
    Ok(paths)
}

fn check_path(repo: &Path, label: &str, path: &str) -> Result<(), ApplyError> {
    let escapes = |why: &str, help: &str| ApplyError::Escapes {
        patch: label.to_string(),
        path: path.to_string(),
        why: why.to_string(),
        help: help.to_string(),
    };
    let relative_help = "paths in a patch are relative to the repository root \
                         (`a/src/x.py`, `b/src/x.py`)";
    if path.is_empty() {
        return Err(escapes("is empty", relative_help));
    }
    if path.starts_with('/') {
        return Err(escapes("is an absolute path", relative_help));
    }
    let mut inside = repo.to_path_buf();
    let components: Vec<Component<'_>> = Path::new(path).components().collect();
    for (i, component) in components.iter().enumerate() {
        match component {
            Component::Normal(part) => {
                if part.eq_ignore_ascii_case(".git") {
                    return Err(escapes(
                        "is inside the repository's `.git` folder",
                        "patches may only change tracked files",
                    ));
                }
                inside.push(part);
                let is_last = i + 1 == components.len();
                let is_link = std::fs::symlink_metadata(&inside)
                    .map(|m| m.file_type().is_symlink())
                    .unwrap_or(false);
                if is_link && !is_last {
                    return Err(escapes(
                        &format!(
                            "goes through the symlink `{}` inside the repository",
                            components[..=i]
                                .iter()
                                .map(|c| c.as_os_str().to_string_lossy())
                                .collect::<Vec<_>>()
                                .join("/")
                        ),
                        "change the file at its real location instead of through the link",
                    ));
                }
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(escapes(
                    "contains `..` and could leave the repository",
                    relative_help,
                ))
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(escapes("is an absolute path", relative_help))
            }
        }
    }
    Ok(())
}

/// Checks the patch's paths, then applies it strictly to the work tree of `repo`.
pub fn apply_patch(repo: &Path, label: &str, text: &str) -> Result<(), ApplyError> {
    check_patch_paths(repo, label, text)?;
    for args in [
        &["apply", "--check", "--whitespace=nowarn", "-"][..],
        &["apply", "--whitespace=nowarn", "-"][..],
    ] {
        git_apply(repo, label, text, args)?;
    }
    Ok(())
}

fn git_apply(repo: &Path, label: &str, text: &str, args: &[&str]) -> Result<(), ApplyError> {
    let io = |source| ApplyError::Io {
        repo: repo.display().to_string(),
        source,
    };
    let mut child = Git::new(repo)
        .command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes()).map_err(io)?;
    }
    let output = child.wait_with_output().map_err(io)?;
    if !output.status.success() {
        return Err(ApplyError::DoesNotApply {
            patch: label.to_string(),
            repo: repo.display().to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
        });
    }
    Ok(())
}
