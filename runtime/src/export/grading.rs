//! `tests/grading.json`: what the exported grader (`harbor/taskc_grade.py`) runs — the
//! scoring runs of the task exactly as `taskc score` plans them (steps, test command,
//! parser, time limit), each repository's base commit, and the lock's oracle — and the
//! patch files those steps name (relaxed hidden tests; in independent mode the other
//! targets' gold patches), shipped under `tests/patches/`.

use std::collections::BTreeMap;

use serde::Serialize;
use taskc_compiler::parser::Export;
use taskc_compiler::plan::{Plan, Run, Step};

use crate::grade::TaskOracle;

#[derive(Serialize)]
pub struct Grading<'a> {
    pub schema: &'static str,
    pub task: &'a str,
    pub mode: &'a str,
    /// The lock's sha256, as `taskc score` reports it.
    pub lock_digest: &'a str,
    pub repos: Vec<GradingRepo>,
    /// Repositories whose recorded change is applied (the agent's).
    pub prediction_repos: Vec<String>,
    pub runs: Vec<GradingRun<'a>>,
    pub oracle: BTreeMap<String, GradingOracle<'a>>,
}

#[derive(Serialize)]
pub struct GradingRepo {
    pub name: String,
    pub path: String,
    pub commit: String,
}

#[derive(Serialize)]
pub struct GradingRun<'a> {
    pub run: &'a str,
    pub steps: Vec<GradingStep<'a>>,
    pub test: &'a taskc_compiler::plan::TestStep,
}

#[derive(Serialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum GradingStep<'a> {
    ApplyPrediction { repo: &'a str },
    ApplyGold { repo: &'a str, file: String },
    RestoreSurface { repo: &'a str, globs: &'a [String] },
    RestoreFiles { repo: &'a str, paths: &'a [String] },
    ApplyTests { repo: &'a str, file: String },
}

#[derive(Serialize)]
pub struct GradingOracle<'a> {
    pub f2p: &'a [String],
    pub p2p: &'a [String],
}

/// The file under `tests/` holding blob `digest`.
pub fn patch_file(digest: &str) -> String {
    format!("patches/{digest}.patch")
}

/// The steps of `run` with blobs named by their file under `tests/`.
pub fn steps(run: &Run) -> Vec<GradingStep<'_>> {
    run.steps
        .iter()
        .map(|s| match s {
            Step::ApplyPrediction { repo } => GradingStep::ApplyPrediction { repo },
            Step::ApplyGold { repo, blob } => GradingStep::ApplyGold {
                repo,
                file: patch_file(blob),
            },
            Step::RestoreSurface { repo, globs } => GradingStep::RestoreSurface { repo, globs },
            Step::RestoreFiles { repo, paths } => GradingStep::RestoreFiles { repo, paths },
            Step::ApplyTests { repo, blob } => GradingStep::ApplyTests {
                repo,
                file: patch_file(blob),
            },
        })
        .collect()
}

/// The blobs `runs` upload (gold and hidden-test patches), sorted, each once.
pub fn blobs<'a>(runs: &[&'a Run]) -> Vec<&'a str> {
    let mut out: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.steps.iter())
        .filter_map(|s| match s {
            Step::ApplyGold { blob, .. } | Step::ApplyTests { blob, .. } => Some(blob.as_str()),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The oracle of the targets `runs` test.
pub fn oracle<'a>(
    oracle: &'a TaskOracle,
    runs: &[&Run],
) -> Result<BTreeMap<String, GradingOracle<'a>>, String> {
    let mut out = BTreeMap::new();
    for r in runs {
        let t = &r.test.repo;
        let Some(o) = oracle.targets.get(t) else {
            return Err(format!("the lock has no oracle for target `{t}`"));
        };
        out.insert(
            t.clone(),
            GradingOracle {
                f2p: &o.f2p,
                p2p: &o.p2p,
            },
        );
    }
    Ok(out)
}

/// Refuse what the grader would not grade as `taskc score` does.
pub fn check_supported(plan: &Plan, runs: &[&Run]) -> Result<(), String> {
    if plan.images.environment.context.is_some() {
        return Err(
            "the environment recipe has a build context (`dir(…)` parameter), which the exporter does not ship yet"
                .into(),
        );
    }
    for r in runs {
        if let Export::Unsupported { why } = r.test.parser.descriptor().export {
            return Err(format!(
                "the tests of `{}` use parser `{}`, which `taskc export harbor` does not support: {why}",
                r.test.repo, r.test.parser,
            ));
        }
    }
    Ok(())
}
