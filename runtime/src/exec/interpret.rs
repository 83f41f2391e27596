//! Reading a finished run: the collected logs are parsed into test outcomes, and anything
//! that makes the result untrustworthy marks the run invalid, with the reason.

use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::script::{out_files, OUT_DIR, STEP_FAILED};
use crate::backend::RunOutcome;
use crate::canary;
use crate::parsers;
use crate::results::{RepoTests, RunResult, RESULT_SCHEMA};

/// Exit status of `timeout(1)` when it killed the test command.
const TIMEOUT_EXIT: i64 = 124;

fn text(collected: &BTreeMap<String, Vec<u8>>, path: &str) -> Option<String> {
    collected
        .get(path)
        .map(|b| String::from_utf8_lossy(b).trim().to_string())
}

/// Interpret `outcome` of `run` executed on `backend`, whose script placed `canaries`.
pub fn interpret(
    run: &Run,
    outcome: &RunOutcome,
    backend: &str,
    canaries: &canary::Placement,
) -> RunResult {
    let c = &outcome.collected;
    let mut invalid: Option<String> = None;
    let set = |invalid: &mut Option<String>, why: String| {
        if invalid.is_none() {
            *invalid = Some(why);
        }
    };
    if outcome.oom_killed {
        set(&mut invalid, "killed: out of memory".into());
    }
    if outcome.timed_out {
        set(
            &mut invalid,
            format!("timed out after {} s", outcome.duration.as_secs()),
        );
    }
    if let Some(why) = text(c, &format!("{OUT_DIR}/invalid")) {
        set(&mut invalid, why);
    } else if outcome.exit_code == Some(STEP_FAILED) {
        set(&mut invalid, "a preparation step failed".into());
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
            (None, _) | (_, None) if invalid.is_none() => {
                set(
                    &mut invalid,
                    format!("the tests of `{}` left no log: the run crashed", t.repo),
                );
            }
            (Some(_), Some(TIMEOUT_EXIT)) => {
                set(
                    &mut invalid,
                    format!(
                        "the tests of `{}` timed out after {} s",
                        t.repo, t.timeout_secs
                    ),
                );
            }
            (Some(bytes), Some(_)) => match parsers::parse(&t.parser, bytes) {
                Ok(mut parsed) => {
                    if let Some(first) = parsed.tampering.first() {
                        set(
                            &mut invalid,
                            format!("tampered: the test log of `{}` is forged: {first}", t.repo),
                        );
                    }
                    let check = canary::check(canaries, &t.repo, &mut parsed.tests);
                    if let canary::CanaryCheck::Tampered { evidence } = &check {
                        set(
                            &mut invalid,
                            format!(
                                "tampered: the results of `{}` were rewritten: {}",
                                t.repo,
                                evidence.join("; ")
                            ),
                        );
                    }
                    tests.canaries = Some(check);
                    if !parsed.complete {
                        set(
                            &mut invalid,
                            format!(
                            "the test log of `{}` ends mid-run (the runner crashed or was killed)",
                            t.repo
                        ),
                        );
                    }
                    tests.tests = parsed.tests;
                    tests.duplicates = parsed.duplicates;
                }
                Err(e) => set(
                    &mut invalid,
                    format!("the test log of `{}` cannot be parsed: {e}", t.repo),
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
        invalid,
        repos,
        wall_ms: outcome.duration.as_millis() as u64,
    }
}
