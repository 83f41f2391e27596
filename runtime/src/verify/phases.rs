//! The phases of a targeted verification (`docs/plan.md`, "Phases").
//!
//! 1. The plan's `runs` — every target at base and with its closure at gold — run the full
//!    hidden-test command and fix each target's oracle.
//! 2. Then rounds ([`Targeting`]), each a batch of runs chosen from what is known so far:
//!    - a configuration expected to fail that a phase-1 cell already shows failing (another
//!      target at base, say) needs nothing more: its other cells are not run
//!      ([`Decision::NotRun`]);
//!    - otherwise one of its cells per round, the likeliest to fail first (its target's own
//!      gold patch left out, then the most of its closure at base), narrowed (by the
//!      compiler's pure [`narrow_run`]) to the target's F2P tests, stopping at the first
//!      failure; the first cell that shows a failure decides the configuration;
//!    - the `uses` checks, narrowed to everything but P2P, in the first round;
//!    - never more targeted runs than `--full` executes ([`Targeting::slack`]): a narrowed
//!      run that may end undecided, and so cost a full re-run, is chosen only while the
//!      cells decided configurations leave unrun pay for it, else its full suite runs;
//!    - a cell of a configuration expected to pass runs its full suite.
//!
//!    A narrowed run that cannot decide — every selected F2P test passed (only the full
//!    suite can tell), it is invalid, or a selected test is only missing where that proves
//!    nothing ([`shows_failure`]) — runs again in full, once no untried cell of its
//!    configuration is left. A selected test the configuration does not even collect (gold
//!    adds parametrize values) is not passing: the plugin says so and the run decides; so is a
//!    selected Go test nothing can have stopped ([`go_not_collected`]). The
//!    verdict is then exactly the full verification's.

use std::collections::{BTreeMap, BTreeSet};

use taskc_compiler::lower::{go_package, narrow_run};
use taskc_compiler::plan::{
    Configuration, Expect, Run, SelectHow, SelectWhat, TargetedRun, Verdict, VerifyPlan,
};

use super::merge_repetitions;
use super::oracle::{self, RepoOracle};
use crate::parsers::Outcome;
use crate::results::RunResult;

/// One narrowed run.
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

/// How a targeted run's cells are decided when not by its full suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// By a narrowed run that kept the selected tests.
    Narrowed(Selected),
    /// Not run: every configuration it is a cell of was decided by another cell (a cell
    /// that is not constrained alone, `any`).
    NotRun,
}

/// One run a round executes.
#[derive(Debug, Clone)]
pub enum Step<'p> {
    Narrowed(Box<Narrowed>),
    /// A targeted run's full suite.
    Full(&'p Run),
}

impl Step<'_> {
    pub fn run(&self) -> &Run {
        match self {
            Step::Narrowed(n) => &n.run,
            Step::Full(r) => r,
        }
    }
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
            // Selected tests the run shows its configuration does not have
            // ([`go_not_collected`]): missing from the full suite too.
            let absent = r.repos.get(target).map(|t| &t.not_collected);
            if sel.ids.iter().any(|id| {
                outcome(id).is_none() && absent.is_some_and(|a| a.binary_search(id).is_ok())
            }) {
                return true;
            }
            let foreign_failure = r.repos.get(target).is_some_and(|t| {
                t.tests
                    .iter()
                    .any(|(id, o)| !o.is_pass() && sel.ids.binary_search(id).is_err())
            });
            !(sel.fail_fast && foreign_failure)
        }
    }
}

/// Whether a narrowed run may end undecided for a reason other than an invalid run (which
/// `--full` would not show either): an F2P selection whose tests may all pass (only the
/// full suite can then tell), or whose missing tests may be no evidence (a `select`
/// template, a Go stop); a `uses` check under a template, whose missing tests may be there
/// in full. A `uses` check narrowed by taskc itself (pytest plugin, Go `-run`) always decides.
fn may_stay_undecided(n: &Narrowed) -> bool {
    match n.what {
        SelectWhat::F2p => true,
        SelectWhat::NotP2p => n
            .run
            .test
            .select
            .as_ref()
            .is_none_or(|s| matches!(s.how, SelectHow::Command { .. })),
    }
}

/// The selected ids a narrowed `go test -run` run shows its configuration does not have,
/// sorted: a selected test not reported where nothing can have stopped it — its package
/// failed as a whole (it did not build, or ended before running a test: the package's own
/// id is reported not passing), or no test failed at all (`-failfast` stops only after a
/// failure; `-run` runs every existing test it matches). The full suite builds the same
/// packages from the same files and would not report them either. A selected test missing
/// after some test failed may have been stopped: it is not counted here.
pub fn go_not_collected(ids: &[String], tests: &BTreeMap<String, Outcome>) -> Vec<String> {
    let failed = |id: &str| tests.get(id).is_some_and(|o| !o.is_pass());
    // The packages of the selected tests, whose own ids are reported when they fail whole.
    let packages: BTreeSet<&str> = ids.iter().filter_map(|id| go_package(id)).collect();
    let stop_possible = tests
        .iter()
        .any(|(id, o)| !o.is_pass() && !packages.contains(id.as_str()));
    let mut out: Vec<String> = ids
        .iter()
        .filter(|id| !tests.contains_key(*id))
        .filter(|id| !stop_possible || go_package(id).is_some_and(failed))
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Where a targeted run stands.
#[derive(Debug, Clone)]
enum Status {
    /// Not run yet.
    Pending,
    /// Its narrowed run decided its cells.
    Narrowed(Box<Narrowed>),
    /// Its narrowed run could not decide: only its full suite can.
    Undecided(Box<Narrowed>),
    /// Its full suite ran.
    Full,
}

/// The rounds after phase 1: which targeted runs to execute next, from every result so far
/// (module docs). `next` gives a round's runs, `record` takes their results, until `next`
/// is empty; `assemble` then gives what the verdict reads.
pub struct Targeting<'p> {
    plan: &'p VerifyPlan,
    first: BTreeMap<String, Vec<RunResult>>,
    merged: BTreeMap<String, RunResult>,
    oracles: BTreeMap<String, Option<(RepoOracle, Vec<String>)>>,
    status: BTreeMap<String, Status>,
    /// Narrowed results by narrowed run id.
    second: BTreeMap<String, Vec<RunResult>>,
    /// Full-suite results of targeted runs by their id.
    third: BTreeMap<String, Vec<RunResult>>,
    /// Targeted runs executed so far, narrowed or in full (each repetition set counts once).
    spent: usize,
}

/// What a cell shows so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Fails,
    Passes,
    /// Its run is invalid, or its target has no oracle: the configuration decides nothing.
    Undecidable,
    /// Not known yet.
    Open,
}

impl<'p> Targeting<'p> {
    /// After phase 1, whose results (repetitions per run id) are `first`.
    pub fn new(plan: &'p VerifyPlan, first: &BTreeMap<String, Vec<RunResult>>) -> Self {
        let (merged, _) = merge_repetitions(first);
        let oracles = plan
            .targets
            .iter()
            .map(|t| (t.clone(), oracle_of(plan, &merged, t)))
            .collect();
        let status = plan
            .targeted
            .iter()
            .map(|t| (t.run.id.clone(), Status::Pending))
            .collect();
        Targeting {
            plan,
            first: first.clone(),
            merged,
            oracles,
            status,
            second: BTreeMap::new(),
            third: BTreeMap::new(),
            spent: 0,
        }
    }

    fn targeted(&self, id: &str) -> Option<&'p TargetedRun> {
        self.plan.targeted.iter().find(|t| t.run.id == id)
    }

    /// What the cell of `target` decided by run `id` shows so far.
    fn shown(&self, target: &str, id: &str) -> Shown {
        let Some(Some((o, _))) = self.oracles.get(target) else {
            return Shown::Undecidable;
        };
        let full = |r: Option<RunResult>| match r {
            None => Shown::Open,
            Some(r) if !r.completed() => Shown::Undecidable,
            Some(r)
                if o.all()
                    .any(|t| !r.outcome(target, t).is_some_and(|x| x.is_pass())) =>
            {
                Shown::Fails
            }
            Some(_) => Shown::Passes,
        };
        let merged_of = |m: &BTreeMap<String, Vec<RunResult>>| {
            m.get(id)
                .map(|reps| merge_repetitions(&BTreeMap::from([(id.to_string(), reps.clone())])).0)
                .and_then(|mut m| m.remove(id))
        };
        match self.status.get(id) {
            None => full(self.merged.get(id).cloned()),
            Some(Status::Pending | Status::Undecided(_)) => Shown::Open,
            Some(Status::Full) => full(merged_of(&self.third)),
            Some(Status::Narrowed(n)) => match n.what {
                SelectWhat::F2p => Shown::Fails,
                SelectWhat::NotP2p => Shown::Open,
            },
        }
    }

    /// Whether `c`, expected to fail, is decided (a cell fails, or it decides nothing) or
    /// has nothing left to run.
    fn row_shown(&self, c: &Configuration) -> Shown {
        let cells: Vec<Shown> = c
            .targets
            .iter()
            .map(|(t, check)| self.shown(t, &check.run))
            .collect();
        if cells.contains(&Shown::Undecidable) {
            Shown::Undecidable
        } else if cells.contains(&Shown::Fails) {
            Shown::Fails
        } else if cells.contains(&Shown::Open) {
            Shown::Open
        } else {
            Shown::Passes
        }
    }

    /// The step that runs targeted run `id` next: narrowed when it was never run, narrowing
    /// keeps something and a failure decides (`!full_only`), else its full suite. `None`
    /// when it has no oracle or nothing is left to run.
    fn step(&self, id: &str, full_only: bool) -> Option<Step<'p>> {
        let t = self.targeted(id)?;
        let target = &t.run.under_test;
        let (o, reported) = self.oracles.get(target)?.as_ref()?;
        match self.status.get(id)? {
            Status::Pending if full_only => Some(Step::Full(&t.run)),
            Status::Pending => {
                let ids = ids_for(t.select, o, reported);
                let fail_fast = t.select == SelectWhat::F2p;
                match narrow_run(&t.run, target, &ids, fail_fast) {
                    Ok(run) if !ids.is_empty() => Some(Step::Narrowed(Box::new(Narrowed {
                        full: t.run.id.clone(),
                        target: target.clone(),
                        what: t.select,
                        run,
                    }))),
                    _ => Some(Step::Full(&t.run)),
                }
            }
            Status::Undecided(_) => Some(Step::Full(&t.run)),
            Status::Narrowed(_) | Status::Full => None,
        }
    }

    /// How likely the cell of `target` in `c` is to fail, lower first: its own gold patch
    /// left out, then the more of its closure at base.
    fn likelihood(&self, c: &Configuration, target: &str) -> (bool, usize) {
        let closure = self.plan.closures.get(target);
        let at_gold = closure.map_or(0, |cl| cl.iter().filter(|m| c.gold.contains(m)).count());
        (c.gold.iter().any(|g| g == target), at_gold)
    }

    /// Whether targeted run `id`, not run yet, may still have to run: it is a `uses` check
    /// against a valid run, a cell constrained alone or of a configuration expected to
    /// pass, or a cell of a configuration expected to fail that nothing has decided yet.
    /// Once false it stays false (a decided configuration stays decided).
    fn may_run(&self, id: &str) -> bool {
        let uses = self.plan.uses_checks.iter().any(|u| {
            u.run == id
                && self
                    .merged
                    .get(&u.against)
                    .is_some_and(RunResult::completed)
        });
        uses || self.plan.configurations.iter().any(|c| {
            c.targets.values().any(|check| {
                check.run == id
                    && (c.expected == Verdict::Pass
                        || check.expected != Expect::Any
                        || (c.expected == Verdict::Fail && self.row_shown(c) == Shown::Open))
            })
        })
    }

    /// How many more targeted runs may execute at most if every narrowed run from now on
    /// decides: one per run that may still run or whose narrowed run could not decide.
    fn owed(&self) -> usize {
        self.status
            .iter()
            .filter(|(id, st)| match st {
                Status::Pending => self.may_run(id),
                Status::Undecided(_) => true,
                Status::Narrowed(_) | Status::Full => false,
            })
            .count()
    }

    /// The narrowed runs the next round may still risk: `--full` runs every targeted run
    /// once, and a narrowed run that cannot decide costs a second run (its full suite), so
    /// a risky narrowed run is chosen only while the runs executed, the runs still owed and
    /// one more stay within `--full`'s count. The runs a decided configuration leaves
    /// unrun pay for them.
    fn slack(&self) -> usize {
        self.plan
            .targeted
            .len()
            .saturating_sub(self.spent + self.owed())
    }

    /// The runs of the next round; empty when every configuration is decided. Never more
    /// targeted runs in all than `--full` executes ([`Targeting::slack`]): a narrowed run
    /// that may fail to decide and finds no slack runs its full suite at once.
    pub fn next(&self) -> Vec<Step<'p>> {
        let mut chosen: BTreeSet<String> = BTreeSet::new();
        let mut steps = Vec::new();
        let slack = std::cell::Cell::new(self.slack());
        let take = |id: &str,
                    full_only: bool,
                    steps: &mut Vec<Step<'p>>,
                    chosen: &mut BTreeSet<String>| {
            if chosen.contains(id) {
                return true;
            }
            let step = match self.step(id, full_only) {
                Some(Step::Narrowed(n)) if may_stay_undecided(&n) => {
                    if slack.get() > 0 {
                        slack.set(slack.get() - 1);
                        Some(Step::Narrowed(n))
                    } else {
                        self.targeted(id).map(|t| Step::Full(&t.run))
                    }
                }
                other => other,
            };
            match step {
                Some(s) => {
                    chosen.insert(id.to_string());
                    steps.push(s);
                    true
                }
                None => false,
            }
        };
        for c in &self.plan.configurations {
            let targeted_cells: Vec<(&String, &taskc_compiler::plan::TargetCheck)> = c
                .targets
                .iter()
                .filter(|(_, check)| self.status.contains_key(&check.run))
                .collect();
            // Cells constrained alone, and every cell of a configuration expected to pass.
            for (_, check) in &targeted_cells {
                let pass = c.expected == Verdict::Pass || check.expected == Expect::Pass;
                if pass || check.expected == Expect::Fail {
                    take(&check.run, pass, &mut steps, &mut chosen);
                }
            }
            if c.expected != Verdict::Fail || self.row_shown(c) != Shown::Open {
                continue;
            }
            if targeted_cells.iter().any(|(_, k)| chosen.contains(&k.run)) {
                continue;
            }
            // One cell per round: untried cells (likeliest first), then full suites.
            let mut order: Vec<&(&String, &taskc_compiler::plan::TargetCheck)> =
                targeted_cells.iter().collect();
            order.sort_by_key(|(t, k)| {
                let untried = matches!(self.status.get(&k.run), Some(Status::Pending));
                (!untried, self.likelihood(c, t), (*t).clone())
            });
            for (_, k) in order {
                if take(&k.run, false, &mut steps, &mut chosen) {
                    break;
                }
            }
        }
        // The `uses` checks: always, against a valid run; after the configurations' cells,
        // which a narrowed run can decide and so have the first claim on the slack.
        for u in &self.plan.uses_checks {
            if self
                .merged
                .get(&u.against)
                .is_some_and(RunResult::completed)
            {
                take(&u.run, false, &mut steps, &mut chosen);
            }
        }
        steps
    }

    /// Take the results of a round's `steps` (repetitions per run id).
    pub fn record(&mut self, steps: &[Step<'p>], results: &BTreeMap<String, Vec<RunResult>>) {
        self.spent += steps.len();
        for s in steps {
            match s {
                Step::Narrowed(n) => {
                    if let Some(r) = results.get(&n.run.id) {
                        self.second.insert(n.run.id.clone(), r.clone());
                    }
                    let undecided = needs_full(n, &self.second);
                    let st = if undecided {
                        Status::Undecided(n.clone())
                    } else {
                        Status::Narrowed(n.clone())
                    };
                    self.status.insert(n.full.clone(), st);
                }
                Step::Full(run) => {
                    if let Some(r) = results.get(&run.id) {
                        self.third.insert(run.id.clone(), r.clone());
                    }
                    self.status.insert(run.id.clone(), Status::Full);
                }
            }
        }
    }

    /// The results the verdict reads, by the plan's run ids: phase 1 as it ran, each
    /// targeted run's full suite when it ran, else its narrowed run, else not run — with
    /// how each targeted run that did not run its full suite was decided.
    pub fn assemble(&self) -> (BTreeMap<String, Vec<RunResult>>, BTreeMap<String, Decision>) {
        let mut results = self.first.clone();
        let mut decisions = BTreeMap::new();
        for t in &self.plan.targeted {
            let id = &t.run.id;
            if let Some(r) = self.third.get(id) {
                results.insert(id.clone(), r.clone());
                continue;
            }
            match self.status.get(id) {
                Some(Status::Narrowed(n)) | Some(Status::Undecided(n)) => {
                    let ids = n
                        .run
                        .test
                        .select
                        .as_ref()
                        .map(|s| s.ids.clone())
                        .unwrap_or_default();
                    decisions.insert(
                        id.clone(),
                        Decision::Narrowed(Selected { what: n.what, ids }),
                    );
                    if let Some(r) = self.second.get(&n.run.id) {
                        results.insert(id.clone(), r.clone());
                    }
                }
                Some(Status::Pending) => {
                    // A target without an oracle: its cells decide nothing; otherwise its
                    // configurations were decided by other cells.
                    let has_oracle = self
                        .oracles
                        .get(&t.run.under_test)
                        .is_some_and(Option::is_some);
                    if has_oracle {
                        decisions.insert(id.clone(), Decision::NotRun);
                    }
                }
                Some(Status::Full) | None => {}
            }
        }
        (results, decisions)
    }

    /// Every narrowed run the rounds may execute (what `gc` keeps the results of).
    pub fn possible_narrowed(&self) -> Vec<Narrowed> {
        self.plan
            .targeted
            .iter()
            .filter_map(|t| match self.step(&t.run.id, false) {
                Some(Step::Narrowed(n)) => Some(*n),
                _ => None,
            })
            .collect()
    }

    /// Every narrowed and full-suite result of the rounds, by the id each ran under.
    pub fn executed(&self) -> impl Iterator<Item = (&String, &Vec<RunResult>)> {
        self.second.iter().chain(self.third.iter())
    }
}
