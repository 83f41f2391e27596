//! Test-log parsers: turn the output of a test command into a normalised
//! [`ParsedLog`] (test id → [`Outcome`], duplicates, warnings, completeness).
//!
//! One module per parser name of [`taskc_stdlib::PARSERS`]; each documents how
//! it forms ids (`file::class::name`) and when it calls a log incomplete.

pub(crate) mod ansi;
pub mod cargo;
mod error;
pub mod go_test_json;
mod id_batch;
pub mod jest_json;
mod json_reports;
pub mod junit_xml;
mod lines;
pub mod minitest;
pub mod mocha;
mod parsed_log;
pub mod phpunit;
pub mod pytest;
pub mod rspec;
pub mod tap;
pub mod unittest;

pub use error::ParserError;
pub use parsed_log::{Outcome, ParsedLog, TestResult};

/// Parses `log` (any bytes; invalid UTF-8 is replaced) with the parser named
/// `parser`, one of [`taskc_stdlib::PARSERS`].
pub fn parse(parser: &str, log: &[u8]) -> Result<ParsedLog, ParserError> {
    match parser {
        "cargo" => Ok(cargo::parse(log)),
        "go-test-json" => Ok(go_test_json::parse(log)),
        "jest-json" => jest_json::parse(log),
        "junit-xml" => Ok(junit_xml::parse(log)),
        "pytest" => Ok(pytest::parse(log)),
        "tap" => Ok(tap::parse(log)),
        other => Err(ParserError::UnknownParser {
            name: other.to_string(),
            known: taskc_stdlib::PARSERS
                .iter()
                .map(|p| p.to_string())
                .collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stdlib_parser_is_implemented() {
        for name in taskc_stdlib::PARSERS {
            assert!(
                !matches!(parse(name, b""), Err(ParserError::UnknownParser { .. })),
                "parser `{name}` has no implementation"
            );
        }
    }

    #[test]
    fn unknown_parser_is_an_error_naming_the_known_ones() {
        let err = parse("nose", b"").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown test-log parser `nose`; the known parsers are: cargo, go-test-json, jest-json, junit-xml, pytest, tap"
        );
    }
}
