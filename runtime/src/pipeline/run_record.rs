//! A `verify` / `score` run's identity (issue 23): its id (`--run-id`, else generated), what
//! it ran on (the predictions' and locks' digests, the backend, the taskc version, the
//! selection and time-limit factor), recorded in `report.json` and appended as one line to
//! the cache's index of runs, `<cache>/runs/index.jsonl` (one `O_APPEND` write per line, so
//! concurrent runs never interleave).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{PipelineError, PredictionSource, Selection, TimeoutMultiplier};
use crate::atomic::append_durably;

/// A run's id: `[A-Za-z0-9._-]`, 1 to 64 characters, not starting with `.`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A fresh id: `run-<unix seconds>-<8 hex>` (the hex from the clock's nanoseconds and the
    /// process id, so two runs started in the same second differ).
    pub fn generate() -> RunId {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let salt = now.subsec_nanos() ^ std::process::id().rotate_left(16);
        RunId(format!("run-{}-{salt:08x}", now.as_secs()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for RunId {
    type Err = String;

    fn from_str(s: &str) -> Result<RunId, String> {
        let ok = !s.is_empty()
            && s.len() <= 64
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if ok {
            Ok(RunId(s.to_string()))
        } else {
            Err(format!(
                "`{s}` is not a run id: use 1 to 64 of A-Z a-z 0-9 . _ - (not starting with `.`)"
            ))
        }
    }
}

/// Which command the run was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunCommand {
    Verify,
    Score,
}

/// The predictions a scoring run read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum PredictionsRecord {
    Gold,
    Empty,
    /// A file, with the sha256 of its bytes as read.
    File {
        path: PathBuf,
        sha256: String,
    },
}

impl PredictionsRecord {
    /// The record of `source` (a file is read again for its digest).
    pub fn of(source: &PredictionSource) -> Result<PredictionsRecord, PipelineError> {
        Ok(match source {
            PredictionSource::Gold => PredictionsRecord::Gold,
            PredictionSource::Empty => PredictionsRecord::Empty,
            PredictionSource::File(path) => {
                let bytes = std::fs::read(path).map_err(|source| PipelineError::Io {
                    what: format!("{}: cannot read the predictions", path.display()),
                    source,
                })?;
                PredictionsRecord::File {
                    path: path.clone(),
                    sha256: taskc_compiler::plan::sha256_hex(&bytes),
                }
            }
        })
    }
}

/// One run, as `report.json` (`run`) and the index of runs record it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunRecord {
    pub run_id: RunId,
    pub command: RunCommand,
    /// The taskc version that ran it.
    pub taskc: String,
    /// The backend the runs executed on (`docker`, `local`, `swarm`).
    pub backend: String,
    /// Seconds since the Unix epoch when the run started.
    pub started_at: u64,
    /// Only for `score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predictions: Option<PredictionsRecord>,
    /// Per task id: the sha256 of the lock it was scored against (`score`) or written
    /// (`verify`).
    pub locks: BTreeMap<String, String>,
    pub timeout_multiplier: TimeoutMultiplier,
    /// `--task`, empty when every task was kept.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exclude_tasks: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<String>,
    /// `--limit`: at most this many tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// The folder of the reports (`score`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_dir: Option<PathBuf>,
    /// `score --regrade`: graded from stored results, nothing ran.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub regrade: bool,
}

impl RunRecord {
    /// A record with no lock yet, started now.
    pub fn start(
        run_id: RunId,
        command: RunCommand,
        backend: &str,
        selection: &Selection,
        timeout_multiplier: TimeoutMultiplier,
    ) -> RunRecord {
        RunRecord {
            run_id,
            command,
            taskc: env!("CARGO_PKG_VERSION").to_string(),
            backend: backend.to_string(),
            started_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            predictions: None,
            locks: BTreeMap::new(),
            timeout_multiplier,
            tasks: selection.tasks.clone(),
            exclude_tasks: selection.exclude_tasks.clone(),
            models: selection.models.clone(),
            limit: selection.limit,
            report_dir: None,
            regrade: false,
        }
    }
}

/// `<cache>/runs/index.jsonl`.
pub fn run_index_path(cache: &Path) -> PathBuf {
    cache.join("runs").join("index.jsonl")
}

/// Append `record` as one line to the index of runs of `cache`; the index's path.
pub fn append_run(cache: &Path, record: &RunRecord) -> Result<PathBuf, PipelineError> {
    let path = run_index_path(cache);
    let io = |source| PipelineError::Io {
        what: format!("{}: cannot append to the index of runs", path.display()),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    // Plain data with string keys: serialisation cannot fail; an empty line if it did.
    let mut line = serde_json::to_string(record).unwrap_or_default();
    line.push('\n');
    append_durably(&path, line.as_bytes()).map_err(io)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_checked_and_generated_ones_pass() {
        assert!("swe-2026.12_a".parse::<RunId>().is_ok());
        for bad in ["", ".hidden", "a/b", "a b", &"x".repeat(65)] {
            assert!(bad.parse::<RunId>().is_err(), "{bad}");
        }
        let g = RunId::generate();
        assert!(g.as_str().parse::<RunId>().is_ok(), "{g:?}");
    }
}
