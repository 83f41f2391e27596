//! Verification: from the results of a verification plan's runs, derive every target's
//! oracle (F2P, P2P), build the truth table, check `expect` assertions and flakiness, and
//! decide whether the task is sound.

pub mod oracle;
pub mod truth;

use std::collections::BTreeMap;

use serde::Serialize;
use taskc_compiler::model::Expectations;
use taskc_compiler::plan::{Verdict, VerifyPlan, VerifyStrategy};

use crate::parsers::Outcome;
use crate::results::RunResult;
pub use oracle::RepoOracle;
pub use truth::{Cell, Row};

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

/// Decide the verification of `plan` from its run results (repetitions per run id).
pub fn evaluate(
    plan: &VerifyPlan,
    results: &BTreeMap<String, Vec<RunResult>>,
    expects: &BTreeMap<String, Expectations>,
) -> Verification {
    let (merged, flaky) = merge_repetitions(results);
    let mut problems = Vec::new();
    let base_cfg = plan.configurations.iter().find(|c| c.gold.is_empty());
    let full_cfg = plan
        .configurations
        .iter()
        .find(|c| c.gold.len() == plan.targets.len());

    let mut oracles = BTreeMap::new();
    for target in &plan.targets {
        let run_of = |cfg: Option<&taskc_compiler::plan::Configuration>| {
            cfg.and_then(|c| c.targets.get(target))
                .and_then(|t| merged.get(&t.run))
        };
        let (Some(base), Some(gold)) = (run_of(base_cfg), run_of(full_cfg)) else {
            problems.push(format!(
                "`{target}`: the plan has no base or gold run for it"
            ));
            continue;
        };
        for (what, r) in [("base", base), ("gold", gold)] {
            if let Some(why) = &r.failure_text() {
                problems.push(format!(
                    "`{target}`: the {what} run {} is invalid: {why}",
                    r.run
                ));
            }
        }
        let drops: Vec<_> = plan
            .runs
            .iter()
            .find(|r| r.id == gold.run)
            .into_iter()
            .flat_map(|r| r.tests.iter())
            .filter(|t| &t.repo == target)
            .flat_map(|t| t.dropped.iter().cloned())
            .collect();
        let empty = BTreeMap::new();
        let o = oracle::derive(
            tests_of(base, target).unwrap_or(&empty),
            tests_of(gold, target).unwrap_or(&empty),
            &drops,
        );
        if base.completed() && gold.completed() {
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
        }
        if let Some(e) = expects.get(target) {
            for t in &e.f2p {
                if !o.f2p.contains(t) {
                    problems.push(format!(
                        "`{target}`: expected fail-to-pass `{t}` is {}",
                        describe(&o, t)
                    ));
                }
            }
            for t in &e.p2p {
                if !o.p2p.contains(t) {
                    problems.push(format!(
                        "`{target}`: expected pass-to-pass `{t}` is {}",
                        describe(&o, t)
                    ));
                }
            }
        }
        oracles.insert(target.clone(), o);
    }

    let rows: Vec<Row> = plan
        .configurations
        .iter()
        .map(|c| truth::row(c, &oracles, &merged))
        .collect();
    for row in rows.iter().filter(|r| !r.ok) {
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
                .map(|(r, c)| match &c.invalid {
                    Some(why) => format!("`{r}` is invalid ({why})"),
                    None => format!("`{r}` fails {} of {} tests", c.failed, c.passed + c.failed),
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
    problems.dedup();
    Verification {
        strategy: plan.strategy,
        targets: plan.targets.clone(),
        oracles,
        rows,
        flaky,
        problems,
    }
}

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
        "not reported by the test run"
    }
}
