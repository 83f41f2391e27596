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

    #[error("{source_desc} does not contain the base commit {base}\n  help: {help}")]
    BaseMissing {
        source_desc: String,
        base: String,
        help: String,
    },

    #[error(
        "base `{base}` is not a full 40-hex commit id\n  help: write the full commit id \
         (`git rev-parse <rev>`)"
    )]
    BadBase { base: String },

    #[error(
        "destination `{}` already exists and is not empty\n  help: materialise into a new folder",
        path.display()
    )]
    DestinationNotEmpty { path: PathBuf },

    #[error("{op} `{}`: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> RepoError {
    RepoError::Io {
        op,
        path: path.into(),
        source,
    }
}
