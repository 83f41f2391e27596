//! The lock beside a spec, as the runtime reads it: back as the oracle scoring grades
//! against (`Lock → TaskOracle`), refusing a stale one; and for `taskc check`, whether it is
//! still fresh (W0900 / E0901).

use std::path::{Path, PathBuf};

use taskc_compiler::lock::{
    invalid_lock_diagnostic, lock_path_for, parse_lock, stale_inputs_with, stale_lock_diagnostic,
    StaleInput,
};
use taskc_compiler::lower::LowerOptions;
use taskc_compiler::model::Task;
use taskc_compiler::plan::sha256_hex;
use taskc_compiler::{Diagnostic, SourceMap};

use crate::grade::{TargetOracle, TaskOracle};

/// A task's oracle as its lock records it, and which lock that was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedOracle {
    pub oracle: TaskOracle,
    pub path: PathBuf,
    /// sha256 of the lock file's bytes: what the report records.
    pub digest: String,
    /// Inputs that changed since `taskc verify` wrote the lock (empty when fresh); only
    /// non-empty when the caller allowed a stale lock.
    pub stale: Vec<StaleInput>,
}

/// Why the lock cannot be used: what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockUseError {
    #[error("{}: cannot read the lock ({detail})", path.display())]
    Missing { path: PathBuf, detail: String },
    #[error("{}: {detail}", path.display())]
    Invalid { path: PathBuf, detail: String },
    /// Scoring against it could grade a correct patch unsolved (or the reverse).
    #[error(
        "{}: the lock is stale: {} changed since `taskc verify` wrote it",
        path.display(),
        names(stale)
    )]
    Stale {
        path: PathBuf,
        stale: Vec<StaleInput>,
    },
}

impl LockUseError {
    /// What to do about it.
    pub fn hint(&self, spec: &str) -> String {
        match self {
            LockUseError::Missing { .. } | LockUseError::Invalid { .. } => {
                format!("run `taskc verify {spec}` first")
            }
            LockUseError::Stale { .. } => format!(
                "run `taskc verify {spec}` again, or pass `--allow-stale-lock` to score \
                 against the old oracle anyway"
            ),
        }
    }
}

fn names(stale: &[StaleInput]) -> String {
    stale
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The oracle recorded in the lock of the spec at `spec_path` (checked as `task`, lowered
/// with `opts` as `verify` lowered it). A lock whose inputs changed is an error unless
/// `allow_stale`.
pub fn load_oracle(
    spec_path: &Path,
    task: &Task,
    opts: &LowerOptions,
    allow_stale: bool,
) -> Result<LockedOracle, LockUseError> {
    let path = PathBuf::from(lock_path_for(&spec_path.to_string_lossy()));
    let bytes = std::fs::read(&path).map_err(|e| LockUseError::Missing {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let lock = parse_lock(&text).map_err(|e| LockUseError::Invalid {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    let opts = LowerOptions {
        exhaustive: false,
        base_image_id: None,
        stand_ins: Default::default(),
        base_digests: Default::default(),
        image_ids: Default::default(),
        ..opts.clone()
    };
    let stale = stale_inputs_with(task, &lock, &opts).map_err(|e| LockUseError::Invalid {
        path: path.clone(),
        detail: format!("cannot compare the lock with the spec: {e}"),
    })?;
    if !stale.is_empty() && !allow_stale {
        return Err(LockUseError::Stale { path, stale });
    }
    let oracle = TaskOracle {
        targets: lock
            .repos
            .into_iter()
            .map(|(k, r)| {
                (
                    k,
                    TargetOracle {
                        f2p: r.f2p,
                        p2p: r.p2p,
                    },
                )
            })
            .collect(),
    };
    Ok(LockedOracle {
        oracle,
        path,
        digest: sha256_hex(&bytes),
        stale,
    })
}

/// W0900 / E0901 for the lock beside the spec at `path` (shown as `name`), if there is one:
/// stale when any input changed since `taskc verify` wrote it. The lock's text is added to
/// `sources` so the diagnostic can point into it.
pub fn lock_diagnostics(
    path: &Path,
    name: &str,
    task: &Task,
    base_image_override: Option<String>,
    sources: &mut SourceMap,
) -> Vec<Diagnostic> {
    let lock_path = lock_path_for(&path.to_string_lossy());
    let lock_name = lock_path_for(name);
    let Ok(text) = std::fs::read_to_string(&lock_path) else {
        return Vec::new();
    };
    let id = sources.add(lock_name.clone(), text.clone());
    let lock = match parse_lock(&text) {
        Ok(l) => l,
        Err(e) => return vec![invalid_lock_diagnostic(&lock_name, name, id, &e)],
    };
    let opts = LowerOptions {
        base_image_override,
        exhaustive: false,
        full: false,
        base_image_id: None,
        stand_ins: Default::default(),
        base_digests: Default::default(),
        image_ids: Default::default(),
    };
    match stale_inputs_with(task, &lock, &opts) {
        Ok(stale) => stale_lock_diagnostic(&lock_name, name, id, &text, &stale)
            .into_iter()
            .collect(),
        Err(_) => Vec::new(),
    }
}
