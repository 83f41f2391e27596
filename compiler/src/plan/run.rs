//! A run: one fresh container (or local sandbox) started from the task image, a list of
//! patch steps, then ONE repository's test command, whose output is parsed. Runs never have
//! network, and a run tests exactly one repository: nothing one target's tests (or the code
//! they import) write can reach another target's run (`docs/security.md`, defence 1).

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
    /// The one repository whose tests this run executes.
    pub under_test: String,
    /// Target repositories that get their gold patch, sorted.
    pub gold_applied: Vec<String>,
    /// Repositories that get the agent's patch (scoring only), sorted.
    pub prediction: Vec<String>,
    /// Always `false`: runs have no network.
    pub network: bool,
    /// Applied in order before any test runs.
    pub steps: Vec<Step>,
    /// Run after the steps: the tests of `under_test`.
    pub test: TestStep,
    /// Services started beside the run on its private network (`under_test`'s), by name.
    /// Absent when there are none, so runs without services keep their ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<crate::plan::RunService>,
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
    /// Rust files of `repo` the hidden test patch changes (not test files: code with its
    /// unit tests beside it, `#[cfg(test)] mod tests { … }`). Each keeps the prediction's
    /// or gold patch's changes outside its `#[cfg(test)]` modules and gets those modules as
    /// the hidden tests have them (`crate::inline_tests`); a file the hidden tests change
    /// outside them is restored whole, as `restore-files` does. Between `restore-files` and
    /// `apply-tests`, whose patch then leaves these files out.
    RestoreTestModules { repo: String, paths: Vec<String> },
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
    /// The log parser (serialised as its word: `pytest`, `go-test-json`, …).
    pub parser: crate::parser::LogParser,
    pub timeout_secs: u64,
    /// Tests removed from the oracle by relaxations.
    pub dropped: Vec<DroppedTest>,
    /// The spec's `select "… {ids} …"` template, for a parser taskc cannot narrow itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_template: Option<String>,
    /// Set only in narrowed runs, which the runtime derives in phase 2
    /// (`taskc_compiler::lower::narrow_run`); plans never hold it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<TestSelection>,
}

/// The tests a narrowed test step runs, and how the runtime narrows the command
/// (`docs/language.md`, "Test selection").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestSelection {
    /// Test ids as the parser reports them, sorted.
    pub ids: Vec<String>,
    /// Stop at the first failing selected test, where the runner allows it.
    pub fail_fast: bool,
    pub how: SelectHow,
}

/// How a command is narrowed without rewriting it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SelectHow {
    /// taskc's pytest plugin (`PYTEST_PLUGINS=taskc_select`), given the ids in a file.
    PytestPlugin,
    /// `GOFLAGS=-run=<pattern> [-failfast]`: `pattern` anchors each top-level test name.
    GoRun { pattern: String },
    /// The spec's `select` template with `{ids}` replaced by the ids, each one shell word
    /// (`taskc_compiler::lower::fill_template`): the command that runs instead of `command`.
    Command { command: String },
}

/// A test dropped by a `relax … drop` and the review rule that allows it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DroppedTest {
    pub test: String,
    pub rule: Rule,
}
