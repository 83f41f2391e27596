//! Checking the `uses` declarations of a joint verification: a target's results may depend
//! only on the gold patches of its closure. Per target whose closure leaves targets out, two
//! runs put those at gold — once with the closure at base (compared with the all-base run),
//! once with the closure at gold (compared with the closure-gold run the oracle comes from).
//! A difference means a `uses` is missing (`docs/language.md`, "uses").

use std::collections::{BTreeMap, BTreeSet};

use taskc_compiler::plan::{UsesCheck, UsesSide, VerifyPlan};

use super::oracle::{drop_matches, RepoOracle};
use super::phases::{Decision, Selected};
use crate::parsers::Outcome;
use crate::results::RunResult;

/// How many differing tests a problem names.
const SHOWN: usize = 3;

/// Tests of `repo` whose outcome differs between `a` and `b` (absent counts as an outcome),
/// skipping dropped ones.
fn differing(
    a: &RunResult,
    b: &RunResult,
    repo: &str,
    oracle: Option<&RepoOracle>,
    only: Option<&Selected>,
) -> Vec<String> {
    let empty = BTreeMap::new();
    let ta = a.repos.get(repo).map_or(&empty, |t| &t.tests);
    let tb = b.repos.get(repo).map_or(&empty, |t| &t.tests);
    let ids: BTreeSet<&String> = ta.keys().chain(tb.keys()).collect();
    ids.into_iter()
        .filter(|id| !oracle.is_some_and(|o| o.dropped.iter().any(|d| drop_matches(&d.test, id))))
        .filter(|id| only.is_none_or(|s| s.ids.contains(id)))
        .filter(|id| ta.get(*id) != tb.get(*id))
        .cloned()
        .collect()
}

fn outcome_word(o: Option<&Outcome>) -> &'static str {
    match o {
        None => "missing",
        Some(Outcome::Passed) => "passed",
        Some(Outcome::Failed) => "failed",
        Some(Outcome::Error) => "errored",
        Some(Outcome::Skipped) => "skipped",
    }
}

fn names(v: &[String]) -> String {
    v.iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The problems the `uses` checks of `plan` find. `invalid` turns an invalid run into its
/// problem text.
pub fn check(
    plan: &VerifyPlan,
    merged: &BTreeMap<String, RunResult>,
    oracles: &BTreeMap<String, RepoOracle>,
    decisions: &BTreeMap<String, Decision>,
    invalid: &mut dyn FnMut(&str, &RunResult) -> Option<String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for c in &plan.uses_checks {
        // An invalid or missing run to compare against is reported with the oracle.
        let Some(base) = merged.get(&c.against).filter(|b| b.completed()) else {
            continue;
        };
        let Some(run) = merged.get(&c.run) else {
            if oracles.contains_key(&c.target) {
                problems.push(format!(
                    "`{}`: the `uses` check has no result (run {})",
                    c.target, c.run
                ));
            }
            continue;
        };
        if let Some(p) = invalid(&format!("`{}`'s `uses` check", c.target), run) {
            problems.push(p);
            continue;
        }
        let diff = differing(
            base,
            run,
            &c.target,
            oracles.get(&c.target),
            match decisions.get(&c.run) {
                Some(Decision::Narrowed(s)) => Some::<&Selected>(s),
                _ => None,
            },
        );
        if diff.is_empty() {
            continue;
        }
        problems.push(message(plan, merged, c, base, run, &diff, oracles));
    }
    problems
}

fn message(
    plan: &VerifyPlan,
    merged: &BTreeMap<String, RunResult>,
    c: &UsesCheck,
    base: &RunResult,
    run: &RunResult,
    diff: &[String],
    oracles: &BTreeMap<String, RepoOracle>,
) -> String {
    let r = &c.target;
    let closure = plan
        .closures
        .get(r)
        .map(|v| names(v))
        .unwrap_or_else(|| format!("`{r}`"));
    let (then, now) = match c.side {
        UsesSide::Base => (
            "at base".to_string(),
            format!("with {} at gold", names(&c.others)),
        ),
        UsesSide::Gold => (
            format!("with only {closure} at gold"),
            "with every gold patch".to_string(),
        ),
    };
    let examples: Vec<String> = diff
        .iter()
        .take(SHOWN)
        .map(|t| {
            format!(
                "`{t}` {} {then}, {} {now}",
                outcome_word(base.outcome(r, t).as_ref()),
                outcome_word(run.outcome(r, t).as_ref()),
            )
        })
        .collect();
    let more = if diff.len() > SHOWN {
        format!(" and {} more", diff.len() - SHOWN)
    } else {
        String::new()
    };
    let detail = format!("{}{more}", examples.join("; "));
    // Name the culprit precisely when there is one candidate, or when the plan has a run of
    // `r` with each candidate alone at gold (exhaustive plans do).
    let culprits: Option<Vec<String>> = if c.others.len() == 1 {
        Some(c.others.clone())
    } else if c.side == UsesSide::Gold {
        None
    } else {
        let alone: Option<Vec<(String, &RunResult)>> = c
            .others
            .iter()
            .map(|x| {
                plan.configurations
                    .iter()
                    .find(|cfg| cfg.gold.len() == 1 && &cfg.gold[0] == x)
                    .and_then(|cfg| cfg.targets.get(r))
                    .filter(|t| t.run != c.against)
                    .and_then(|t| merged.get(&t.run))
                    .filter(|res| res.completed())
                    .map(|res| (x.clone(), res))
            })
            .collect();
        alone
            .map(|v| {
                v.into_iter()
                    .filter(|(_, res)| !differing(base, res, r, oracles.get(r), None).is_empty())
                    .map(|(x, _)| x)
                    .collect::<Vec<String>>()
            })
            .filter(|v| !v.is_empty())
    };
    match culprits {
        Some(xs) if xs.len() == 1 => format!(
            "`{r}`'s tests change with `{x}`'s gold patch: add `uses {x}` to `repo {r}` ({detail})",
            x = xs[0]
        ),
        Some(xs) => format!(
            "`{r}`'s tests change with the gold patches of {}: add `uses {}` to `repo {r}` ({detail})",
            names(&xs),
            xs.join(" ")
        ),
        None => format!(
            "`{r}`'s tests change with the gold patches of {}: `{r}` uses at least one of them; add a `uses` for each it depends on (`taskc verify --exhaustive` tells which) ({detail})",
            names(&c.others)
        ),
    }
}
