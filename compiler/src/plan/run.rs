//! A run: one container (or local sandbox) started from the task image, a list of patch
//! steps, then test commands whose logs are parsed. Runs never have network.

use serde::{Deserialize, Serialize};

use crate::model::Rule;

/// One execution from the task image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// `run-<16 hex>`.
    pub id: String,
    /// sha256 over the task image digest and everything below.
    pub digest: String,
    /// The task image's id.
    pub image: String,
    /// Repositories whose tests this run executes, sorted.
    pub under_test: Vec<String>,
    /// Target repositories that get their gold patch, sorted.
    pub gold_applied: Vec<String>,
    /// Repositories that get the agent's patch (scoring only), sorted.
    pub prediction: Vec<String>,
    /// Always `false`: runs have no network.
    pub network: bool,
    /// Applied in order before any test runs.
    pub steps: Vec<Step>,
    /// Run in order after the steps.
    pub tests: Vec<TestStep>,
}

/// One preparation step of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Step {
    /// Apply the gold patch (a blob) to `repo`.
    ApplyGold { repo: String, blob: String },
    /// Placeholder the runtime fills: apply the agent's patch for `repo`, if it has one.
    ApplyPrediction { repo: String },
    /// Revert every file the agent's patch for `repo` changes that matches one of `globs`
    /// (the test surface: runner hooks and configuration, start-up files, test files;
    /// `taskc_compiler::glob` syntax, sorted) to its state at base, deleting it if absent
    /// at base. Follows the `apply-prediction` steps, before any gold or hidden tests.
    RestoreSurface { repo: String, globs: Vec<String> },
    /// Reset these paths of `repo` to their state at base (delete those absent at base):
    /// the files the hidden test patch touches.
    RestoreFiles { repo: String, paths: Vec<String> },
    /// Apply the (relaxed) hidden test patch (a blob) to `repo`.
    ApplyTests { repo: String, blob: String },
}

/// One test command and how to read its log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestStep {
    pub repo: String,
    /// Working directory, `/work/<repo>`.
    pub workdir: String,
    pub command: String,
    /// A runtime log parser (`pytest`, `go-test-json`, …).
    pub parser: String,
    pub timeout_secs: u64,
    /// Tests removed from the oracle by relaxations.
    pub dropped: Vec<DroppedTest>,
}

/// A test dropped by a `relax … drop` and the review rule that allows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DroppedTest {
    pub test: String,
    pub rule: Rule,
}
