//! Finding JSON reports in a log that may hold other text: every line that
//! starts with `{` is tried as the start of a report of type `T`.

use serde::de::DeserializeOwned;

use super::lines::line_number;
use super::parsed_log::ParsedLog;

/// What the scan found at one `{` line.
pub(crate) enum Found<T> {
    /// A whole report, starting at this 1-based line.
    Report(T, usize),
    /// A report that is cut off (the log ends inside it), starting at this line.
    CutOff(usize),
}

/// A log holding `runner`'s JSON reports of type `T` (found by [`scan`] with `marker`),
/// each handed to `read` with its line: a report cut off, or none at all (then `missing`
/// says how to get one), leaves the log incomplete.
pub(crate) fn parse_reports<T: DeserializeOwned>(
    log: &[u8],
    marker: &[u8],
    runner: &str,
    missing: &str,
    mut read: impl FnMut(&mut ParsedLog, T, usize),
) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut reports = 0;
    for found in scan::<T>(log, marker) {
        match found {
            Found::Report(report, line) => {
                reports += 1;
                read(&mut parsed, report, line);
            }
            Found::CutOff(line) => {
                parsed.complete = false;
                parsed.warn(format!(
                    "the {runner} report starting at line {line} is cut off: the run ended early"
                ));
            }
        }
    }
    if reports == 0 && parsed.complete {
        parsed.complete = false;
        parsed.warn(missing);
    }
    parsed.finish();
    parsed
}

/// Every report of type `T` in `log`, in order. `marker` is a key only a report
/// holds (`"examples"`); a `{` line that does not parse as `T` is skipped unless
/// the log ends inside it and `marker` follows it (then [`Found::CutOff`]).
pub(crate) fn scan<T: DeserializeOwned>(log: &[u8], marker: &[u8]) -> Vec<Found<T>> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(start) = next_object_line(log, pos) {
        let mut stream = serde_json::Deserializer::from_slice(&log[start..]).into_iter::<T>();
        match stream.next() {
            Some(Ok(report)) => {
                found.push(Found::Report(report, line_number(log, start)));
                pos = start + stream.byte_offset().max(1);
            }
            Some(Err(err))
                if err.is_eof() && memchr::memmem::find(&log[start..], marker).is_some() =>
            {
                found.push(Found::CutOff(line_number(log, start)));
                break;
            }
            _ => pos = start + 1,
        }
    }
    found
}

/// The next offset at or after `from` where a line starts with `{`.
fn next_object_line(log: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let brace = at + memchr::memchr(b'{', log.get(at..)?)?;
        if brace == 0 || log[brace - 1] == b'\n' {
            return Some(brace);
        }
        at = brace + 1;
    }
}
