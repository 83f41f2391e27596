//! Why a run's tests cannot be taken at face value, typed by who caused it
//! (`docs/scoring.md`, "Counting policy"; `docs/security.md`, defence 7).
//!
//! An infrastructure [`RunFailure::Error`] (the engine, an image, the spec's own patches,
//! taskc itself) says nothing about the prediction: it is retried by `--rerun-invalid` and
//! left out of valid-only rates. Every other variant is something the agent's patch can
//! cause; it is a failure of the prediction, counted unsolved and never excluded — so no
//! agent can turn a failing result into an excluded one (an `os._exit` in a conftest is a
//! [`RunFailure::RunnerCrashed`], not an infrastructure error).

use std::fmt;

use serde::{Deserialize, Serialize};

/// Who caused a failed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The engine, an image, the spec or taskc: the result is `invalid`, not the agent's.
    Infrastructure,
    /// Something the prediction's patches can bring about: the prediction fails.
    Prediction,
}

/// Why a run failed, with the details a reader needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RunFailure {
    /// Infrastructure: the engine, an image, a gold or hidden-test patch of the spec that
    /// does not apply at base, taskc itself.
    Error { detail: String },
    /// The prediction's patch for `repo` does not apply (or leaves the hidden tests unable
    /// to apply over its changes).
    PatchDoesNotApply { repo: String, detail: String },
    /// The test runner ended without a complete report (a crash, `os._exit`, a signal).
    RunnerCrashed { detail: String },
    /// The run reached its time limit and was killed, whatever its exit code.
    Timeout { limit_secs: u64 },
    /// The kernel killed a process of the run for exceeding its memory limit.
    OutOfMemory,
    /// The run's output passed the log cap; it was stopped there.
    OutputTooLarge { limit_bytes: u64 },
    /// The evidence of the run was forged or the harness interfered with (canaries, log
    /// integrity).
    Tampered { reason: String },
}

/// Every failure kind, for reports that list each with a count.
pub const FAILURE_KINDS: [&str; 7] = [
    "error",
    "patch-does-not-apply",
    "runner-crashed",
    "timeout",
    "out-of-memory",
    "output-too-large",
    "tampered",
];

impl RunFailure {
    /// Who caused it.
    pub fn cause(&self) -> Cause {
        match self {
            RunFailure::Error { .. } => Cause::Infrastructure,
            RunFailure::PatchDoesNotApply { .. }
            | RunFailure::RunnerCrashed { .. }
            | RunFailure::Timeout { .. }
            | RunFailure::OutOfMemory
            | RunFailure::OutputTooLarge { .. }
            | RunFailure::Tampered { .. } => Cause::Prediction,
        }
    }

    /// The stable kebab-case name (one of [`FAILURE_KINDS`]).
    pub fn kind(&self) -> &'static str {
        match self {
            RunFailure::Error { .. } => "error",
            RunFailure::PatchDoesNotApply { .. } => "patch-does-not-apply",
            RunFailure::RunnerCrashed { .. } => "runner-crashed",
            RunFailure::Timeout { .. } => "timeout",
            RunFailure::OutOfMemory => "out-of-memory",
            RunFailure::OutputTooLarge { .. } => "output-too-large",
            RunFailure::Tampered { .. } => "tampered",
        }
    }

    /// An infrastructure error.
    pub fn error(detail: impl Into<String>) -> RunFailure {
        RunFailure::Error {
            detail: detail.into(),
        }
    }

    /// Whether this is an infrastructure error (retried, excluded from valid-only rates).
    pub fn is_infrastructure(&self) -> bool {
        self.cause() == Cause::Infrastructure
    }
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::Error { detail } => write!(f, "{detail}"),
            RunFailure::PatchDoesNotApply { detail, .. } => {
                write!(f, "patch does not apply: {detail}")
            }
            RunFailure::RunnerCrashed { detail } => write!(f, "runner crashed: {detail}"),
            RunFailure::Timeout { limit_secs } => {
                write!(f, "timeout: killed at the limit of {limit_secs} s")
            }
            RunFailure::OutOfMemory => write!(f, "out of memory: killed at the memory limit"),
            RunFailure::OutputTooLarge { limit_bytes } => write!(
                f,
                "output too large: more than {} MiB of output, stopped",
                limit_bytes / (1024 * 1024)
            ),
            RunFailure::Tampered { reason } => write!(f, "tampered: {reason}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_error_is_infrastructure() {
        let all = [
            RunFailure::error("engine"),
            RunFailure::PatchDoesNotApply {
                repo: "a".into(),
                detail: "x".into(),
            },
            RunFailure::RunnerCrashed { detail: "x".into() },
            RunFailure::Timeout { limit_secs: 3 },
            RunFailure::OutOfMemory,
            RunFailure::OutputTooLarge { limit_bytes: 1 },
            RunFailure::Tampered { reason: "x".into() },
        ];
        let kinds: Vec<&str> = all.iter().map(RunFailure::kind).collect();
        assert_eq!(kinds, FAILURE_KINDS);
        for f in &all {
            assert_eq!(f.is_infrastructure(), f.kind() == "error", "{f}");
        }
    }

    #[test]
    fn serialises_with_a_kind_tag() {
        let json = serde_json::to_string(&RunFailure::Tampered {
            reason: "canary".into(),
        })
        .unwrap_or_default();
        assert_eq!(json, r#"{"kind":"tampered","reason":"canary"}"#);
        let back: RunFailure =
            serde_json::from_str(r#"{"kind":"out-of-memory"}"#).unwrap_or(RunFailure::error(""));
        assert_eq!(back, RunFailure::OutOfMemory);
    }
}
