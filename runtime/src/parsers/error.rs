//! Why a log could not be parsed at all.

/// A failure of [`super::parse`]. Logs that merely end early are not errors:
/// they parse to a [`super::ParsedLog`] with `complete == false`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParserError {
    /// The log holds a machine-readable report that is broken before its end.
    #[error("{parser} log is malformed at line {line}: {message}; check that the test command writes an unmodified report")]
    Malformed {
        /// The parser that gave up.
        parser: &'static str,
        /// 1-based line of the log where the report breaks.
        line: usize,
        /// What is wrong.
        message: String,
    },
}
