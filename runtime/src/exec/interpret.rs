//! Reading a finished run: the collected logs are parsed into test outcomes, and anything
//! that makes the result untrustworthy is a typed [`RunFailure`] saying who caused it.

use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::script::{
    out_files, StepFailure, FAILED_FILE, OUT_DIR, PYTEST_PLUGIN_MARK, STEP_FAILED,
};
use crate::backend::RunOutcome;
use crate::canary;
use crate::parsers;
use crate::results::{RepoTests, RunFailure, RunResult, RESULT_SCHEMA};
use taskc_compiler::plan::SelectHow;

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

/// What a test command's exit status says beyond pass/fail, for the statuses a shell and
/// the kernel give a command that could not start or was killed.
pub fn exit_meaning(code: i64) -> Option<&'static str> {
    match code {
        126 => {
            Some("the command was found but could not be executed: not executable, or a directory")
        }
        127 => {
            Some("command not found: a typo in the command, or a tool missing from the environment")
        }
        137 => Some("killed by SIGKILL: out of memory, or killed after the timeout's grace period"),
        143 => Some("terminated by SIGTERM: the timeout, or something else stopped it"),
        TIMEOUT_EXIT => Some("killed by the test step's timeout"),
        _ => None,
    }
}

/// How many trailing lines of a log an invalid run quotes.
pub const TAIL_LINES: usize = 12;

/// The last [`TAIL_LINES`] non-blank lines of `log`, each cut at 300 characters, indented.
pub fn log_tail(log: &[u8]) -> String {
    let text = String::from_utf8_lossy(log);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = lines.len().saturating_sub(TAIL_LINES);
    let mut out = String::new();
    for l in &lines[from..] {
        let cut: String = l.chars().take(300).collect();
        out.push_str("\n    | ");
        out.push_str(&cut);
    }
    if out.is_empty() {
        out.push_str("\n    | (the log is empty)");
    }
    out
}

/// The version line a test tool printed, where the parser's tool prints one: pytest's
/// `platform linux -- Python 3.11.2, pytest-8.3.3, pluggy-1.5.0` → the part after `-- `.
pub fn tool_version(parser: &str, log: &[u8]) -> Option<String> {
    if parser != "pytest" {
        return None;
    }
    let text = String::from_utf8_lossy(log);
    text.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("platform ")?;
        let (_, v) = rest.split_once(" -- ")?;
        v.contains("pytest-")
            .then(|| v.trim().chars().take(200).collect())
    })
}

/// `exit N: meaning` for a test command's status.
fn exit_text(code: i64) -> String {
    match exit_meaning(code) {
        Some(m) => format!("exit {code}: {m}"),
        None => format!("exit {code}"),
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
            (Some(bytes), Some(code)) => match parsers::parse(&t.parser, bytes) {
                Ok(mut parsed) => {
                    let unselected = t
                        .select
                        .as_ref()
                        .is_some_and(|s| s.how == SelectHow::PytestPlugin)
                        && memchr::memmem::find(bytes, PYTEST_PLUGIN_MARK.as_bytes()).is_none();
                    if unselected {
                        set(
                            &mut failure,
                            RunFailure::error(format!(
                                "the test selection plugin did not take effect in the tests of `{}` (the command may not run pytest through `python`, `python3` or `pytest`) ({}); last lines of its log:{}",
                                t.repo,
                                exit_text(code),
                                log_tail(bytes)
                            )),
                        );
                    }
                    if matches!(code, 126 | 127) && parsed.tests.is_empty() {
                        set(
                            &mut failure,
                            RunFailure::RunnerCrashed {
                                detail: format!(
                                    "the test command of `{}` could not start ({}); last lines of its log:{}",
                                    t.repo,
                                    exit_text(code),
                                    log_tail(bytes)
                                ),
                            },
                        );
                    }
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
                                    "the test log of `{}` ends mid-run ({}); last lines of its log:{}",
                                    t.repo,
                                    exit_text(code),
                                    log_tail(bytes)
                                ),
                            },
                        );
                    }
                    tests.tests = parsed.tests;
                    tests.duplicates = parsed.duplicates;
                    tests.unnamed_skipped = parsed.unnamed_skipped as u64;
                    tests.tool = tool_version(&t.parser, bytes);
                }
                Err(e) => set(
                    &mut failure,
                    RunFailure::RunnerCrashed {
                        detail: format!(
                            "the test log of `{}` cannot be parsed: {e} ({}); last lines of its log:{}",
                            t.repo,
                            exit_text(code),
                            log_tail(bytes)
                        ),
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
        logs: BTreeMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_that_mean_something_are_explained() {
        for code in [126, 127, 137, 143, 124] {
            assert!(exit_meaning(code).is_some(), "{code}");
        }
        assert_eq!(exit_meaning(1), None);
        assert!(exit_text(127).starts_with("exit 127: command not found"));
        assert_eq!(exit_text(2), "exit 2");
    }

    #[test]
    fn the_log_tail_keeps_the_last_lines() {
        let log: String = (0..30).map(|i| format!("line {i}\n\n")).collect();
        let tail = log_tail(log.as_bytes());
        assert_eq!(tail.matches("\n    | ").count(), TAIL_LINES);
        assert!(tail.ends_with("line 29") && !tail.contains("line 17\n"));
        assert!(log_tail(b"").contains("(the log is empty)"));
    }

    #[test]
    fn pytest_names_its_version() {
        let log = b"=== test session starts ===\nplatform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\n";
        assert_eq!(
            tool_version("pytest", log).as_deref(),
            Some("Python 3.11.2, pytest-7.2.1, pluggy-1.0.0")
        );
        assert_eq!(tool_version("tap", log), None);
        assert_eq!(tool_version("pytest", b"no header"), None);
    }
}
