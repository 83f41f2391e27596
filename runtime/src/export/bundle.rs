//! `tests/grading.json`: everything the exported grader (`taskc export harbor-grade`, the
//! very `taskc` binary that exported the task, shipped as `tests/taskc`) needs to grade as
//! `taskc score` does — the task's facts, the folder's scoring runs exactly as `taskc score`
//! plans them and the patches they name (relaxed hidden tests; in independent mode the
//! other targets' gold), each repository's base commit, the lock's oracle, and the
//! repositories' files at base that the patches touch (canary names avoid their tests).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::parser::Export;
use taskc_compiler::plan::{Plan, Run, ScoreMode, Step};

use crate::canary::BaseFiles;
use crate::grade::{TaskFacts, TaskOracle};

/// The schema of `grading.json`.
pub const BUNDLE_SCHEMA: &str = "taskc.harbor-grading/2";

/// The contents of `tests/grading.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    pub schema: String,
    /// taskc's version that exported the folder (the shipped grader is that binary).
    pub version: String,
    /// The task, its targets restricted to the ones this folder grades.
    pub facts: TaskFacts,
    pub mode: ScoreMode,
    /// The lock's sha256, as `taskc score` reports it.
    pub lock_digest: String,
    pub repos: Vec<BundleRepo>,
    /// Repositories whose recorded change is applied (the agent's).
    pub prediction_repos: Vec<String>,
    /// The folder's scoring runs, as `taskc score` plans them.
    pub runs: Vec<Run>,
    /// The patches the runs name, by digest.
    pub blobs: BTreeMap<String, String>,
    /// Environment variables of every run (as `taskc score` passes them).
    pub env: BTreeMap<String, String>,
    /// The lock's oracle of the folder's targets.
    pub oracle: TaskOracle,
    /// The repositories' files at base that the patches touch.
    pub base_files: BaseFiles,
}

/// One repository of the image: its name, its path and its synthetic base commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BundleRepo {
    pub name: String,
    pub path: String,
    pub commit: String,
}

/// The blobs `runs` upload (gold and hidden-test patches), each once.
pub fn blobs(plan: &Plan, runs: &[&Run]) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for s in runs.iter().flat_map(|r| r.steps.iter()) {
        if let Step::ApplyGold { blob, .. } | Step::ApplyTests { blob, .. } = s {
            let Some(text) = plan.blobs.get(blob) else {
                return Err(format!("the plan names blob {blob} but does not hold it"));
            };
            out.insert(blob.clone(), text.clone());
        }
    }
    Ok(out)
}

/// The oracle of the targets `runs` test.
pub fn oracle(oracle: &TaskOracle, runs: &[&Run]) -> Result<TaskOracle, String> {
    let mut out = TaskOracle::default();
    for r in runs {
        let t = &r.test.repo;
        let Some(o) = oracle.targets.get(t) else {
            return Err(format!("the lock has no oracle for target `{t}`"));
        };
        out.targets.insert(t.clone(), o.clone());
    }
    Ok(out)
}

/// Refuse what the exported grader cannot run as `taskc score` does.
pub fn check_supported(plan: &Plan, runs: &[&Run]) -> Result<(), String> {
    if plan.images.environment.context.is_some() {
        return Err(
            "the environment recipe has a build context (`dir(…)` parameter), which the exporter does not ship yet"
                .into(),
        );
    }
    if let Some(n) = plan.images.nodes.values().find(|n| n.tree.is_some()) {
        return Err(format!(
            "the environment's Dockerfile reads a named build context (`{}`), which the exporter does not ship yet",
            n.stage
        ));
    }
    for r in runs {
        if let Export::Unsupported { why } = r.test.parser.descriptor().export {
            return Err(format!(
                "the tests of `{}` use parser `{}`, which `taskc export harbor` does not support: {why}",
                r.test.repo, r.test.parser,
            ));
        }
        if let Some(s) = r.services.first() {
            return Err(format!(
                "the tests of `{}` need service `{}`, which Harbor's single verifier container cannot start beside them",
                r.test.repo, s.name,
            ));
        }
    }
    Ok(())
}
