//! Scoring against the real example tasks: the built-in `gold` and `empty` predictions,
//! their result keys in a lowered score plan (joint and independent), and SWE-bench's
//! combined diff of the gold patches split back into the per-repository gold patches.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::check::check_spec;
use taskc_compiler::lower::{lower_score, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::grade::{
    grade, scored_runs, Attribution, Status, TargetOracle, TaskFacts, TaskOracle,
};
use taskc_runtime::parsers::Outcome;
use taskc_runtime::predictions::{empty, gold, parse_predictions, split_by_repo, Prediction};
use taskc_runtime::results::{RepoTests, RunResult, RESULT_SCHEMA};

const EXAMPLES: &[&str] = &["cookie-split", "sdk-retry", "config-merge", "context-docs"];

fn load(name: &str) -> Task {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let spec = dir.join(format!("{name}.task"));
    let bytes = std::fs::read(&spec).unwrap();
    let checked = check_spec(&format!("{name}.task"), &bytes, &FsLoader::new(&dir));
    checked
        .task
        .unwrap_or_else(|| panic!("{name} does not check: {:?}", checked.diagnostics))
}

/// An oracle of one F2P and one P2P test per target.
fn oracle(facts: &TaskFacts) -> TaskOracle {
    TaskOracle {
        targets: facts
            .targets
            .iter()
            .map(|t| {
                (
                    t.clone(),
                    TargetOracle {
                        f2p: vec![format!("{t}::test_fixed")],
                        p2p: vec![format!("{t}::test_kept")],
                    },
                )
            })
            .collect(),
    }
}

/// Results as the executor stores them: F2P passes only where the prediction patches the
/// target.
fn results(plan: &taskc_compiler::plan::Plan, p: &Prediction) -> BTreeMap<String, Vec<RunResult>> {
    let mut out = BTreeMap::new();
    for run in &plan.score().unwrap().runs {
        let key = p.result_key(&run.id);
        let repos = std::iter::once(&run.under_test)
            .map(|t| {
                let fixed = if p.touches(t) {
                    Outcome::Passed
                } else {
                    Outcome::Failed
                };
                let tests = BTreeMap::from([
                    (format!("{t}::test_fixed"), fixed),
                    (format!("{t}::test_kept"), Outcome::Passed),
                ]);
                (
                    t.clone(),
                    RepoTests {
                        tests,
                        ..RepoTests::default()
                    },
                )
            })
            .collect();
        let r = RunResult {
            schema: RESULT_SCHEMA.into(),
            run: key.clone(),
            backend: "local".into(),
            failure: None,
            repos,
            wall_ms: 1,
            logs: BTreeMap::new(),
            executed: None,
        };
        out.insert(key, vec![r]);
    }
    out
}

#[test]
fn gold_solves_and_empty_fails_every_example_in_both_modes() {
    for name in EXAMPLES {
        let task = load(name);
        let facts = TaskFacts::from(&task);
        let oracle = oracle(&facts);
        for mode in [ScoreMode::Joint, ScoreMode::Independent] {
            let plan = lower_score(&task, &LowerOptions::default(), mode).unwrap();
            for p in [gold(&task), empty(&task)] {
                let runs = scored_runs(plan.score().unwrap(), &p, &results(&plan, &p));
                let g = grade(&facts, &oracle, &p, mode, &runs);
                if p.model == "gold" {
                    assert_eq!(g.status, Status::Solved, "{name} {mode:?}: {:?}", g.invalid);
                } else {
                    assert_eq!(g.status, Status::Unsolved, "{name} {mode:?}");
                    assert_eq!(g.attribution, Some(Attribution::ScopeMiss));
                }
            }
            // Without stored results, the prediction is invalid, not failed.
            let g = grade(
                &facts,
                &oracle,
                &gold(&task),
                mode,
                &scored_runs(plan.score().unwrap(), &gold(&task), &BTreeMap::new()),
            );
            assert_eq!(g.status, Status::Invalid, "{name} {mode:?}");
        }
    }
}

#[test]
fn a_swe_bench_combined_gold_diff_splits_back_into_the_gold_patches() {
    for name in EXAMPLES {
        let task = load(name);
        let g = gold(&task);
        let repos: Vec<String> = task.repos.iter().map(|r| r.name.clone()).collect();
        // Re-root every gold patch at the folder that holds the repositories.
        let mut combined = String::new();
        for (repo, diff) in &g.patches {
            for line in diff.split_inclusive('\n') {
                let moved = if line.starts_with("diff --git ") {
                    line.replacen(" a/", &format!(" a/{repo}/"), 1).replacen(
                        " b/",
                        &format!(" b/{repo}/"),
                        1,
                    )
                } else if let Some(rest) = line.strip_prefix("--- a/") {
                    format!("--- a/{repo}/{rest}")
                } else if let Some(rest) = line.strip_prefix("+++ b/") {
                    format!("+++ b/{repo}/{rest}")
                } else {
                    line.to_string()
                };
                combined.push_str(&moved);
            }
        }
        let parts = split_by_repo(&combined, &repos).unwrap();
        assert_eq!(parts, g.patches, "{name}");

        let line = serde_json::json!({
            "instance_id": task.id,
            "model_name_or_path": "gold-swe",
            "model_patch": combined,
        });
        let known = BTreeMap::from([(task.id.clone(), repos.clone())]);
        let (preds, errors) = parse_predictions(&line.to_string(), &known);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(preds[0].patches, g.patches);
    }
}
