//! `taskc collect --from harbor JOB_DIR`: the predictions of a finished Harbor job whose
//! tasks `taskc export harbor` wrote. Each trial folder (`JOB_DIR/<trial>/`) holds what the
//! exported verifier recorded in Harbor's verifier log folder — `verifier/taskc.json` (the
//! task and the repositories whose change counts) and `verifier/diffs/<repo>.patch` (each
//! repository's change against its base) — and Harbor's `result.json` (agent and model).
//! The files are read as data; nothing in them runs. A trial without a record (a task
//! taskc did not export, or a trial that never reached its verifier) or without a recorded
//! diff is reported with its path and skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Prediction;

/// The record the exported grader writes beside the diffs.
pub const RECORD: &str = "verifier/taskc.json";

/// What a job gave.
#[derive(Debug, Default)]
pub struct HarborJob {
    /// One prediction per trial, with the trial's folder, in folder order.
    pub predictions: Vec<(PathBuf, Prediction)>,
    pub skipped: Vec<Skipped>,
}

/// A trial that gave no prediction, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The job folder cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the Harbor job folder {}: {source}", path.display())]
pub struct HarborJobError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

#[derive(Deserialize)]
struct Record {
    task: String,
    prediction_repos: Vec<String>,
}

/// Collect every trial of the job folder `dir`.
pub fn collect_job(dir: &Path) -> Result<HarborJob, HarborJobError> {
    let err = |source| HarborJobError {
        path: dir.to_path_buf(),
        source,
    };
    let mut trials: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(err)?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| p.join("result.json").is_file() || p.join("config.json").is_file())
        .collect();
    trials.sort();
    let mut job = HarborJob::default();
    for t in trials {
        match trial(&t) {
            Ok(p) => job.predictions.push((t, p)),
            Err(reason) => job.skipped.push(Skipped { path: t, reason }),
        }
    }
    Ok(job)
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not valid: {e}", path.display()))
}

/// The agent (and model) of a trial, from Harbor's `result.json` (else `config.json`).
fn agent_of(trial: &Path) -> String {
    let value = read_json::<serde_json::Value>(&trial.join("result.json"))
        .or_else(|_| read_json::<serde_json::Value>(&trial.join("config.json")))
        .unwrap_or_default();
    let agent = value
        .pointer("/config/agent")
        .or_else(|| value.pointer("/agent"))
        .cloned()
        .unwrap_or_default();
    let name = agent
        .get("name")
        .and_then(|v| v.as_str())
        .unwrap_or("agent");
    match agent.get("model_name").and_then(|v| v.as_str()) {
        Some(model) if !model.is_empty() => format!("{name}:{model}"),
        _ => name.to_string(),
    }
}

fn trial(trial: &Path) -> Result<Prediction, String> {
    let record_path = trial.join(RECORD);
    if !record_path.is_file() {
        return Err(format!(
            "no {RECORD}: not a task `taskc export harbor` wrote, or the trial never reached its verifier"
        ));
    }
    let record: Record = read_json(&record_path)?;
    let mut patches = BTreeMap::new();
    for repo in &record.prediction_repos {
        let plain = !repo.is_empty() && !repo.contains('/') && repo != "." && repo != "..";
        if !plain {
            return Err(format!(
                "{} names `{repo}`, which is not a repository name",
                record_path.display()
            ));
        }
        let path = trial.join("verifier/diffs").join(format!("{repo}.patch"));
        let meta = std::fs::symlink_metadata(&path).map_err(|_| {
            format!(
                "no recorded diff for `{repo}` ({} is missing)",
                path.display()
            )
        })?;
        if !meta.is_file() {
            return Err(format!("{} is not a plain file", path.display()));
        }
        let bytes =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("the recorded diff {} is not UTF-8 text", path.display()))?;
        if !text.trim().is_empty() {
            patches.insert(repo.clone(), text);
        }
    }
    Ok(Prediction {
        task: record.task,
        model: agent_of(trial),
        patches,
    })
}
