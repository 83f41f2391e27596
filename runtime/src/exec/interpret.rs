//! Reading a finished run: its log (the test command's output stream) is parsed into test
//! outcomes, and anything that makes the result untrustworthy is a typed [`RunFailure`]
//! saying who caused it.

use std::collections::BTreeMap;

use taskc_compiler::parser::{Input, ToolVersion, REPORT_ENV};
use taskc_compiler::plan::{Run, SelectHow};

use super::script::{
    harness_file, StepFailure, EXIT_FILE, FAILED_FILE, LIMITS_FILE, MS_FILE, PYTEST_PLUGIN_MARK,
    PYTEST_UNMATCHED_MARK, REPORT_FILE, STEP_FAILED, TIMED_OUT_FILE,
};
use crate::backend::{RunOutcome, LOG_CAP};
use crate::canary;
use crate::parsers::{self, LogParser};
use crate::results::{RepoTests, RunFailure, RunResult, RESULT_SCHEMA};

fn text(collected: &BTreeMap<String, Vec<u8>>, name: &str) -> Option<String> {
    collected
        .get(&harness_file(name))
        .map(|b| String::from_utf8_lossy(b).trim().to_string())
}

/// How often the run's tests were refused a process at the sandbox's limit (the harness's
/// `pids-max <n>` record), when they were at all.
fn pids_max_hits(collected: &BTreeMap<String, Vec<u8>>) -> Option<u64> {
    let t = text(collected, LIMITS_FILE)?;
    let n: u64 = t.strip_prefix("pids-max ")?.trim().parse().ok()?;
    (n > 0).then_some(n)
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

/// `timeout`'s status when it stopped the command.
const TIMEOUT_EXIT: i64 = 124;

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

/// The version line a test tool printed, as the parser's descriptor says it prints one:
/// pytest's `platform linux -- Python 3.11.2, pytest-8.3.3, pluggy-1.5.0` → the part after
/// `-- `.
pub fn tool_version(parser: LogParser, log: &[u8]) -> Option<String> {
    match parser.descriptor().version {
        ToolVersion::PytestPlatformLine => pytest_platform_line(log),
        ToolVersion::NotReported => None,
    }
}

fn pytest_platform_line(log: &[u8]) -> Option<String> {
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

/// The ids of the plugin's `taskc-select: not collected: N [json list]` line, when the line
/// is well formed and its count agrees with its list.
fn not_collected_ids(line: &[u8]) -> Option<Vec<String>> {
    let rest = line.strip_prefix(PYTEST_UNMATCHED_MARK.as_bytes())?;
    let text = std::str::from_utf8(rest).ok()?.trim_end();
    let (count, list) = text.split_once(' ')?;
    let count: usize = count.parse().ok()?;
    let mut ids: Vec<String> = serde_json::from_str(list).ok()?;
    ids.sort();
    ids.dedup();
    (ids.len() == count && count > 0).then_some(ids)
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
    let failure = if let Some(f) = &outcome.service_failure {
        // The script never ran: the infrastructure's (or the spec's), never the tests'.
        Some(RunFailure::error(format!(
            "service `{}` was not ready: {}",
            f.service, f.detail
        )))
    } else if outcome.log_truncated {
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
    } else if let (None, Some(n)) = (exit_code, pids_max_hits(c)) {
        // The tests filled the sandbox's process limit: what followed is theirs.
        Some(RunFailure::RunnerCrashed {
            detail: format!(
                "the tests of `{}` hit the sandbox's process limit ({n} fork(s) refused) and no exit code was recorded",
                t.repo
            ),
        })
    } else if exit_code.is_none() {
        // The test user cannot touch the harness's records: the harness itself died.
        Some(RunFailure::error(format!(
            "the harness recorded no exit code for the tests of `{}` (the sandbox ended early)",
            t.repo
        )))
    } else {
        let input = match t.parser.descriptor().input {
            Input::Log => Ok(log),
            // The harness's own record of the status, never the log (`parsers::exit_status`).
            Input::ExitStatus => c
                .get(&harness_file(EXIT_FILE))
                .map(Vec::as_slice)
                .ok_or_else(|| {
                    RunFailure::error(format!(
                        "the harness recorded no exit code for the tests of `{}`",
                        t.repo
                    ))
                }),
            Input::ReportFile { .. } => c
                .get(&harness_file(REPORT_FILE))
                .map(Vec::as_slice)
                .ok_or_else(|| RunFailure::RunnerCrashed {
                    detail: format!(
                        "the tests of `{}` wrote no report at ${REPORT_ENV} (the `run` command must hand it to the runner) ({}); last lines of its log:{}",
                        t.repo,
                        exit_text(exit_code.unwrap_or(0)),
                        log_tail(log)
                    ),
                }),
        };
        match input.map(|input| parsers::parse(t.parser, input)) {
            Err(no_report) => Some(no_report),
            Ok(Ok(mut parsed)) => {
                let code = exit_code.unwrap_or(0);
                let unselected = t
                    .select
                    .as_ref()
                    .is_some_and(|s| s.how == SelectHow::PytestPlugin)
                    && memchr::memmem::find(log, PYTEST_PLUGIN_MARK.as_bytes()).is_none();
                let unselected = unselected.then(|| {
                    RunFailure::error(format!(
                        "the test selection plugin did not take effect in the tests of `{}` (the command may not run pytest through `python`, `python3` or `pytest`) ({}); last lines of its log:{}",
                        t.repo,
                        exit_text(code),
                        log_tail(log)
                    ))
                });
                // Listed ids the configuration does not collect: not passing, recorded
                // (`RepoTests::not_collected`); a line taskc cannot read makes the run invalid.
                let unmatched = t
                    .select
                    .as_ref()
                    .is_some_and(|s| s.how == SelectHow::PytestPlugin)
                    .then(|| memchr::memmem::find(log, PYTEST_UNMATCHED_MARK.as_bytes()))
                    .flatten()
                    .and_then(|at| {
                        let line = log[at..].split(|b| *b == b'\n').next().unwrap_or_default();
                        match not_collected_ids(line) {
                            Some(ids) => {
                                tests.not_collected = ids;
                                None
                            }
                            None => Some(RunFailure::error(format!(
                                "the test selection of `{}` named tests pytest did not collect, in a line taskc cannot read ({}): a narrowed run cannot show they fail",
                                t.repo,
                                String::from_utf8_lossy(line).trim_end()
                            ))),
                        }
                    });
                let not_started = (matches!(code, 126 | 127) && parsed.tests.is_empty()).then(|| {
                    RunFailure::RunnerCrashed {
                        detail: format!(
                            "the test command of `{}` could not start ({}); last lines of its log:{}",
                            t.repo,
                            exit_text(code),
                            log_tail(log)
                        ),
                    }
                });
                let forged = parsed.tampering.first().map(|first| RunFailure::Tampered {
                    reason: format!("the test log of `{}` is forged: {first}", t.repo),
                });
                let check = canary::check(canaries, &t.repo, &mut parsed.tests);
                // Go's own accounting: a copy reported after the test it precedes was not
                // run where go runs it (`go_order`).
                let out_of_order = if t.parser == LogParser::GoTestJson {
                    let command = canaries.commands.get(&t.repo).unwrap_or(&t.command);
                    super::go_order::copies_out_of_order(canaries, &t.repo, command, log)
                } else {
                    Vec::new()
                };
                let rewritten = match &check {
                    canary::CanaryCheck::Tampered { evidence } => Some(RunFailure::Tampered {
                        reason: format!(
                            "the results of `{}` were rewritten: {}",
                            t.repo,
                            evidence.join("; ")
                        ),
                    }),
                    _ if !out_of_order.is_empty() => Some(RunFailure::Tampered {
                        reason: format!(
                            "the results of `{}` were rewritten: {}",
                            t.repo,
                            out_of_order.join("; ")
                        ),
                    }),
                    _ => None,
                };
                tests.canaries = Some(check);
                // Cargo's fail-fast: the test targets after the first failing one never ran.
                let stopped = (t.parser == LogParser::Cargo)
                    .then(|| {
                        canary::fail_fast::stopped_early(&t.command, &String::from_utf8_lossy(log))
                    })
                    .flatten()
                    .map(|why| RunFailure::RunnerCrashed {
                        detail: format!("the tests of `{}`: {why}", t.repo),
                    });
                let crashed = (!parsed.complete).then(|| RunFailure::RunnerCrashed {
                    detail: format!(
                        "the test log of `{}` ends mid-run ({}); last lines of its log:{}",
                        t.repo,
                        exit_text(code),
                        log_tail(log)
                    ),
                });
                tests.tests = parsed.tests;
                // Selected Go tests the configuration does not have: recorded as the
                // plugin's line records pytest's (`phases::go_not_collected`).
                if let Some(sel) = t
                    .select
                    .as_ref()
                    .filter(|s| matches!(s.how, SelectHow::GoRun { .. }))
                {
                    tests.not_collected =
                        crate::verify::phases::go_not_collected(&sel.ids, &tests.tests);
                }
                tests.duplicates = parsed.duplicates;
                tests.unnamed_skipped = parsed.unnamed_skipped as u64;
                tests.tool = tool_version(t.parser, log);
                unselected
                    .or(unmatched)
                    .or(not_started)
                    .or(forged)
                    .or(stopped)
                    .or(rewritten)
                    .or(crashed)
            }
            Ok(Err(e)) => Some(RunFailure::RunnerCrashed {
                detail: format!(
                    "the test log of `{}` cannot be parsed: {e} ({}); last lines of its log:{}",
                    t.repo,
                    exit_text(exit_code.unwrap_or(0)),
                    log_tail(log)
                ),
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
        logs: BTreeMap::new(),
        executed: Some(crate::results::Executed::of(run)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_not_collected_line_gives_its_ids_or_nothing() {
        let line = br#"taskc-select: not collected: 2 ["t.py::f[b]", "t.py::f[a \"q\"]"]"#;
        assert_eq!(
            not_collected_ids(line),
            Some(vec![
                r#"t.py::f[a "q"]"#.to_string(),
                "t.py::f[b]".to_string()
            ])
        );
        // A count that disagrees with the list, the old format, or no list: unreadable.
        for bad in [
            &br#"taskc-select: not collected: 3 ["a", "b"]"#[..],
            b"taskc-select: not collected: 1 ('t.py::f[b]')",
            b"taskc-select: not collected: 0 []",
            b"taskc-select: not collected: 1",
        ] {
            assert_eq!(
                not_collected_ids(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
