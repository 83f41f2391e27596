//! The oracle scoring grades against: per target, its fail-to-pass and pass-to-pass tests
//! (from the lock file; the integrator maps the lock onto this plain type).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One target's tests that must pass.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TargetOracle {
    pub f2p: Vec<String>,
    pub p2p: Vec<String>,
}

/// Every target's oracle, by target name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskOracle {
    pub targets: BTreeMap<String, TargetOracle>,
}
