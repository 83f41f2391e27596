//! stub
use super::{ParsedLog, ParserError};
/// Parses.
pub fn parse(_log: &[u8]) -> Result<ParsedLog, ParserError> { Ok(ParsedLog::new()) }
