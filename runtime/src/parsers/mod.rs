//! Test-log parsers: turn the output of a test command into a normalised
//! [`ParsedLog`] (test id → [`Outcome`], duplicates, warnings, completeness).
//!
//! One module per [`LogParser`] (its word, `-` as `_`); each documents how it forms ids
//! (`file::class::name`) and when it calls a log incomplete. [`parse`] dispatches with an
//! exhaustive `match`: a parser the compiler knows has an implementation here.

pub(crate) mod ansi;
pub mod bun;
pub mod cargo;
pub mod dart_json;
pub mod dotnet_trx;
mod error;
pub mod exit_status;
pub mod go_test_json;
pub mod gradle;
mod id_batch;
pub mod jest_json;
mod json_reports;
pub mod junit_xml;
mod lines;
pub mod minitest;
pub mod mocha_json;
mod parsed_log;
pub mod phpt;
pub mod phpunit_junit;
pub mod playwright_json;
pub mod pytest;
pub mod rspec_json;
pub mod surefire;
pub mod tap;
pub mod tcltest;
pub mod unittest;
pub mod vitest;

pub use error::ParserError;
pub use parsed_log::{Outcome, ParsedLog, TestResult};
pub use taskc_compiler::parser::LogParser;

/// Parses `input` (any bytes; invalid UTF-8 is replaced) with `parser`: the run's log, or
/// the report file it collected where the parser's descriptor says
/// [`Input::ReportFile`](taskc_compiler::parser::Input::ReportFile).
pub fn parse(parser: LogParser, input: &[u8]) -> Result<ParsedLog, ParserError> {
    match parser {
        LogParser::Bun => Ok(bun::parse(input)),
        LogParser::Cargo => Ok(cargo::parse(input)),
        LogParser::DartJson => Ok(dart_json::parse(input)),
        LogParser::DotnetTrx => Ok(dotnet_trx::parse(input)),
        LogParser::ExitStatus => exit_status::parse(input),
        LogParser::GoTestJson => Ok(go_test_json::parse(input)),
        LogParser::Gradle => Ok(gradle::parse(input)),
        LogParser::JestJson => jest_json::parse(input),
        LogParser::JunitXml => Ok(junit_xml::parse(input)),
        LogParser::Minitest => Ok(minitest::parse(input)),
        LogParser::MochaJson => Ok(mocha_json::parse(input)),
        LogParser::Phpt => Ok(phpt::parse(input)),
        LogParser::PhpunitJunit => Ok(phpunit_junit::parse(input)),
        LogParser::PlaywrightJson => Ok(playwright_json::parse(input)),
        LogParser::Pytest => Ok(pytest::parse(input)),
        LogParser::RspecJson => Ok(rspec_json::parse(input)),
        LogParser::Surefire => Ok(surefire::parse(input)),
        LogParser::Tap => Ok(tap::parse(input)),
        LogParser::Tcltest => Ok(tcltest::parse(input)),
        LogParser::Unittest => Ok(unittest::parse(input)),
        LogParser::Vitest => Ok(vitest::parse(input)),
    }
}
