//! What one run produced, as stored by run id. A run *completed* when every step applied
//! and its test log parsed completely; otherwise it carries a typed [`RunFailure`] saying
//! who caused it: an infrastructure `error` makes the run *invalid* (retried, excluded from
//! valid-only rates); anything the agent's patch can cause fails the prediction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use taskc_compiler::plan::{canonical_digest, Run, Step};

use crate::canary::CanaryCheck;
pub use crate::failure::{Cause, RunFailure};
use crate::parsers::Outcome;

/// Schema tag of stored run results.
pub const RESULT_SCHEMA: &str = "taskc.result/2";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema: String,
    /// The plan's run id.
    pub run: String,
    /// `docker` or `local`: results of different backends are stored apart.
    pub backend: String,
    /// Why the run's tests cannot be taken as they stand; `None` when it completed.
    pub failure: Option<RunFailure>,
    /// Per repository under test.
    pub repos: BTreeMap<String, RepoTests>,
    /// Wall time of the run as the backend measures it (Docker: start → exit), milliseconds.
    pub wall_ms: u64,
    /// Where the stored logs of this run are: `run` (the script's own output) and each
    /// repository under test → path. Filled when the result is stored.
    #[serde(default)]
    pub logs: BTreeMap<String, String>,
    /// What the run executed (`None` in results stored before taskc recorded it): what
    /// `taskc score --regrade` compares to decide whether the result can be graded against
    /// a changed lock without running again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executed: Option<Executed>,
}

/// What a run executed: the plan's [`Run`] without what only grading reads (the tests
/// relaxations `drop` from the oracle) and without its ids, and the digest of that. Two runs
/// with equal digests executed the same thing — image, patches applied (the prediction's by
/// the stored key), hidden tests, command, parser, time limit, selection, services — so one's
/// stored result stands for the other's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executed {
    /// sha256 of `run` (tag `taskc.executed-run/1`).
    pub digest: String,
    pub run: Run,
}

impl Executed {
    /// What `run` executes.
    pub fn of(run: &Run) -> Executed {
        let mut run = run.clone();
        run.id.clear();
        run.digest.clear();
        run.test.dropped.clear();
        Executed {
            digest: canonical_digest("taskc.executed-run/1", &run),
            run,
        }
    }

    /// How `self` (a stored run) differs from `other` (the run the current plan asks for),
    /// in words, most decisive first; empty when they executed the same thing.
    pub fn differences(&self, other: &Executed) -> Vec<&'static str> {
        let (a, b) = (&self.run, &other.run);
        let tests = |r: &Run| {
            r.steps
                .iter()
                .filter(|s| matches!(s, Step::ApplyTests { .. } | Step::RestoreFiles { .. }))
                .cloned()
                .collect::<Vec<_>>()
        };
        let mut out = Vec::new();
        if a.image != b.image {
            out.push("the task image changed (environment, sources, setup or base image)");
        }
        if tests(a) != tests(b) {
            out.push("the hidden tests changed (a relaxation's `edit`, or the test patch)");
        }
        if a.gold_applied != b.gold_applied
            || a.prediction != b.prediction
            || a.steps.len() != b.steps.len()
            || a.steps.iter().zip(&b.steps).any(|(x, y)| {
                !matches!(x, Step::ApplyTests { .. } | Step::RestoreFiles { .. }) && x != y
            })
        {
            out.push("the patches applied changed (gold patches, scoring mode or test surface)");
        }
        if a.test.command != b.test.command || a.test.workdir != b.test.workdir {
            out.push("the test command changed");
        }
        if a.test.parser != b.test.parser {
            out.push("the log parser changed");
        }
        if a.test.timeout_secs != b.test.timeout_secs {
            out.push("the time limit changed (`timeout` or `--timeout-multiplier`)");
        }
        if a.test.select_template != b.test.select_template || a.test.select != b.test.select {
            out.push("the test selection changed");
        }
        if a.services != b.services || a.network != b.network {
            out.push("the services beside the tests changed");
        }
        if out.is_empty() && self.digest != other.digest {
            out.push("the run's inputs changed");
        }
        out
    }
}

/// One repository's test results in one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct RepoTests {
    pub tests: BTreeMap<String, Outcome>,
    pub exit_code: Option<i64>,
    /// Wall time of the raw test command alone, measured inside the run, milliseconds.
    pub test_ms: u64,
    pub duplicates: Vec<String>,
    /// Skipped tests the log counts without naming them.
    #[serde(default)]
    pub unnamed_skipped: u64,
    /// The test tool's version as the log names it (pytest's session header), if it does.
    #[serde(default)]
    pub tool: Option<String>,
    /// What the run's canary tests showed (`None` in results stored before canaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canaries: Option<CanaryCheck>,
    /// Selected ids the narrowed run's configuration does not collect (the pytest plugin's
    /// `not collected` line; for `go test -run`, `verify::phases::go_not_collected`), sorted:
    /// not passing there, and missing from its full suite too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_collected: Vec<String>,
}

impl RunResult {
    /// No infrastructure error: the result says something about what was tested (it may
    /// still be a failure the prediction caused).
    pub fn is_valid(&self) -> bool {
        !self
            .failure
            .as_ref()
            .is_some_and(RunFailure::is_infrastructure)
    }

    /// Every step applied and the log parsed completely: the test outcomes stand.
    pub fn completed(&self) -> bool {
        self.failure.is_none()
    }

    /// The failure as one line, for tables and messages.
    pub fn failure_text(&self) -> Option<String> {
        self.failure.as_ref().map(ToString::to_string)
    }

    /// The path of the log that best explains an invalid run: the first repository's test
    /// log if there is one, else the script's own log.
    pub fn main_log(&self) -> Option<&str> {
        self.repos
            .keys()
            .find_map(|r| self.logs.get(r))
            .or_else(|| self.logs.get("run"))
            .map(String::as_str)
    }

    /// The outcome of `test` of `repo`, if the run reported it.
    pub fn outcome(&self, repo: &str, test: &str) -> Option<Outcome> {
        self.repos.get(repo)?.tests.get(test).copied()
    }
}
