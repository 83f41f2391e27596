//! Bytes → text: the checks every spec passes before it is parsed.
//!
//! For a file that is not UTF-8 the caller has no text to show the diagnostic against: add
//! `String::from_utf8_lossy(bytes)` to the [`crate::source::SourceMap`] under the same
//! [`SourceId`] so the byte offsets of the labels still line up (the lossy text is identical
//! up to the first bad byte, which is all the label needs).

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::span::{SourceId, Span};

/// The largest spec taskc reads: 8 MiB.
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

/// Check that `bytes` are a readable spec (at most [`MAX_SOURCE_BYTES`], not empty, no NUL
/// byte, valid UTF-8) and return them as text.
pub fn decode(source: SourceId, bytes: &[u8]) -> Result<&str, Diagnostic> {
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(Diagnostic::new(
            Code::FileTooLarge,
            format!(
                "the file is {} bytes ({:.1} MiB); taskc reads specs of at most {} bytes (8 MiB)",
                bytes.len(),
                bytes.len() as f64 / (1024.0 * 1024.0),
                MAX_SOURCE_BYTES
            ),
            Label::new(source, Span::at(0), "this file is too large"),
        )
        .with_help(
            "a spec holds the task's description only: move large text into files and name them with file(\"…\")",
        ));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Diagnostic::new(
            Code::EmptyFile,
            "the file is empty: it holds no task",
            Label::new(source, Span::at(0), "nothing here"),
        )
        .with_help("write a `task \"<id>\" { … }` block; see docs/language.md for an example"));
    }
    if let Some(at) = bytes.iter().position(|b| *b == 0) {
        let (line, col) = line_col(bytes, at);
        return Err(Diagnostic::new(
            Code::NulByte,
            format!("the file contains a NUL byte at line {line}, column {col} (byte {at})"),
            Label::new(source, Span::new(at, at + 1), "NUL byte here"),
        )
        .with_help(
            "a spec is a text file: remove the NUL byte (was a binary file named by mistake?)",
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            let at = e.valid_up_to();
            let len = e.error_len().unwrap_or(bytes.len() - at).max(1);
            let (line, col) = line_col(bytes, at);
            Err(Diagnostic::new(
                Code::InvalidUtf8,
                format!("the file is not valid UTF-8: bad byte at line {line}, column {col} (byte {at})"),
                Label::new(source, Span::new(at, at + len), "not UTF-8"),
            )
            .with_help("save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`), or remove the bad byte"))
        }
    }
}

/// 1-based line and column (in characters of the valid prefix) of byte `at`.
fn line_col(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &[u8]) -> Option<Code> {
        decode(SourceId(0), bytes).err().map(|d| d.code)
    }

    #[test]
    fn accepts_text() {
        assert_eq!(
            decode(SourceId(0), b"task \"x\" {}\n").ok(),
            Some("task \"x\" {}\n")
        );
        assert_eq!(code(b"// only a comment\n"), None);
    }

    #[test]
    fn rejects_each_bad_input() {
        assert_eq!(code(b""), Some(Code::EmptyFile));
        assert_eq!(code(b" \n\t\r\n"), Some(Code::EmptyFile));
        assert_eq!(code(b"task\0"), Some(Code::NulByte));
        assert_eq!(code(b"task \xff"), Some(Code::InvalidUtf8));
        assert_eq!(
            code(&vec![b'a'; MAX_SOURCE_BYTES + 1]),
            Some(Code::FileTooLarge)
        );
        assert_eq!(code(&vec![b'a'; MAX_SOURCE_BYTES]), None);
    }

    #[test]
    fn points_at_the_first_bad_byte() {
        let d = decode(SourceId(0), b"ab\ncd\xe9f").err();
        let d = d.map(|d| (d.primary.span, d.message));
        assert_eq!(
            d,
            Some((
                Span::new(5, 6),
                "the file is not valid UTF-8: bad byte at line 2, column 3 (byte 5)".to_string()
            ))
        );
    }
}
