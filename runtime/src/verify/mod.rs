//! Verification: from the results of a verification plan's runs, derive every target's
//! oracle (F2P, P2P), build the truth table, check `expect` assertions and flakiness, and
//! decide whether the task is sound.

pub mod gold_docs;
pub mod notes;
pub mod oracle;
pub mod phases;
pub mod truth;
pub mod uses;

use std::collections::BTreeMap;

use serde::Serialize;
use taskc_compiler::model::Expectations;
use taskc_compiler::plan::{Verdict, VerifyPlan, VerifyStrategy};

use crate::parsers::Outcome;
use crate::results::RunResult;
pub use oracle::RepoOracle;
pub use truth::{Basis, Cell, Row};

/// A test whose outcome changed between repetitions of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlakyTest {
    pub repo: String,
    pub test: String,
    pub run: String,
    /// How many repetitions passed, out of `runs`.
    pub passed: usize,
    pub runs: usize,
}

/// Everything `verify` concludes about one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub strategy: VerifyStrategy,
    pub targets: Vec<String>,
    pub oracles: BTreeMap<String, RepoOracle>,
    pub rows: Vec<Row>,
    pub flaky: Vec<FlakyTest>,
    /// Why the task is unsound; empty when sound.
    pub problems: Vec<String>,
    /// What a curator must know about the oracle even when the task is sound (`notes.rs`):
    /// every test F2P, doc-test ids that cannot be stable.
    pub notes: Vec<String>,
    /// Per target: the test tool's version its gold run's log printed, where known.
    pub tools: BTreeMap<String, String>,
}

impl Verification {
    pub fn is_sound(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Merge repetitions of each run: a test passes only if it passed every time; tests whose
/// outcome changed are reported as flaky.
pub fn merge_repetitions(
    results: &BTreeMap<String, Vec<RunResult>>,
) -> (BTreeMap<String, RunResult>, Vec<FlakyTest>) {
    let mut merged = BTreeMap::new();
    let mut flaky = Vec::new();
    for (run, reps) in results {
        let Some(first) = reps.first() else { continue };
        let mut m = first.clone();
        if let Some(bad) = reps.iter().find(|r| r.failure.is_some()) {
            m.failure = bad.failure.clone();
        }
        for (repo, tests) in m.repos.iter_mut() {
            for (test, outcome) in tests.tests.iter_mut() {
                let seen: Vec<Outcome> = reps
                    .iter()
                    .map(|r| r.outcome(repo, test).unwrap_or(Outcome::Error))
                    .collect();
                let passed = seen.iter().filter(|o| o.is_pass()).count();
                if passed != 0 && passed != seen.len() {
                    flaky.push(FlakyTest {
                        repo: repo.clone(),
                        test: test.clone(),
                        run: run.clone(),
                        passed,
                        runs: seen.len(),
                    });
                }
                *outcome = seen.into_iter().max().unwrap_or(*outcome);
            }
        }
        merged.insert(run.clone(), m);
    }
    (merged, flaky)
}

fn gold_label(gold: &[String]) -> String {
    match gold.len() {
        0 => "with no gold patch".to_string(),
        1 => format!("with only `{}` at gold", gold[0]),
        _ => format!(
            "with only {} at gold",
            gold.iter()
                .map(|g| format!("`{g}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    }
}

/// Why `run` is invalid, with where its full log is.
fn invalid_text(r: &RunResult) -> Option<String> {
    let why = r.failure_text()?;
    Some(match r.main_log() {
        Some(path) => format!("{why}\n    full log: {path}"),
        None => why.clone(),
    })
}

/// Decide the verification of `plan` from its run results (repetitions per run id), every
/// run having run the full suite.
pub fn evaluate(
    plan: &VerifyPlan,
    results: &BTreeMap<String, Vec<RunResult>>,
    expects: &BTreeMap<String, Expectations>,
) -> Verification {
    evaluate_targeted(plan, results, expects, &BTreeMap::new())
}

/// [`evaluate`], where the runs in `decisions` (by the plan's run id) were decided by
/// narrowed runs that kept only the selected tests, or not run (`phases`).
pub fn evaluate_targeted(
    plan: &VerifyPlan,
    results: &BTreeMap<String, Vec<RunResult>>,
    expects: &BTreeMap<String, Expectations>,
    decisions: &BTreeMap<String, phases::Decision>,
) -> Verification {
    evaluate_with_gold_docs(
        plan,
        results,
        expects,
        decisions,
        &gold_docs::GoldDocItems::new(),
    )
}

/// [`evaluate_targeted`], leaving out of each target's F2P the doc-tests of the items its
/// gold patch gives a doc example (`gold_docs`), with a note.
pub fn evaluate_with_gold_docs(
    plan: &VerifyPlan,
    results: &BTreeMap<String, Vec<RunResult>>,
    expects: &BTreeMap<String, Expectations>,
    decisions: &BTreeMap<String, phases::Decision>,
    gold_doc_items: &gold_docs::GoldDocItems,
) -> Verification {
    let (merged, flaky) = merge_repetitions(results);
    let mut problems = Vec::new();
    let base_cfg = plan.configurations.iter().find(|c| c.gold.is_empty());
    let full_cfg = plan
        .configurations
        .iter()
        .find(|c| c.gold.len() == plan.targets.len());

    // Every invalid run is reported once, with its reason and log; no other verdict is
    // derived from it.
    let mut reported_invalid = std::collections::BTreeSet::new();
    let mut report_invalid = |problems: &mut Vec<String>, what: &str, r: &RunResult| {
        if let Some(text) = invalid_text(r) {
            if reported_invalid.insert(r.run.clone()) {
                problems.push(format!("{what} {} is invalid: {text}", r.run));
            }
        }
    };

    let mut oracles = BTreeMap::new();
    let mut tools = BTreeMap::new();
    let mut notes = Vec::new();
    // Targets whose oracle could not be derived (a base or gold run is invalid).
    let mut undecided = std::collections::BTreeSet::new();
    for target in &plan.targets {
        let run_of = |cfg: Option<&taskc_compiler::plan::Configuration>| {
            cfg.and_then(|c| c.targets.get(target))
                .and_then(|t| merged.get(&t.run))
        };
        let (Some(base), Some(gold)) = (run_of(base_cfg), run_of(full_cfg)) else {
            problems.push(format!(
                "`{target}`: the plan has no base or gold run for it"
            ));
            undecided.insert(target.clone());
            continue;
        };
        for (what, r) in [("base", base), ("gold", gold)] {
            report_invalid(&mut problems, &format!("`{target}`: the {what} run"), r);
        }
        let valid = base.completed() && gold.completed();
        if !valid {
            undecided.insert(target.clone());
        }
        let drops: Vec<_> = plan
            .runs
            .iter()
            .find(|r| r.id == gold.run)
            .into_iter()
            .map(|r| &r.test)
            .filter(|t| &t.repo == target)
            .flat_map(|t| t.dropped.iter().cloned())
            .collect();
        let empty = BTreeMap::new();
        let at_base = tests_of(base, target).unwrap_or(&empty);
        let at_gold = tests_of(gold, target).unwrap_or(&empty);
        let mut o = oracle::derive(at_base, at_gold, &drops);
        if let Some(items) = gold_doc_items.get(target) {
            let left: Vec<String> = o
                .f2p
                .iter()
                .filter(|id| gold_docs::is_gold_doc_test(items, id))
                .cloned()
                .collect();
            if !left.is_empty() {
                o.f2p.retain(|id| !left.contains(id));
                notes.push(format!(
                    "`{target}`: left out of the oracle, the doc-tests of doc examples the gold patch adds: {}. They test the reference's documentation, not the task: a correct solution without these examples (or with others) is not graded unsolved for lacking them",
                    left.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        if valid {
            notes.extend(notes::target_notes(target, &o, at_base));
        }
        if let Some(t) = gold.repos.get(target) {
            o.skipped_unnamed = t.unnamed_skipped;
            if let Some(v) = &t.tool {
                tools.insert(target.clone(), v.clone());
            }
        }
        if valid {
            if o.f2p.is_empty() {
                problems.push(format!(
                    "`{target}` has no fail-to-pass test: no hidden test fails at base and passes with gold"
                ));
            }
            for t in &o.regressions {
                problems.push(format!(
                    "`{target}`: `{t}` passes at base but fails with the gold patch"
                ));
            }
            let reported: Vec<&str> = at_base
                .keys()
                .chain(at_gold.keys())
                .map(String::as_str)
                .collect();
            for d in &drops {
                if !reported.iter().any(|id| oracle::drop_matches(&d.test, id)) {
                    problems.push(format!(
                        "`{target}`: `drop \"{}\"` names a test no run reports; {}check the id against the test log (ids are `path::name`)",
                        d.test,
                        did_you_mean(&d.test, reported.iter().copied())
                    ));
                }
            }
            if let Some(e) = expects.get(target) {
                for (kind, list, want) in [
                    ("fail-to-pass", &e.f2p, &o.f2p),
                    ("pass-to-pass", &e.p2p, &o.p2p),
                ] {
                    for t in list {
                        if !want.contains(t) {
                            let dym = did_you_mean(t, reported.iter().copied());
                            let hint = if describe(&o, t) == NOT_REPORTED && !dym.is_empty() {
                                format!("; {}", dym.trim_end())
                            } else {
                                String::new()
                            };
                            problems.push(format!(
                                "`{target}`: expected {kind} `{t}` is {}{}",
                                describe(&o, t),
                                hint
                            ));
                        }
                    }
                }
            }
        }
        oracles.insert(target.clone(), o);
    }

    let rows: Vec<Row> = plan
        .configurations
        .iter()
        .map(|c| truth::row(c, &oracles, &merged, decisions))
        .collect();
    for row in rows.iter().filter(|r| !r.ok) {
        // A row with an invalid run, or over a target without an oracle, decides nothing.
        let mut undecidable = false;
        for (r, c) in &row.cells {
            if undecided.contains(r) {
                undecidable = true;
                continue;
            }
            if c.invalid.is_some() {
                undecidable = true;
                if let Some(res) = merged.get(&c.run) {
                    report_invalid(
                        &mut problems,
                        &format!("{}: the run", gold_label(&row.gold)),
                        res,
                    );
                } else {
                    problems.push(format!(
                        "{}: run {} has no result",
                        gold_label(&row.gold),
                        c.run
                    ));
                }
            }
        }
        if undecidable {
            continue;
        }
        if row.expected == Verdict::Fail && row.pass {
            let what = match plan.strategy {
                VerifyStrategy::Joint => "not jointly necessary",
                VerifyStrategy::PerRepo => "the hidden tests do not fail at base",
            };
            problems.push(format!(
                "{what}: {}, every F2P and P2P test passes",
                gold_label(&row.gold)
            ));
        } else if row.expected == Verdict::Pass {
            let failing: Vec<String> = row
                .cells
                .iter()
                .filter(|(_, c)| !c.pass)
                .map(|(r, c)| {
                    let res = merged.get(&c.run);
                    match res.and_then(|res| truth::ran_no_test(res, r)) {
                        Some(code) => format!(
                            "`{r}` reported no test result (its test command exited {code}{})",
                            res.and_then(|res| res.logs.get(r))
                                .map(|l| format!("; full log: {l}"))
                                .unwrap_or_default()
                        ),
                        None => {
                            format!("`{r}` fails {} of {} tests", c.failed, c.passed + c.failed)
                        }
                    }
                })
                .collect();
            if !failing.is_empty() {
                problems.push(format!(
                    "the full set of gold patches does not pass: {}",
                    failing.join(", ")
                ));
            }
        } else {
            for (r, c) in row.cells.iter().filter(|(_, c)| !c.ok) {
                problems.push(format!(
                    "{}: `{r}` was expected to {} but did not",
                    gold_label(&row.gold),
                    c.expected
                ));
            }
        }
    }
    // A missing `uses` explains the other problems: it goes first.
    let uses_problems = uses::check(plan, &merged, &oracles, decisions, &mut |what, r| {
        invalid_text(r).map(|t| format!("{what}: the run {} is invalid: {t}", r.run))
    });
    problems.splice(0..0, uses_problems);
    for f in &flaky {
        let in_oracle = oracles
            .get(&f.repo)
            .is_some_and(|o| o.all().any(|t| t == &f.test));
        if in_oracle {
            problems.push(format!(
                "`{}`: `{}` is flaky: passed {} of {} repetitions of {}",
                f.repo, f.test, f.passed, f.runs, f.run
            ));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    problems.retain(|p| seen.insert(p.clone()));
    Verification {
        strategy: plan.strategy,
        targets: plan.targets.clone(),
        oracles,
        rows,
        flaky,
        problems,
        notes,
        tools,
    }
}

/// `did you mean `x`? ` (with a trailing space) over the reported ids, or nothing.
fn did_you_mean<'a>(id: &str, reported: impl Iterator<Item = &'a str>) -> String {
    let ids: Vec<&str> = reported.collect();
    taskc_compiler::check::suggest::did_you_mean(id, ids)
}

const NOT_REPORTED: &str = "not reported by the test run";

fn tests_of<'a>(r: &'a RunResult, repo: &str) -> Option<&'a BTreeMap<String, Outcome>> {
    r.repos.get(repo).map(|t| &t.tests)
}

fn describe(o: &RepoOracle, t: &str) -> &'static str {
    if o.p2p.iter().any(|x| x == t) {
        "pass-to-pass (it already passes at base)"
    } else if o.f2p.iter().any(|x| x == t) {
        "fail-to-pass"
    } else if o.regressions.iter().any(|x| x == t) {
        "a regression (passes at base, fails with gold)"
    } else if o.failing_at_gold.iter().any(|x| x == t) {
        "failing with the gold patch"
    } else if o.dropped.iter().any(|d| oracle::drop_matches(&d.test, t)) {
        "dropped by a relaxation"
    } else {
        NOT_REPORTED
    }
}
