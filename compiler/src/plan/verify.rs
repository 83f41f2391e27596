//! The verification plan: which runs decide which gold-subset configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::run::Run;
pub use crate::model::VerifyStrategy;
use crate::words::words;

/// Runs plus the configurations they decide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyPlan {
    pub strategy: VerifyStrategy,
    /// `true`: every target × every subset is run, to check the `uses` declarations.
    pub exhaustive: bool,
    /// Target names, in declaration order.
    pub targets: Vec<String>,
    /// Per target: itself and every target it transitively uses, sorted.
    pub closures: BTreeMap<String, Vec<String>>,
    pub runs: Vec<Run>,
    pub configurations: Vec<Configuration>,
    /// Joint only: per target whose closure is not every target, the run that checks its
    /// `uses` declarations (`docs/plan.md`). Empty for per-repo verification.
    #[serde(default)]
    pub uses_checks: Vec<UsesCheck>,
    /// Whether proper subsets run only the target's F2P tests (`targeted`, the default) or
    /// the full suite (`full`: `--full`, and `--exhaustive`).
    #[serde(default)]
    pub selection: SelectionMode,
    /// Phase 2: runs that are narrowed to some of their target's tests once the base and
    /// gold results (phase 1, `runs`) have fixed the oracle. Each holds the full-suite run
    /// it narrows; configurations and `uses` checks name that run's id.
    #[serde(default)]
    pub targeted: Vec<TargetedRun>,
    /// Targets whose proper subsets run the full suite although the plan is targeted,
    /// with why (their parser's command cannot be narrowed); shown under the truth table.
    #[serde(default)]
    pub full_suite: BTreeMap<String, String>,
}

/// How proper subsets of gold patches are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectionMode {
    /// Only the target's F2P tests, stopping at the first failure.
    #[default]
    Targeted,
    /// The full hidden-test command.
    Full,
}

/// A run of phase 2: the full-suite run and which of its target's tests it keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetedRun {
    /// The full-suite run (also what phase 3 executes when the narrowed run cannot decide).
    pub run: Run,
    pub select: SelectWhat,
}

/// Which tests a phase-2 run keeps, as the base and gold results define them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectWhat {
    /// The target's F2P tests, stopping at the first failure: one failing F2P test shows
    /// that a proper subset fails.
    F2p,
    /// Every test the base and gold runs reported but the P2P ones (F2P, failing, skipped,
    /// regressions): what a missing `uses` changes, for the `uses` checks.
    NotP2p,
}

/// One cheap check of a target's `uses` declarations: flipping the targets outside its
/// closure to gold must not change what its tests report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsesCheck {
    pub target: String,
    /// Which pair of runs is compared.
    pub side: UsesSide,
    /// The targets outside the closure, which get gold in `run`; sorted.
    pub others: Vec<String>,
    /// The run with `others` at gold (and the closure as `side` says).
    pub run: String,
    /// The run with every target outside the closure at base, to compare with.
    pub against: String,
}

/// The closure's state in both runs of a [`UsesCheck`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UsesSide {
    /// Closure at base: `others` at gold vs every target at base.
    Base,
    /// Closure at gold: every target at gold vs only the closure at gold.
    Gold,
}

/// One set of targets with gold applied (the others at base).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Configuration {
    /// Targets with gold, sorted.
    pub gold: Vec<String>,
    /// Whether every target must pass (`pass`) or at least one must fail (`fail`).
    pub expected: Verdict,
    /// Per target: the run that decides its result here and what it must show.
    pub targets: BTreeMap<String, TargetCheck>,
}

/// A target's verdict in one configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetCheck {
    /// Id of the run whose result is this target's result.
    pub run: String,
    pub expected: Expect,
}

/// The verdict on a whole configuration: every target passed, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    Fail,
}

words!(Verdict {
    Pass => "pass",
    Fail => "fail",
});

impl Verdict {
    /// `Pass` when `pass`, else `Fail`.
    pub fn of(pass: bool) -> Verdict {
        if pass {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }
}

/// What one target's tests must show in one configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    Pass,
    Fail,
    /// Not constrained alone; the configuration's `expected` still holds.
    Any,
}

words!(Expect {
    Pass => "pass",
    Fail => "fail",
    Any => "any",
});

impl Expect {
    /// Whether a target that passed (`pass`) or not meets this expectation.
    pub fn met_by(self, pass: bool) -> bool {
        match self {
            Expect::Pass => pass,
            Expect::Fail => !pass,
            Expect::Any => true,
        }
    }
}
