//! The phases of a targeted verification (`docs/plan.md`, "Phases").
//!
//! 1. The plan's `runs` — every target at base and with its closure at gold — run the full
//!    hidden-test command and fix each target's oracle.
//! 2. Each `targeted` run is narrowed (by the compiler's pure [`narrow_run`]) to the tests
//!    the oracle names: F2P for proper subsets (stopping at the first failure), everything
//!    but P2P for the `uses` checks. Its id hashes the selection, so it caches like any run.
//! 3. A narrowed run that cannot decide — every selected F2P test passed (the subset may
//!    pass: only the full suite can tell), it is invalid (e.g. the selection did not take
//!    effect), or a selected test is only missing where that proves nothing
//!    ([`shows_failure`]) — is run again in full. The verdict is then exactly the full verification's.

use std::collections::BTreeMap;

use taskc_compiler::lower::narrow_run;
use taskc_compiler::plan::{Run, SelectHow, SelectWhat, TargetedRun, VerifyPlan};

use super::merge_repetitions;
use super::oracle::{self, RepoOracle};
use crate::results::RunResult;

/// One narrowed run of phase 2.
#[derive(Debug, Clone)]
pub struct Narrowed {
    /// Id of the full-suite run it narrows (what the plan's configurations name).
    pub full: String,
    pub target: String,
    pub what: SelectWhat,
    pub run: Run,
}

/// What a configuration cell decided by a narrowed run counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    pub what: SelectWhat,
    /// The tests the run kept.
    pub ids: Vec<String>,
}

/// The base and gold run ids of `target` (the all-base and all-gold configurations).
pub fn base_and_gold<'p>(plan: &'p VerifyPlan, target: &str) -> Option<(&'p str, &'p str)> {
    let n = plan.targets.len();
    let run_in = |want: usize| {
        plan.configurations
            .iter()
            .find(|c| c.gold.len() == want)
            .and_then(|c| c.targets.get(target))
            .map(|t| t.run.as_str())
    };
    Some((run_in(0)?, run_in(n)?))
}

/// The oracle of `target` from merged phase-1 results, when both its runs are valid.
pub fn oracle_of(
    plan: &VerifyPlan,
    merged: &BTreeMap<String, RunResult>,
    target: &str,
) -> Option<(RepoOracle, Vec<String>)> {
    let (b, g) = base_and_gold(plan, target)?;
    let (base, gold) = (merged.get(b)?, merged.get(g)?);
    if !base.completed() || !gold.completed() {
        return None;
    }
    let drops: Vec<_> = plan
        .runs
        .iter()
        .find(|r| r.id == g)
        .into_iter()
        .map(|r| &r.test)
        .filter(|t| t.repo == target)
        .flat_map(|t| t.dropped.iter().cloned())
        .collect();
    let empty = BTreeMap::new();
    let tb = base.repos.get(target).map_or(&empty, |t| &t.tests);
    let tg = gold.repos.get(target).map_or(&empty, |t| &t.tests);
    let o = oracle::derive(tb, tg, &drops);
    let mut reported: Vec<String> = tb.keys().chain(tg.keys()).cloned().collect();
    reported.sort();
    reported.dedup();
    Some((o, reported))
}

/// The tests a targeted run keeps.
fn ids_for(what: SelectWhat, o: &RepoOracle, reported: &[String]) -> Vec<String> {
    match what {
        SelectWhat::F2p => o.f2p.clone(),
        SelectWhat::NotP2p => reported
            .iter()
            .filter(|id| !o.p2p.contains(id))
            .filter(|id| !o.dropped.iter().any(|d| oracle::drop_matches(&d.test, id)))
            .cloned()
            .collect(),
    }
}

/// Phase 2: the narrowed runs, from the phase-1 results. A targeted run whose target has no
/// oracle (an invalid base or gold run) or selects nothing is left out: its cells have no
/// result and decide nothing.
pub fn phase_two(plan: &VerifyPlan, results: &BTreeMap<String, Vec<RunResult>>) -> Vec<Narrowed> {
    let (merged, _) = merge_repetitions(results);
    let mut oracles: BTreeMap<&str, Option<(RepoOracle, Vec<String>)>> = BTreeMap::new();
    let mut out = Vec::new();
    for TargetedRun { run, select } in &plan.targeted {
        let target = &run.under_test;
        let entry = oracles
            .entry(target.as_str())
            .or_insert_with(|| oracle_of(plan, &merged, target));
        let Some((o, reported)) = entry else { continue };
        let ids = ids_for(*select, o, reported);
        if ids.is_empty() {
            continue;
        }
        let fail_fast = *select == SelectWhat::F2p;
        if let Ok(narrowed) = narrow_run(run, target, &ids, fail_fast) {
            out.push(Narrowed {
                full: run.id.clone(),
                target: target.clone(),
                what: *select,
                run: narrowed,
            });
        }
    }
    out
}

/// Whether a narrowed run's result cannot decide its cells, so phase 3 runs it in full.
pub fn needs_full(n: &Narrowed, results: &BTreeMap<String, Vec<RunResult>>) -> bool {
    let Some(reps) = results.get(&n.run.id) else {
        return true;
    };
    if reps.iter().any(|r| !r.completed()) {
        return true;
    }
    match n.what {
        // The `uses` checks compare outcomes, "missing" included: a test a template's
        // command did not report may be there in full.
        SelectWhat::NotP2p => n.run.test.select.as_ref().is_some_and(|sel| {
            matches!(sel.how, SelectHow::Command { .. })
                && reps
                    .iter()
                    .any(|r| sel.ids.iter().any(|id| r.outcome(&n.target, id).is_none()))
        }),
        SelectWhat::F2p => match &n.run.test.select {
            Some(sel) => !reps.iter().any(|r| shows_failure(r, &n.target, sel)),
            None => true,
        },
    }
}

/// Whether a narrowed F2P run shows that its configuration fails exactly as the full suite
/// would: a selected test reported failing (errored, skipped), or a selected test missing
/// where the narrowing vouches that it would be missing from the full suite too.
///
/// A missing test is no evidence (i) under a `select` template, which taskc cannot vouch
/// for; (ii) when the run stops at the first failure and a test outside the selection
/// failed (Go runs a selected test's parent and same-named tests of other packages): the
/// stop may have kept a selected test from running. taskc's pytest plugin keeps only
/// selected tests, never stops on another, and makes the run invalid when a selected id
/// matches no collected test outside a file that failed to collect.
pub fn shows_failure(
    r: &RunResult,
    target: &str,
    sel: &taskc_compiler::plan::TestSelection,
) -> bool {
    let outcome = |id: &String| r.outcome(target, id);
    if sel
        .ids
        .iter()
        .any(|id| outcome(id).is_some_and(|o| !o.is_pass()))
    {
        return true;
    }
    if !sel.ids.iter().any(|id| outcome(id).is_none()) {
        return false;
    }
    match sel.how {
        SelectHow::Command { .. } => false,
        SelectHow::PytestPlugin => true,
        SelectHow::GoRun { .. } => {
            let foreign_failure = r.repos.get(target).is_some_and(|t| {
                t.tests
                    .iter()
                    .any(|(id, o)| !o.is_pass() && sel.ids.binary_search(id).is_err())
            });
            !(sel.fail_fast && foreign_failure)
        }
    }
}

/// The full-suite runs phase 3 executes: those of the narrowed runs that cannot decide, and
/// those of targeted runs that selected nothing although their target has an oracle (no F2P
/// test, say: the full suite gives the cell exactly what a full verification gives it).
pub fn phase_three<'p>(
    plan: &'p VerifyPlan,
    first: &BTreeMap<String, Vec<RunResult>>,
    narrowed: &[Narrowed],
    second: &BTreeMap<String, Vec<RunResult>>,
) -> Vec<&'p Run> {
    let (merged, _) = merge_repetitions(first);
    plan.targeted
        .iter()
        .filter(|t| match narrowed.iter().find(|n| n.full == t.run.id) {
            Some(n) => needs_full(n, second),
            None => oracle_of(plan, &merged, &t.run.under_test).is_some(),
        })
        .map(|t| &t.run)
        .collect()
}

/// The results the verdict reads, by the plan's run ids: phase 1 as it ran, each targeted
/// run's result from phase 3 when it ran in full, else from its narrowed run (listed in the
/// returned selections).
pub fn assemble(
    first: &BTreeMap<String, Vec<RunResult>>,
    narrowed: &[Narrowed],
    second: &BTreeMap<String, Vec<RunResult>>,
    third: &BTreeMap<String, Vec<RunResult>>,
) -> (BTreeMap<String, Vec<RunResult>>, BTreeMap<String, Selected>) {
    let mut results = first.clone();
    let mut selected = BTreeMap::new();
    for (id, r) in third {
        results.insert(id.clone(), r.clone());
    }
    for n in narrowed {
        let from = match third.get(&n.full) {
            Some(full) => Some(full),
            None => {
                let ids = n
                    .run
                    .test
                    .select
                    .as_ref()
                    .map(|s| s.ids.clone())
                    .unwrap_or_default();
                selected.insert(n.full.clone(), Selected { what: n.what, ids });
                second.get(&n.run.id)
            }
        };
        if let Some(r) = from {
            results.insert(n.full.clone(), r.clone());
        }
    }
    (results, selected)
}
