//! Why a repository could not be materialised.

use std::path::PathBuf;

/// A failed repository materialisation, saying what failed and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum RepoError {
    #[error("`{command}` failed in `{}` ({status}): {stderr}", dir.display())]
    Git {
        command: String,
        dir: PathBuf,
        status: String,
        stderr: String,
    },

    #[error("{source_desc} does not contain the base commit {base}")]
    BaseMissing {
        source_desc: String,
        base: String,
        help: String,
    },

    #[error("base `{base}` is not a full 40-hex commit id")]
    BadBase { base: String },

    #[error("destination `{}` already exists and is not empty", path.display())]
    DestinationNotEmpty { path: PathBuf },

    #[error("{op} `{}`: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl RepoError {
    /// What to do about it (the CLI shows it as `help:`), when something is known.
    pub fn hint(&self) -> Option<String> {
        match self {
            RepoError::BaseMissing { help, .. } => Some(help.clone()),
            RepoError::BadBase { .. } => {
                Some("write the full commit id (`git rev-parse <rev>`)".to_string())
            }
            RepoError::DestinationNotEmpty { .. } => {
                Some("materialise into a new folder".to_string())
            }
            RepoError::Git { .. } | RepoError::Io { .. } => None,
        }
    }
}

pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> RepoError {
    RepoError::Io {
        op,
        path: path.into(),
        source,
    }
}
