//! Reading a finished run: its log (the test command's output stream) is parsed into test
//! outcomes, and anything that makes the result untrustworthy is a typed [`RunFailure`]
//! saying who caused it.

use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::script::{
    harness_file, StepFailure, EXIT_FILE, FAILED_FILE, MS_FILE, STEP_FAILED, TIMED_OUT_FILE,
};
use crate::backend::{RunOutcome, LOG_CAP};
use crate::canary;
use crate::parsers;
use crate::results::{RepoTests, RunFailure, RunResult, RESULT_SCHEMA};

fn text(collected: &BTreeMap<String, Vec<u8>>, name: &str) -> Option<String> {
    collected
        .get(&harness_file(name))
        .map(|b| String::from_utf8_lossy(b).trim().to_string())
}

/// The failure a failed preparation step recorded (`<who>\n<message>`).
fn step_failure(text: &str) -> RunFailure {
    let (who, message) = text.split_once('\n').unwrap_or((text, ""));
    let message = message.trim().to_string();
    match who.split_once(':') {
        Some(("prediction", repo)) => RunFailure::PatchDoesNotApply {
            repo: repo.to_string(),
            detail: message,
        },
        _ if who == StepFailure::AfterPrediction.as_str() => RunFailure::PatchDoesNotApply {
            repo: String::new(),
            detail: format!("{message} (over the prediction's changes)"),
        },
        _ => RunFailure::error(message),
    }
}

/// Interpret `outcome` of `run` executed on `backend`, whose script placed `canaries`;
/// `log` is the run's log (the test command's output as the backend received it, at most
/// [`LOG_CAP`] bytes).
pub fn interpret(
    run: &Run,
    outcome: &RunOutcome,
    log: &[u8],
    backend: &str,
    canaries: &canary::Placement,
) -> RunResult {
    let c = &outcome.collected;
    let t = &run.test;
    let exit_code = text(c, EXIT_FILE).and_then(|s| s.parse::<i64>().ok());
    let test_ms = text(c, MS_FILE)
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    let mut tests = RepoTests {
        exit_code,
        test_ms,
        ..RepoTests::default()
    };
    let timeout = RunFailure::Timeout {
        limit_secs: t.timeout_secs,
    };
    // In order: what stopped the run from outside, what the harness recorded, the log.
    let failure = if outcome.log_truncated {
        Some(RunFailure::OutputTooLarge {
            limit_bytes: LOG_CAP as u64,
        })
    } else if outcome.oom_killed {
        Some(RunFailure::OutOfMemory)
    } else if outcome.timed_out {
        Some(timeout)
    } else if let Some(why) = text(c, FAILED_FILE) {
        Some(step_failure(&why))
    } else if outcome.exit_code == Some(STEP_FAILED) {
        Some(RunFailure::error("a preparation step failed"))
    } else if c.contains_key(&harness_file(TIMED_OUT_FILE)) {
        // By the clock: whatever the exit code (a test ignoring SIGTERM ends 137).
        Some(timeout)
    } else if exit_code.is_none() {
        // The test user cannot touch the harness's records: the harness itself died.
        Some(RunFailure::error(format!(
            "the harness recorded no exit code for the tests of `{}` (the sandbox ended early)",
            t.repo
        )))
    } else {
        match parsers::parse(&t.parser, log) {
            Ok(mut parsed) => {
                let forged = parsed.tampering.first().map(|first| RunFailure::Tampered {
                    reason: format!("the test log of `{}` is forged: {first}", t.repo),
                });
                let check = canary::check(canaries, &t.repo, &mut parsed.tests);
                let rewritten = match &check {
                    canary::CanaryCheck::Tampered { evidence } => Some(RunFailure::Tampered {
                        reason: format!(
                            "the results of `{}` were rewritten: {}",
                            t.repo,
                            evidence.join("; ")
                        ),
                    }),
                    _ => None,
                };
                tests.canaries = Some(check);
                let crashed = (!parsed.complete).then(|| RunFailure::RunnerCrashed {
                    detail: format!(
                        "the test log of `{}` ends mid-run (the runner crashed or was killed)",
                        t.repo
                    ),
                });
                tests.tests = parsed.tests;
                tests.duplicates = parsed.duplicates;
                forged.or(rewritten).or(crashed)
            }
            Err(e) => Some(RunFailure::RunnerCrashed {
                detail: format!("the test log of `{}` cannot be parsed: {e}", t.repo),
            }),
        }
    };
    RunResult {
        schema: RESULT_SCHEMA.to_string(),
        run: run.id.clone(),
        backend: backend.to_string(),
        failure,
        repos: BTreeMap::from([(t.repo.clone(), tests)]),
        wall_ms: outcome.duration.as_millis() as u64,
    }
}
