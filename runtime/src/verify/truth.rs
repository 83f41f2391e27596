//! The verification truth table: configurations (gold subsets) × target repositories, each
//! cell the decided run's pass/fail counts over the target's oracle, checked against what
//! the plan expects.

use std::collections::BTreeMap;

use serde::Serialize;
use taskc_compiler::plan::{Configuration, Expect, Verdict};

use super::oracle::RepoOracle;
use super::phases::Decision;
use crate::results::RunResult;

/// One target in one configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub run: String,
    /// Oracle tests (F2P + P2P) that passed in the run.
    pub passed: usize,
    /// Oracle tests that failed, errored, were skipped or are missing.
    pub failed: usize,
    /// Every oracle test passed (and the run was valid).
    pub pass: bool,
    pub expected: Expect,
    /// The cell meets its expectation (`any` always does).
    pub ok: bool,
    /// Set when the deciding run is invalid.
    pub invalid: Option<String>,
    /// What decided the cell.
    pub basis: Basis,
}

/// What decided a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Basis {
    /// The target's full suite.
    Full,
    /// A run narrowed to the target's F2P tests: `passed`/`failed` count those only (one
    /// failure shows the configuration fails).
    Narrowed {
        /// Selected F2P tests this configuration does not collect (counted as failed).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        not_collected: Vec<String>,
    },
    /// Not run: another cell of every configuration it belongs to already fails, and this
    /// one is not constrained alone (`any`).
    NotRun,
}

impl Basis {
    /// Decided by a narrowed run.
    pub fn is_narrowed(&self) -> bool {
        matches!(self, Basis::Narrowed { .. })
    }
}

/// One configuration of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    /// Targets with gold applied, sorted.
    pub gold: Vec<String>,
    pub cells: BTreeMap<String, Cell>,
    /// Every target passed.
    pub pass: bool,
    pub expected: Verdict,
    pub ok: bool,
}

/// The exit code of `repo`'s test command in `result` when it reported no test result at
/// all and exited non-zero (cargo could not fetch its crates or build the tests): the run
/// shows that nothing passed, not that an empty oracle passes vacuously.
pub fn ran_no_test(result: &RunResult, repo: &str) -> Option<i64> {
    let t = result.repos.get(repo)?;
    if !t.tests.is_empty() {
        return None;
    }
    t.exit_code.filter(|c| *c != 0)
}

/// Evaluate one configuration against the oracles and the (first) result of each run.
pub fn row(
    config: &Configuration,
    oracles: &BTreeMap<String, RepoOracle>,
    results: &BTreeMap<String, RunResult>,
    decisions: &BTreeMap<String, Decision>,
) -> Row {
    let mut cells = BTreeMap::new();
    for (repo, check) in &config.targets {
        let result = results.get(&check.run);
        let oracle = oracles.get(repo);
        let decision = decisions.get(&check.run);
        let targeted = matches!(decision, Some(Decision::Narrowed(_)));
        let (mut passed, mut failed) = (0, 0);
        let mut not_collected = Vec::new();
        if let (Some(result), Some(oracle)) = (result, oracle) {
            let counted: Vec<&String> = if targeted {
                oracle.f2p.iter().collect()
            } else {
                oracle.all().collect()
            };
            let absent = result.repos.get(repo).map(|t| &t.not_collected);
            for t in counted {
                if result.outcome(repo, t).is_some_and(|o| o.is_pass()) {
                    passed += 1;
                } else {
                    failed += 1;
                    if absent.is_some_and(|a| a.binary_search(t).is_ok()) {
                        not_collected.push(t.clone());
                    }
                }
            }
        }
        let basis = match decision {
            Some(Decision::Narrowed(_)) => Basis::Narrowed { not_collected },
            Some(Decision::NotRun) if result.is_none() => Basis::NotRun,
            _ => Basis::Full,
        };
        let invalid = match (result, &basis) {
            (None, Basis::NotRun) => None,
            (None, _) => Some("no result".to_string()),
            (Some(r), _) => r.failure_text(),
        };
        // A run that reported no test and failed (cargo could not fetch or build) passed
        // nothing, even over an empty oracle.
        let ran_nothing = result.is_some_and(|r| ran_no_test(r, repo).is_some());
        let pass = invalid.is_none() && failed == 0 && !ran_nothing;
        let ok = check.expected.met_by(pass);
        cells.insert(
            repo.clone(),
            Cell {
                run: check.run.clone(),
                passed,
                failed,
                pass,
                expected: check.expected,
                ok,
                invalid,
                basis,
            },
        );
    }
    let pass = cells.values().all(|c| c.pass);
    let ok = (config.expected == Verdict::of(pass)) && cells.values().all(|c| c.ok);
    Row {
        gold: config.gold.clone(),
        cells,
        pass,
        expected: config.expected,
        ok,
    }
}

/// The table as aligned plain text with ✓/✗ marks.
pub fn render(rows: &[Row], targets: &[String]) -> String {
    let label = |gold: &[String]| {
        if gold.is_empty() {
            "(base)".to_string()
        } else {
            gold.join(" + ")
        }
    };
    let first = rows
        .iter()
        .map(|r| label(&r.gold).chars().count())
        .chain(["gold applied".len()])
        .max()
        .unwrap_or(12);
    let cell_text = |c: Option<&Cell>| match c {
        None => "-".to_string(),
        Some(c) if c.invalid.is_some() => "invalid".to_string(),
        Some(Cell {
            basis: Basis::NotRun,
            ..
        }) => "not run".to_string(),
        Some(c) => format!(
            "{} {}/{}{}",
            if c.pass { "pass" } else { "fail" },
            c.passed,
            c.passed + c.failed,
            match &c.basis {
                Basis::Narrowed { not_collected } if !not_collected.is_empty() => {
                    format!(" F2P ({} not collected)", not_collected.len())
                }
                Basis::Narrowed { .. } => " F2P".to_string(),
                _ => String::new(),
            }
        ),
    };
    let widths: Vec<usize> = targets
        .iter()
        .map(|t| {
            rows.iter()
                .map(|r| cell_text(r.cells.get(t)).chars().count())
                .chain([t.chars().count()])
                .max()
                .unwrap_or(4)
        })
        .collect();
    let mut out = String::new();
    let mut line = format!("{:<first$}", "gold applied");
    for (t, w) in targets.iter().zip(&widths) {
        line.push_str(&format!("  {t:<w$}"));
    }
    line.push_str("  expected");
    out.push_str(line.trim_end());
    out.push('\n');
    for r in rows {
        let mut line = format!("{:<first$}", label(&r.gold));
        for (t, w) in targets.iter().zip(&widths) {
            line.push_str(&format!("  {:<w$}", cell_text(r.cells.get(t))));
        }
        line.push_str(&format!(
            "  {:<8}  {}",
            r.expected.as_str(),
            if r.ok { "✓" } else { "✗" }
        ));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The lines under the table that explain its marks (`F2P`, `not run`, `not collected`),
/// each only when some cell shows it.
pub fn legend(rows: &[Row]) -> String {
    let cells = || rows.iter().flat_map(|r| r.cells.values());
    let mut out = String::new();
    if cells().any(|c| c.basis.is_narrowed()) {
        out.push_str("(`F2P`: a proper subset ran only the target's F2P tests, stopping at the first failure; `--full` runs every test)\n");
    }
    if cells().any(|c| c.basis == Basis::NotRun) {
        out.push_str("(`not run`: another target already fails in that configuration, and this cell is not constrained alone; `--full` runs it)\n");
    }
    if cells()
        .any(|c| matches!(&c.basis, Basis::Narrowed { not_collected } if !not_collected.is_empty()))
    {
        out.push_str("(`not collected`: F2P tests that configuration does not have, e.g. parametrize values its missing gold patch adds; they count as failing)\n");
    }
    out
}
