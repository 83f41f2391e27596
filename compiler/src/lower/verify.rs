//! The verification plan, deduplicated by the `uses` closure.

use std::collections::BTreeMap;

use crate::plan::{
    Configuration, Expect, Plan, PlanBody, Run, TargetCheck, Verdict, VerifyPlan, VerifyStrategy,
};

use super::closure::closures;
use super::prepare::Prepared;
use super::{LowerError, LowerOptions, MAX_JOINT_TARGETS};

/// Names of `of` whose bit is set in `mask` (bit i = `of[i]`).
fn subset(of: &[String], mask: u64) -> Vec<String> {
    of.iter()
        .enumerate()
        .filter(|(i, _)| mask >> i & 1 == 1)
        .map(|(_, n)| n.clone())
        .collect()
}

fn key(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

pub(crate) fn lower(prep: Prepared<'_>, opts: &LowerOptions) -> Result<Plan, LowerError> {
    let targets = prep.targets.clone();
    let n = targets.len();
    let closures = closures(prep.task);
    let strategy = prep.task.verify;
    if strategy == VerifyStrategy::Joint && n > MAX_JOINT_TARGETS {
        return Err(LowerError::TooManyTargets { count: n });
    }
    let closure_of = |r: &str| {
        closures
            .get(r)
            .cloned()
            .unwrap_or_else(|| vec![r.to_string()])
    };

    // (target, sorted gold set) → run.
    let mut runs: Vec<Run> = Vec::new();
    let mut index: BTreeMap<(String, Vec<String>), usize> = BTreeMap::new();
    let mut add = |runs: &mut Vec<Run>, r: &str, gold: Vec<String>| -> String {
        let k = (r.to_string(), key(gold.clone()));
        if let Some(&i) = index.get(&k) {
            return runs[i].id.clone();
        }
        let run = prep.run(&[r.to_string()], &gold, &[]);
        let id = run.id.clone();
        index.insert(k, runs.len());
        runs.push(run);
        id
    };

    let mut configurations = Vec::new();
    match strategy {
        VerifyStrategy::Joint => {
            // Runs: per target r, per subset of closure(r) (or of all targets if exhaustive).
            for r in &targets {
                let over = if opts.exhaustive {
                    targets.clone()
                } else {
                    closure_of(r)
                };
                for mask in 0..(1u64 << over.len()) {
                    add(&mut runs, r, subset(&over, mask));
                }
            }
            let full: u64 = (1u64 << n) - 1;
            for mask in 0..=full {
                let gold = subset(&targets, mask);
                let mut checks = BTreeMap::new();
                for r in &targets {
                    let c = closure_of(r);
                    let decided_by: Vec<String> = if opts.exhaustive {
                        gold.clone()
                    } else {
                        gold.iter().filter(|g| c.contains(g)).cloned().collect()
                    };
                    let covered = c.iter().all(|m| gold.contains(m));
                    let expected = if covered { Expect::Pass } else { Expect::Any };
                    let run = add(&mut runs, r, decided_by);
                    checks.insert(r.clone(), TargetCheck { run, expected });
                }
                configurations.push(Configuration {
                    gold: key(gold),
                    expected: Verdict::of(mask == full),
                    targets: checks,
                });
            }
        }
        VerifyStrategy::PerRepo => {
            let mut base = BTreeMap::new();
            let mut gold = BTreeMap::new();
            for r in &targets {
                let with = if opts.exhaustive {
                    targets.clone()
                } else {
                    closure_of(r)
                };
                let b = add(&mut runs, r, Vec::new());
                let g = add(&mut runs, r, with);
                base.insert(
                    r.clone(),
                    TargetCheck {
                        run: b,
                        expected: Expect::Fail,
                    },
                );
                gold.insert(
                    r.clone(),
                    TargetCheck {
                        run: g,
                        expected: Expect::Pass,
                    },
                );
            }
            configurations.push(Configuration {
                gold: Vec::new(),
                expected: Verdict::Fail,
                targets: base,
            });
            configurations.push(Configuration {
                gold: key(targets.clone()),
                expected: Verdict::Pass,
                targets: gold,
            });
        }
    }

    let plan = VerifyPlan {
        strategy,
        exhaustive: opts.exhaustive,
        targets,
        closures: closures.into_iter().map(|(k, v)| (k, key(v))).collect(),
        runs,
        configurations,
    };
    Ok(prep.finish(PlanBody::Verify { verify: plan }))
}
