//! Early start of targeted runs (issue 22): the targeted runs whose configuration is known
//! from the plan alone and which a sound task runs whatever phase 1 shows are executed with
//! phase 1, as their full suite, instead of waiting for the oracle to narrow them.
//!
//! Targeted verification waits for phase 1 (every target at base and with its closure at
//! gold) before it knows which tests to narrow a proper subset's run to. That barrier costs
//! a round of runs: on two job slots, the pypa task's 4 phase-1 runs are two waves, and its
//! 3 further runs two more, although all 3 run in every outcome of phase 1 that leaves the
//! task sound. Where a run's cost is its sandbox (container, patches, canaries, the test
//! tool's start) rather than its tests, running such a run in full at once costs no more
//! than its narrowed run later, and it removes the round.
//!
//! What phase 1 shows is predicted from the plan's shape: a cell decided by a target's
//! closure-gold run passes (its oracle is what that run passed), one decided by its base
//! run fails (a target with F2P tests fails at base). The runs started early:
//! - every `uses` check whose comparison run is a phase-1 run (always run, [`Targeting`]);
//! - every cell constrained alone (`expect` pass/fail) and every cell of a configuration
//!   expected to pass (always run);
//! - in a configuration expected to fail whose phase-1 cells are all closure-gold runs (so
//!   none of them fails), the cell [`Targeting`] tries first (its target's own gold patch
//!   left out, then the most of its closure at base): round 1 always runs it.
//!
//! Soundness: a run started early is the same full-suite run `--full` executes for that
//! cell, and [`Targeting`] takes it as the cell's full suite (never narrowed, never run
//! again), so the verdict is `--full`'s for those cells, and the count of runs stays within
//! `--full`'s ([`Targeting::slack`] counts them as spent). A prediction that phase 1 proves
//! wrong (a target without F2P tests, an invalid run) costs at most runs `--full` would
//! execute as well.
//!
//! [`Targeting`]: super::phases::Targeting
//! [`Targeting::slack`]: super::phases::Targeting

use std::collections::BTreeSet;

use taskc_compiler::plan::{Expect, Run, SelectionMode, TargetedRun, Verdict, VerifyPlan};

use super::phases::{base_and_gold, likelihood};

/// The targeted runs to execute with phase 1, in full (module docs), in plan order: the
/// configurations' cells, then the `uses` checks. Empty for a plan that is not targeted.
pub fn prestart(plan: &VerifyPlan) -> Vec<&Run> {
    if plan.selection != SelectionMode::Targeted || plan.targeted.is_empty() {
        return Vec::new();
    }
    fn find<'a>(plan: &'a VerifyPlan, id: &str) -> Option<&'a TargetedRun> {
        plan.targeted.iter().find(|t| t.run.id == id)
    }
    let phase_one: BTreeSet<&str> = plan.runs.iter().map(|r| r.id.as_str()).collect();
    let mut chosen: BTreeSet<&str> = BTreeSet::new();
    let mut out: Vec<&Run> = Vec::new();
    fn take<'a>(
        plan: &'a VerifyPlan,
        id: &str,
        chosen: &mut BTreeSet<&'a str>,
        out: &mut Vec<&'a Run>,
    ) {
        if let Some(t) = find(plan, id) {
            if chosen.insert(t.run.id.as_str()) {
                out.push(&t.run);
            }
        }
    }
    for c in &plan.configurations {
        let cells: Vec<(&String, &taskc_compiler::plan::TargetCheck)> = c
            .targets
            .iter()
            .filter(|(_, k)| find(plan, &k.run).is_some())
            .collect();
        for (_, k) in &cells {
            if c.expected == Verdict::Pass || k.expected != Expect::Any {
                take(plan, &k.run, &mut chosen, &mut out);
            }
        }
        if c.expected != Verdict::Fail || cells.iter().any(|(_, k)| chosen.contains(k.run.as_str()))
        {
            continue;
        }
        // Every phase-1 cell must be its target's closure-gold run: then nothing phase 1
        // shows decides the configuration, and round 1 runs its likeliest cell.
        let open = c.targets.iter().all(|(t, k)| {
            find(plan, &k.run).is_some()
                || (phase_one.contains(k.run.as_str())
                    && base_and_gold(plan, t).is_some_and(|(_, g)| g == k.run))
        });
        if !open {
            continue;
        }
        if let Some((_, k)) = cells
            .iter()
            .min_by_key(|(t, _)| (likelihood(plan, c, t), (*t).clone()))
        {
            take(plan, &k.run, &mut chosen, &mut out);
        }
    }
    for u in &plan.uses_checks {
        if phase_one.contains(u.against.as_str()) {
            take(plan, &u.run, &mut chosen, &mut out);
        }
    }
    out
}
