//! The scoring plan for one prediction (agent patches are filled in by the runtime).

use serde::{Deserialize, Serialize};

use super::run::Run;
use crate::words::words;

/// How a prediction is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreMode {
    /// One run sees every repository with the agent's patches.
    Joint,
    /// One run per target: it gets the agent's patch, the other targets get gold.
    Independent,
}

words!(ScoreMode {
    Joint => "joint",
    Independent => "independent",
});

/// Runs that score a prediction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorePlan {
    pub mode: ScoreMode,
    pub runs: Vec<Run>,
}
