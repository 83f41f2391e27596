//! The verification plan, deduplicated by the `uses` closure.

use std::collections::BTreeMap;

use crate::plan::{
    Configuration, Expect, Plan, PlanBody, Run, SelectWhat, SelectionMode, TargetCheck,
    TargetedRun, UsesCheck, UsesSide, Verdict, VerifyPlan, VerifyStrategy,
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

    let selection = if opts.full || opts.exhaustive || strategy == VerifyStrategy::PerRepo {
        SelectionMode::Full
    } else {
        SelectionMode::Targeted
    };
    // Why a target's proper subsets run the full suite in a targeted plan.
    let mut full_suite: BTreeMap<String, String> = BTreeMap::new();
    let narrow_why = |r: &str| -> Option<String> {
        let test = prep.tests.get(r).map(|t| &t.test)?;
        if test.select_template.is_some() {
            return None;
        }
        let why = test.parser.narrowable(&test.command).err()?;
        Some(format!(
            "{why}; a `select \"… {{ids}} …\"` template in its test block would narrow it"
        ))
    };

    // (target, sorted gold set) → run: phase 1 (full) or phase 2 (narrowed later).
    // A run is narrowed when the plan is targeted, its gold set is neither empty nor the
    // target's whole closure (those two derive the oracle), and the parser allows it.
    let mut runs: Vec<Run> = Vec::new();
    let mut targeted: Vec<TargetedRun> = Vec::new();
    let mut index: BTreeMap<(String, Vec<String>), String> = BTreeMap::new();
    let mut add = |runs: &mut Vec<Run>,
                   targeted: &mut Vec<TargetedRun>,
                   full_suite: &mut BTreeMap<String, String>,
                   r: &str,
                   gold: Vec<String>,
                   select: SelectWhat|
     -> String {
        let k = (r.to_string(), key(gold.clone()));
        if let Some(id) = index.get(&k) {
            return id.clone();
        }
        let Some(run) = prep.run(r, &gold, &[]) else {
            return String::new();
        };
        let id = run.id.clone();
        index.insert(k, id.clone());
        let derives_oracle = gold.is_empty() || key(gold.clone()) == key(closure_of(r));
        if selection == SelectionMode::Targeted && !derives_oracle {
            match narrow_why(r) {
                None => {
                    targeted.push(TargetedRun { run, select });
                    return id;
                }
                Some(why) => {
                    full_suite.insert(r.to_string(), why);
                }
            }
        }
        runs.push(run);
        id
    };

    let mut configurations = Vec::new();
    let mut uses_checks = Vec::new();
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
                    add(
                        &mut runs,
                        &mut targeted,
                        &mut full_suite,
                        r,
                        subset(&over, mask),
                        SelectWhat::F2p,
                    );
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
                    let run = add(
                        &mut runs,
                        &mut targeted,
                        &mut full_suite,
                        r,
                        decided_by,
                        SelectWhat::F2p,
                    );
                    checks.insert(r.clone(), TargetCheck { run, expected });
                }
                configurations.push(Configuration {
                    gold: key(gold),
                    expected: Verdict::of(mask == full),
                    targets: checks,
                });
            }
            // Two more runs per target whose closure leaves some target out: those at gold
            // with the closure at base, and every target at gold. Each is compared with the
            // run that has the same closure state and the others at base.
            for r in &targets {
                let c = closure_of(r);
                let others: Vec<String> =
                    targets.iter().filter(|t| !c.contains(t)).cloned().collect();
                if others.is_empty() {
                    continue;
                }
                let mut add = |gold: Vec<String>, select| {
                    add(&mut runs, &mut targeted, &mut full_suite, r, gold, select)
                };
                let base = add(Vec::new(), SelectWhat::F2p);
                let run = add(others.clone(), SelectWhat::NotP2p);
                uses_checks.push(UsesCheck {
                    target: r.clone(),
                    side: UsesSide::Base,
                    others: key(others.clone()),
                    run,
                    against: base,
                });
                let closure_gold = add(c.clone(), SelectWhat::F2p);
                let all = add(targets.clone(), SelectWhat::NotP2p);
                uses_checks.push(UsesCheck {
                    target: r.clone(),
                    side: UsesSide::Gold,
                    others: key(others),
                    run: all,
                    against: closure_gold,
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
                let b = add(
                    &mut runs,
                    &mut targeted,
                    &mut full_suite,
                    r,
                    Vec::new(),
                    SelectWhat::F2p,
                );
                let g = add(
                    &mut runs,
                    &mut targeted,
                    &mut full_suite,
                    r,
                    with,
                    SelectWhat::F2p,
                );
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
        uses_checks,
        selection,
        targeted,
        full_suite,
    };
    Ok(prep.finish(PlanBody::Verify { verify: plan }))
}
