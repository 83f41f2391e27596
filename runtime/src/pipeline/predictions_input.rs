//! What `taskc score` scores: the built-in `gold` / `empty` baselines, or a JSONL file of
//! predictions, grouped by task id (lines that cannot be used are kept as skipped).

use std::collections::BTreeMap;
use std::path::PathBuf;

use taskc_compiler::model::Task;

use super::PipelineError;
use crate::predictions::{self, parse_predictions, Prediction, PredictionError};

/// `--predictions gold|empty|FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PredictionSource {
    /// Every task's gold patches (each task scores as solved).
    Gold,
    /// No patch at all (each task scores as unsolved).
    Empty,
    /// A JSONL file of predictions.
    File(PathBuf),
}

impl PredictionSource {
    /// `gold`, `empty`, else a file path.
    pub fn from_arg(arg: &str) -> PredictionSource {
        match arg {
            "gold" => PredictionSource::Gold,
            "empty" => PredictionSource::Empty,
            file => PredictionSource::File(PathBuf::from(file)),
        }
    }
}

/// Predictions by task id, and the lines that were skipped (with where and why).
#[derive(Debug, Clone, Default)]
pub struct PredictionsInput {
    pub by_task: BTreeMap<String, Vec<Prediction>>,
    pub skipped: Vec<PredictionError>,
}

impl PredictionsInput {
    /// Task ids that have predictions but are not among `tasks`.
    pub fn unknown_tasks<'a>(&'a self, tasks: &[&Task]) -> Vec<&'a str> {
        self.by_task
            .keys()
            .filter(|t| !tasks.iter().any(|task| &&task.id == t))
            .map(String::as_str)
            .collect()
    }
}

/// The predictions of `source` for `tasks`.
pub fn read_predictions(
    source: &PredictionSource,
    tasks: &[&Task],
) -> Result<PredictionsInput, PipelineError> {
    let mut input = PredictionsInput::default();
    let path = match source {
        PredictionSource::Gold | PredictionSource::Empty => {
            for task in tasks {
                let p = if *source == PredictionSource::Gold {
                    predictions::gold(task)
                } else {
                    predictions::empty(task)
                };
                input.by_task.entry(task.id.clone()).or_default().push(p);
            }
            return Ok(input);
        }
        PredictionSource::File(path) => path,
    };
    let text = std::fs::read_to_string(path).map_err(|source| PipelineError::Io {
        what: format!("{}: cannot read the predictions", path.display()),
        source,
    })?;
    let known: BTreeMap<String, Vec<String>> = tasks
        .iter()
        .map(|t| {
            (
                t.id.clone(),
                t.repos.iter().map(|r| r.name.clone()).collect(),
            )
        })
        .collect();
    let (preds, skipped) = parse_predictions(&text, &known);
    for p in preds {
        input.by_task.entry(p.task.clone()).or_default().push(p);
    }
    input.skipped = skipped;
    Ok(input)
}
