//! Reports over graded predictions: a versioned JSON report ([`Report`], schema
//! `taskc.report/1`), a Markdown summary ([`markdown`]) and one self-contained HTML page
//! ([`html`]) with inline SVG charts. Everything is deterministic: rows and groups are
//! sorted and no clock is read (a timestamp appears only when the caller passes one).

pub mod html;
pub mod leaderboard;
pub mod markdown;
pub mod metrics;
pub mod paired;
pub mod ratio;
pub mod svg;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::plan::ScoreMode;

pub use metrics::{Metrics, RATE_METRICS};
pub use paired::{PairCounts, Paired, PairedRepo, PairedTask};
pub use ratio::Ratio;

use crate::grade::PredictionGrade;
use crate::predictions::Duplicate;
use crate::predictions::PredictionError;

/// Schema tag of JSON reports.
pub const REPORT_SCHEMA: &str = "taskc.report/1";

/// The metrics of one model in one scoring mode, overall and broken down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub model: String,
    /// `joint` or `independent`.
    pub mode: String,
    pub metrics: Metrics,
    /// By task kind (`bugfix`, `feature`).
    pub by_kind: BTreeMap<String, Metrics>,
    /// By number of target repositories.
    pub by_targets: BTreeMap<usize, Metrics>,
    /// By language family (`python`, `js`, `go`, `rust`, `jvm`, `multi`, `other`).
    pub by_family: BTreeMap<String, Metrics>,
}

impl Summary {
    /// `model · mode`, the summary's label (and its `data-summary` in HTML).
    pub fn label(&self) -> String {
        format!("{} · {}", self.model, self.mode)
    }
}

/// A scoring report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`REPORT_SCHEMA`].
    pub schema: String,
    /// Set only when the caller passes a time (reports are otherwise reproducible).
    pub generated_at: Option<String>,
    /// Per (model, mode), sorted.
    pub summaries: Vec<Summary>,
    /// Joint against independent, per model graded in both modes.
    pub paired: Vec<Paired>,
    /// Prediction lines skipped as malformed (line, column, message).
    pub skipped: Vec<PredictionError>,
    /// One row per graded prediction, sorted by task, model, mode, prediction id.
    pub rows: Vec<PredictionGrade>,
    /// Prediction lines not scored: an earlier line has the same task and model.
    #[serde(default)]
    pub duplicates: Vec<Duplicate>,
    /// Per task id: sha256 of the lock whose oracle graded it (absent when a caller graded
    /// without a lock file).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub locks: BTreeMap<String, String>,
    /// `--timeout-multiplier` when it was not 1: every test step's limit was scaled by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_multiplier: Option<f64>,
    /// The run's id and inputs (`taskc score` sets it; absent in reports built otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<crate::pipeline::RunRecord>,
    /// `score --regrade`: per prediction and run, the stored result reused or why none
    /// could be.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regrade: Vec<crate::pipeline::RunReuse>,
}

/// `joint` or `independent`.
pub fn mode_str(m: ScoreMode) -> &'static str {
    match m {
        ScoreMode::Joint => "joint",
        ScoreMode::Independent => "independent",
    }
}

impl Report {
    /// Build a report over `rows` (any order); `skipped` lists malformed prediction lines.
    pub fn new(
        mut rows: Vec<PredictionGrade>,
        skipped: Vec<PredictionError>,
        generated_at: Option<String>,
    ) -> Report {
        rows.sort_by(|a, b| {
            (&a.task, &a.model, mode_str(a.mode), &a.prediction).cmp(&(
                &b.task,
                &b.model,
                mode_str(b.mode),
                &b.prediction,
            ))
        });
        let mut groups: BTreeMap<(&str, &str), Vec<&PredictionGrade>> = BTreeMap::new();
        for g in &rows {
            groups
                .entry((&g.model, mode_str(g.mode)))
                .or_default()
                .push(g);
        }
        let summaries = groups
            .into_iter()
            .map(|((model, mode), gs)| summary(model, mode, &gs))
            .collect();
        let paired = paired::pair(&rows);
        Report {
            schema: REPORT_SCHEMA.to_string(),
            generated_at,
            summaries,
            paired,
            skipped,
            rows,
            duplicates: Vec::new(),
            locks: BTreeMap::new(),
            timeout_multiplier: None,
            run: None,
            regrade: Vec::new(),
        }
    }

    /// Pretty JSON with a final newline; byte-identical for identical inputs.
    pub fn to_json_pretty(&self) -> String {
        // Plain data with string (or integer) map keys: serialisation cannot fail.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Every target repository name across rows, sorted (the matrix's columns).
    pub fn target_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .rows
            .iter()
            .flat_map(|r| r.targets.keys().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

fn summary(model: &str, mode: &str, gs: &[&PredictionGrade]) -> Summary {
    let mut by_kind: BTreeMap<String, Vec<&PredictionGrade>> = BTreeMap::new();
    let mut by_targets: BTreeMap<usize, Vec<&PredictionGrade>> = BTreeMap::new();
    let mut by_family: BTreeMap<String, Vec<&PredictionGrade>> = BTreeMap::new();
    for g in gs {
        by_kind.entry(g.kind.to_string()).or_default().push(g);
        by_targets.entry(g.targets.len()).or_default().push(g);
        by_family.entry(g.family.clone()).or_default().push(g);
    }
    Summary {
        model: model.to_string(),
        mode: mode.to_string(),
        metrics: Metrics::of(gs.iter().copied()),
        by_kind: by_kind
            .into_iter()
            .map(|(k, v)| (k, Metrics::of(v)))
            .collect(),
        by_targets: by_targets
            .into_iter()
            .map(|(k, v)| (k, Metrics::of(v)))
            .collect(),
        by_family: by_family
            .into_iter()
            .map(|(k, v)| (k, Metrics::of(v)))
            .collect(),
    }
}
