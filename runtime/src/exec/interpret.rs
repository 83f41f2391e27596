//! Reading a finished run: the collected logs are parsed into test outcomes, and anything
//! that makes the result untrustworthy is a typed [`RunFailure`] saying who caused it.

use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::script::{out_files, StepFailure, FAILED_FILE, OUT_DIR, STEP_FAILED};
use crate::backend::RunOutcome;
use crate::canary;
use crate::parsers;
use crate::results::{RepoTests, RunFailure, RunResult, RESULT_SCHEMA};

/// Exit status of `timeout(1)` when it killed the test command.
const TIMEOUT_EXIT: i64 = 124;

fn text(collected: &BTreeMap<String, Vec<u8>>, path: &str) -> Option<String> {
    collected
        .get(path)
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

/// Interpret `outcome` of `run` executed on `backend`, whose script placed `canaries`.
pub fn interpret(
    run: &Run,
    outcome: &RunOutcome,
    backend: &str,
    canaries: &canary::Placement,
) -> RunResult {
    let c = &outcome.collected;
    let mut failure: Option<RunFailure> = None;
    let set = |failure: &mut Option<RunFailure>, why: RunFailure| {
        if failure.is_none() {
            *failure = Some(why);
        }
    };
    if outcome.oom_killed {
        set(&mut failure, RunFailure::OutOfMemory);
    }
    if outcome.timed_out {
        set(
            &mut failure,
            RunFailure::Timeout {
                limit_secs: outcome.duration.as_secs(),
            },
        );
    }
    if let Some(why) = text(c, &format!("{OUT_DIR}/{FAILED_FILE}")) {
        set(&mut failure, step_failure(&why));
    } else if outcome.exit_code == Some(STEP_FAILED) {
        set(&mut failure, RunFailure::error("a preparation step failed"));
    }
    let mut repos = BTreeMap::new();
    for t in &run.tests {
        let [log, exit, ms] = out_files(&t.repo);
        let exit_code = text(c, &exit).and_then(|s| s.parse::<i64>().ok());
        let test_ms = text(c, &ms)
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0);
        let mut tests = RepoTests {
            exit_code,
            test_ms,
            ..RepoTests::default()
        };
        match (c.get(&log), exit_code) {
            (None, _) | (_, None) if failure.is_none() => {
                set(
                    &mut failure,
                    RunFailure::RunnerCrashed {
                        detail: format!("the tests of `{}` left no log", t.repo),
                    },
                );
            }
            (Some(_), Some(TIMEOUT_EXIT)) => {
                set(
                    &mut failure,
                    RunFailure::Timeout {
                        limit_secs: t.timeout_secs,
                    },
                );
            }
            (Some(bytes), Some(_)) => match parsers::parse(&t.parser, bytes) {
                Ok(mut parsed) => {
                    if let Some(first) = parsed.tampering.first() {
                        set(
                            &mut failure,
                            RunFailure::Tampered {
                                reason: format!("the test log of `{}` is forged: {first}", t.repo),
                            },
                        );
                    }
                    let check = canary::check(canaries, &t.repo, &mut parsed.tests);
                    if let canary::CanaryCheck::Tampered { evidence } = &check {
                        set(
                            &mut failure,
                            RunFailure::Tampered {
                                reason: format!(
                                    "the results of `{}` were rewritten: {}",
                                    t.repo,
                                    evidence.join("; ")
                                ),
                            },
                        );
                    }
                    tests.canaries = Some(check);
                    if !parsed.complete {
                        set(
                            &mut failure,
                            RunFailure::RunnerCrashed {
                                detail: format!(
                                    "the test log of `{}` ends mid-run (the runner crashed or was killed)",
                                    t.repo
                                ),
                            },
                        );
                    }
                    tests.tests = parsed.tests;
                    tests.duplicates = parsed.duplicates;
                }
                Err(e) => set(
                    &mut failure,
                    RunFailure::RunnerCrashed {
                        detail: format!("the test log of `{}` cannot be parsed: {e}", t.repo),
                    },
                ),
            },
            _ => {}
        }
        repos.insert(t.repo.clone(), tests);
    }
    RunResult {
        schema: RESULT_SCHEMA.to_string(),
        run: run.id.clone(),
        backend: backend.to_string(),
        failure,
        repos,
        wall_ms: outcome.duration.as_millis() as u64,
    }
}
