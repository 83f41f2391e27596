//! Rendering `compiler::Diagnostic`s for people (miette) and for tools (JSON lines).

pub mod human;
pub mod json;
pub mod report;
pub mod shorten;

use taskc_compiler::source::SourceFile;
use taskc_compiler::Span;

/// `span` clamped to `file`'s text and moved onto character boundaries, so a stray span
/// from a stage never makes rendering fail.
pub fn clamp(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let text = &file.text;
    let mut start = (span.start as usize).min(text.len());
    let mut end = (span.end as usize).clamp(start, text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}
