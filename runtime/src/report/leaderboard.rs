//! The ranked table of models at the top of the HTML report: per model and mode, how many
//! tasks it submitted a prediction for out of the tasks scored in that mode, and its rates,
//! best task success first.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{mode_str, Report};

/// One row of the ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rank {
    /// 1 for the best; equal rates share a rank.
    pub rank: usize,
    pub model: String,
    pub mode: String,
    /// Tasks with a prediction of this model in this mode.
    pub submitted: usize,
    /// Tasks scored in this mode (by any model).
    pub total: usize,
    pub solved: usize,
    pub invalid: usize,
    /// `66.67%` or `n/a`.
    pub case_success: String,
    pub repo_success: String,
}

/// The ranking of `report`'s summaries: by task success, then repository success (both
/// descending, `n/a` last), then model and mode.
pub fn ranking(report: &Report) -> Vec<Rank> {
    let mut rows: Vec<(Option<f64>, Option<f64>, Rank)> = report
        .summaries
        .iter()
        .map(|s| {
            let tasks_in_mode: BTreeSet<&str> = report
                .rows
                .iter()
                .filter(|r| mode_str(r.mode) == s.mode)
                .map(|r| r.task.as_str())
                .collect();
            let submitted: BTreeSet<&str> = report
                .rows
                .iter()
                .filter(|r| mode_str(r.mode) == s.mode && r.model == s.model)
                .map(|r| r.task.as_str())
                .collect();
            (
                s.metrics.case_success.percent,
                s.metrics.repo_success.percent,
                Rank {
                    rank: 0,
                    model: s.model.clone(),
                    mode: s.mode.clone(),
                    submitted: submitted.len(),
                    total: tasks_in_mode.len(),
                    solved: s.metrics.solved,
                    invalid: s.metrics.invalid,
                    case_success: s.metrics.case_success.percent_text(),
                    repo_success: s.metrics.repo_success.percent_text(),
                },
            )
        })
        .collect();
    let key = |p: Option<f64>| p.unwrap_or(-1.0);
    rows.sort_by(|a, b| {
        key(b.0)
            .total_cmp(&key(a.0))
            .then(key(b.1).total_cmp(&key(a.1)))
            .then(a.2.model.cmp(&b.2.model))
            .then(a.2.mode.cmp(&b.2.mode))
    });
    let mut out: Vec<Rank> = Vec::with_capacity(rows.len());
    let mut prev: Option<(f64, f64)> = None;
    for (i, (case, repo, mut r)) in rows.into_iter().enumerate() {
        let this = (key(case), key(repo));
        r.rank = match (prev, out.last()) {
            (Some(p), Some(last)) if p == this => last.rank,
            _ => i + 1,
        };
        prev = Some(this);
        out.push(r);
    }
    out
}
