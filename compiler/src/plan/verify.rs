//! The verification plan: which runs decide which gold-subset configuration.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::run::Run;

/// How a task is verified (the spec's `verify` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyStrategy {
    /// Every subset of gold patches; only the full set may pass.
    Joint,
    /// Each target fails at base and passes with gold.
    PerRepo,
}

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
    pub expected: Outcome,
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

/// Outcome of a whole configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    Fail,
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
