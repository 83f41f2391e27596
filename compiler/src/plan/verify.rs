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
