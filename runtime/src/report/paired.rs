//! Joint against independent execution: for one model, the tasks graded in both modes, the
//! paired table (both solved, only joint, only independent, neither) and the per-repository
//! recovery (targets failing jointly that pass when scored independently).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::plan::ScoreMode;

use super::ratio::Ratio;
use crate::grade::{PredictionGrade, Status, TargetOutcome};

/// A 2×2 table of paired outcomes (invalid counts as not solved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PairCounts {
    pub both: usize,
    pub only_joint: usize,
    pub only_independent: usize,
    pub neither: usize,
}

impl PairCounts {
    fn add(&mut self, joint: bool, independent: bool) {
        match (joint, independent) {
            (true, true) => self.both += 1,
            (true, false) => self.only_joint += 1,
            (false, true) => self.only_independent += 1,
            (false, false) => self.neither += 1,
        }
    }

    /// Every pair counted.
    pub fn total(&self) -> usize {
        self.both + self.only_joint + self.only_independent + self.neither
    }
}

/// One task in both modes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedTask {
    pub task: String,
    pub joint: Status,
    pub independent: Status,
}

/// One target repository in both modes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedRepo {
    pub task: String,
    pub repo: String,
    pub joint: TargetOutcome,
    pub independent: TargetOutcome,
}

/// The paired comparison for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    pub model: String,
    /// Tasks graded in both modes.
    pub tasks: usize,
    /// Task-level table.
    pub table: PairCounts,
    /// Pairs where at least one side is invalid (also counted in `table` as not solved).
    pub invalid_pairs: usize,
    /// Target-level table (resolved or not).
    pub repos: PairCounts,
    /// Targets failing jointly that pass independently / targets failing jointly.
    pub recovery: Ratio,
    /// Tasks graded in one mode only (left out of the tables).
    pub unpaired: Vec<String>,
    pub per_task: Vec<PairedTask>,
    pub per_repo: Vec<PairedRepo>,
}

/// Pair the grades of each model across modes. When a (model, task, mode) has several
/// predictions, the first in report order (by prediction id) is used.
pub fn pair(rows: &[PredictionGrade]) -> Vec<Paired> {
    type ByTask<'a> = BTreeMap<&'a str, &'a PredictionGrade>;
    let mut by_model: BTreeMap<&str, (ByTask<'_>, ByTask<'_>)> = BTreeMap::new();
    for g in rows {
        let e = by_model.entry(&g.model).or_default();
        let side = match g.mode {
            ScoreMode::Joint => &mut e.0,
            ScoreMode::Independent => &mut e.1,
        };
        side.entry(&g.task).or_insert(g);
    }
    let mut out = Vec::new();
    for (model, (joint, indep)) in by_model {
        if joint.is_empty() || indep.is_empty() {
            continue;
        }
        let mut p = Paired {
            model: model.to_string(),
            tasks: 0,
            table: PairCounts::default(),
            invalid_pairs: 0,
            repos: PairCounts::default(),
            recovery: Ratio::new(0, 0),
            unpaired: vec![],
            per_task: vec![],
            per_repo: vec![],
        };
        for (task, j) in &joint {
            let Some(i) = indep.get(task) else {
                p.unpaired.push(task.to_string());
                continue;
            };
            p.tasks += 1;
            p.table.add(j.solved(), i.solved());
            p.invalid_pairs += usize::from(!j.valid() || !i.valid());
            p.per_task.push(PairedTask {
                task: task.to_string(),
                joint: j.status,
                independent: i.status,
            });
            for (repo, jt) in &j.targets {
                let Some(it) = i.targets.get(repo) else {
                    continue;
                };
                p.repos.add(jt.resolved(), it.resolved());
                p.per_repo.push(PairedRepo {
                    task: task.to_string(),
                    repo: repo.clone(),
                    joint: jt.outcome,
                    independent: it.outcome,
                });
            }
        }
        p.unpaired.extend(
            indep
                .keys()
                .filter(|t| !joint.contains_key(*t))
                .map(|t| t.to_string()),
        );
        p.unpaired.sort();
        p.recovery = Ratio::new(
            p.repos.only_independent,
            p.repos.only_independent + p.repos.neither,
        );
        out.push(p);
    }
    out
}
