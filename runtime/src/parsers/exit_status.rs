//! A plain test script scored by its exit status (`parser exit-status`; WideSWE's case 60
//! runs `python3 hf_xet/tests/request_headers_contract.py <name>`, whose exit status is its
//! only result).
//!
//! **Input.** Not the log: the exit status of the test command as the harness recorded it
//! after the command ended (its root-only record, [`taskc_compiler::parser::Input::ExitStatus`]),
//! the decimal number the runtime hands this parser. Nothing the command prints reaches it,
//! so no output can make a run pass.
//!
//! **Id.** One test per run, [`ID`]: passed when the status is 0, failed otherwise (126 and
//! 127, a command that could not start, are errors). A record that is not a number is
//! malformed, and an empty one (the harness's blank record, never written) incomplete:
//! never a pass.
//!
//! What it cannot see: code the command runs ending the process early with status 0
//! (`os._exit(0)` in a module the script imports). No canaries can be placed beside a
//! single status; docs/security.md ("Exit-status runs") says what protects such a run.

use super::error::ParserError;
use super::parsed_log::{Outcome, ParsedLog};

/// The one test id of an exit-status run.
pub const ID: &str = "exit-status";

/// The outcome of the run whose recorded exit status is `record` (`"0"`, `"1"`, …).
pub fn parse(record: &[u8]) -> Result<ParsedLog, ParserError> {
    let text = String::from_utf8_lossy(record);
    if text.trim().is_empty() {
        // The harness pre-fills the record with blanks: none written, no result.
        let mut parsed = ParsedLog::new();
        parsed.complete = false;
        parsed.warn("no exit status was recorded: the run has no result");
        return Ok(parsed);
    }
    let code: i64 = text.trim().parse().map_err(|_| ParserError::Malformed {
        parser: "exit-status",
        line: 1,
        message: format!("the recorded exit status `{}` is not a number", text.trim()),
    })?;
    let mut parsed = ParsedLog::new();
    let outcome = match code {
        0 => Outcome::Passed,
        126 | 127 => Outcome::Error,
        _ => Outcome::Failed,
    };
    parsed.record(ID, outcome);
    parsed.finish();
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_decides_the_one_test() {
        let outcome = |r: &[u8]| parse(r).map(|p| p.tests.get(ID).copied());
        assert_eq!(outcome(b"0\n"), Ok(Some(Outcome::Passed)));
        assert_eq!(outcome(b"1"), Ok(Some(Outcome::Failed)));
        assert_eq!(outcome(b"137"), Ok(Some(Outcome::Failed)));
        assert_eq!(outcome(b"127"), Ok(Some(Outcome::Error)));
        // A log's words are no status: never a pass.
        assert!(parse(b"passed").is_err());
        let blank = parse(b"                \n").unwrap_or_default();
        assert!(!blank.complete && blank.tests.is_empty());
        // The harness's record: the status over a blank line.
        assert_eq!(outcome(b"0\n          \n"), Ok(Some(Outcome::Passed)));
        let p = parse(b"0").unwrap_or_default();
        assert_eq!(p.tests.len(), 1);
        assert!(p.complete && p.tampering.is_empty());
    }
}
