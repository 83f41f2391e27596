//! Why a task cannot be exported: each error has a stable code (`docs/diagnostics.md`).

use std::path::PathBuf;

use taskc_compiler::Code;

use crate::pipeline::{LockUseError, PipelineError};

/// An export failure of one spec (or of the output folder).
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// No lock, or one that cannot be read: there is no oracle to grade against.
    #[error("{spec}: {source}")]
    Lock {
        spec: String,
        #[source]
        source: LockUseError,
    },
    /// The output folder holds files and `--force` was not given.
    #[error("{}: the folder is not empty", out.display())]
    OutExists { out: PathBuf },
    /// Something the exported grader cannot reproduce faithfully.
    #[error("{spec}: cannot export: {what}")]
    Unsupported { spec: String, what: String },
    /// Lowering, materialising or reading the spec's files.
    #[error("{spec}: {source}")]
    Pipeline {
        spec: String,
        #[source]
        source: Box<PipelineError>,
    },
    /// Writing the task folders.
    #[error("{what}: {source}")]
    Write {
        what: String,
        #[source]
        source: std::io::Error,
    },
}

impl ExportError {
    /// The stable code of this error.
    pub fn code(&self) -> Code {
        match self {
            ExportError::Lock {
                source: LockUseError::Stale { .. },
                ..
            } => Code::ExportLockStale,
            ExportError::Lock { .. } => Code::ExportLockMissing,
            ExportError::OutExists { .. } => Code::ExportOutExists,
            ExportError::Unsupported { .. } => Code::ExportUnsupported,
            ExportError::Pipeline { .. } | ExportError::Write { .. } => Code::ExportFailed,
        }
    }

    /// How to fix it.
    pub fn hint(&self) -> String {
        match self {
            ExportError::Lock { spec, source } => match source {
                LockUseError::Stale { .. } => format!(
                    "run `taskc verify {spec}` again: the exported grader compares with the lock's oracle"
                ),
                _ => format!("run `taskc verify {spec}` first: the exported grader compares with the lock's oracle"),
            },
            ExportError::OutExists { .. } => {
                "pass a new or empty folder to --out, or --force to replace the task folders".into()
            }
            ExportError::Unsupported { .. } => {
                "score this task with `taskc score` instead (see docs/export.md)".into()
            }
            ExportError::Pipeline { .. } | ExportError::Write { .. } => {
                "check the path and its permissions, and the spec's sources".into()
            }
        }
    }
}
