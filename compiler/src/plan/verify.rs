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
