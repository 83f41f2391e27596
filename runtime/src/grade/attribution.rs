//! Why an unsolved prediction is unsolved: from its test results (`Unresolved`) and from
//! its patches (`Attribution`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::target::TargetGrade;

/// Which tests an unsolved (valid) prediction misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unresolved {
    /// Some target passes all its F2P tests, but not every target does.
    Partial,
    /// No target passes all its F2P tests.
    None,
    /// Every target passes all its F2P tests; only P2P tests fail (or are missing).
    P2pRegression,
}

impl Unresolved {
    pub const ALL: [Unresolved; 3] = [
        Unresolved::Partial,
        Unresolved::None,
        Unresolved::P2pRegression,
    ];

    /// `partial`, `none` or `p2p-regression`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unresolved::Partial => "partial",
            Unresolved::None => "none",
            Unresolved::P2pRegression => "p2p-regression",
        }
    }
}

/// What the patches of an unsolved (valid) prediction suggest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Attribution {
    /// The agent left at least one target untouched.
    ScopeMiss,
    /// Every target was edited, yet the task fails.
    PostEditFailure,
}

impl Attribution {
    pub const ALL: [Attribution; 2] = [Attribution::ScopeMiss, Attribution::PostEditFailure];

    /// `scope-miss` or `post-edit-failure`.
    pub fn as_str(self) -> &'static str {
        match self {
            Attribution::ScopeMiss => "scope-miss",
            Attribution::PostEditFailure => "post-edit-failure",
        }
    }
}

/// Categorise the valid, unsolved grades of `targets`.
pub fn unresolved(targets: &BTreeMap<String, TargetGrade>) -> Unresolved {
    let complete = targets.values().filter(|t| t.f2p_complete()).count();
    if complete == targets.len() {
        Unresolved::P2pRegression
    } else if complete > 0 {
        Unresolved::Partial
    } else {
        Unresolved::None
    }
}

/// Attribute an unsolved prediction from which targets it edited.
pub fn attribute(targets: &BTreeMap<String, TargetGrade>) -> Attribution {
    if targets.values().all(|t| t.edited) {
        Attribution::PostEditFailure
    } else {
        Attribution::ScopeMiss
    }
}
