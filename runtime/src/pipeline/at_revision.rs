//! `taskc diff --git REV SPEC`: the spec's folder as it was at a git revision, extracted into
//! a temporary folder (removed when dropped) so the old version checks with its own files.
//! Git runs hermetically (`repo::Git`: no system or user config, no hooks); the archive is
//! unpacked by the `tar` crate, which refuses paths that leave the folder.

use std::path::{Path, PathBuf};

use super::PipelineError;
use crate::repo::{Git, RepoError};

/// The spec's folder at a revision.
#[derive(Debug)]
pub struct SpecAtRevision {
    /// `REV:path/to/spec.task`, for messages and diagnostics.
    pub name: String,
    /// The spec's bytes at the revision.
    pub bytes: Vec<u8>,
    /// The spec's folder at the revision: its relative paths start here.
    pub dir: PathBuf,
    _tmp: tempfile::TempDir,
}

/// Why the spec's version at a revision cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum AtRevisionError {
    #[error("{}: not a file", spec.display())]
    NotAFile { spec: PathBuf },
    #[error(transparent)]
    Git(#[from] RepoError),
    #[error("cannot extract {tree}: {source}")]
    Extract {
        tree: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{name}: the spec does not exist at {rev}")]
    Missing { name: String, rev: String },
}

impl From<AtRevisionError> for PipelineError {
    fn from(e: AtRevisionError) -> PipelineError {
        PipelineError::AtRevision(Box::new(e))
    }
}

/// The folder of `spec` (a path inside a git work tree) at `rev`.
pub fn spec_at_revision(spec: &Path, rev: &str) -> Result<SpecAtRevision, PipelineError> {
    let dir = match spec.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let file = spec
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| AtRevisionError::NotAFile {
            spec: spec.to_path_buf(),
        })?;
    let git = Git::new(&dir);
    let prefix = git
        .read(&["rev-parse", "--show-prefix"])
        .map_err(AtRevisionError::from)?;
    let tree = format!("{rev}:{prefix}");
    // From the top level: inside a subfolder, `git archive` limits paths to that folder.
    let top = git
        .read(&["rev-parse", "--show-toplevel"])
        .map_err(AtRevisionError::from)?;
    let tar = Git::new(top)
        .run(&["archive", "--format=tar", &tree])
        .map_err(AtRevisionError::from)?
        .stdout;
    let extract = |source| AtRevisionError::Extract {
        tree: tree.clone(),
        source,
    };
    let tmp = tempfile::Builder::new()
        .prefix("taskc-diff-")
        .tempdir()
        .map_err(extract)?;
    tar::Archive::new(tar.as_slice())
        .unpack(tmp.path())
        .map_err(extract)?;
    let name = format!("{rev}:{prefix}{file}");
    let bytes = std::fs::read(tmp.path().join(&file)).map_err(|_| AtRevisionError::Missing {
        name: name.clone(),
        rev: rev.to_string(),
    })?;
    Ok(SpecAtRevision {
        name,
        bytes,
        dir: tmp.path().to_path_buf(),
        _tmp: tmp,
    })
}
