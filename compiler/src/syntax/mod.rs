//! Reading a `.task` file: bytes → text (UTF-8, NUL and size checks) → [`ast::Document`].
//!
//! ```text
//! decode(bytes) ──► &str ──► lexer (nom 8) ──► tokens ──► parser ──► Parsed { document, diagnostics }
//! ```

pub mod ast;
pub mod decode;
mod lexer;
mod parser;
pub mod strip;

use crate::diagnostic::Diagnostic;
use crate::span::SourceId;

pub use decode::{decode, MAX_SOURCE_BYTES};
pub use lexer::{is_name_char, is_name_start};
pub use parser::MAX_DEPTH;
pub use strip::strip_spans;

/// The result of parsing: the statements that parsed (bad ones are skipped, so the
/// document is usable even with errors) and every syntax error found.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub document: ast::Document,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether any syntax error was found.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parse `text` (already known to be valid UTF-8) as source `source`.
///
/// Never panics and never recurses deeper than [`MAX_DEPTH`] levels. Diagnostics come in
/// source order. A statement with a syntax error is left out of the document; comments
/// inside lists and calls are moved into the leading comments of their statement.
pub fn parse(source: SourceId, text: &str) -> Parsed {
    let lexed = lexer::lex(source, text);
    let lexer::Lexed {
        tokens,
        strings,
        mut diagnostics,
        swallowed_eof,
    } = lexed;
    let parser = parser::Parser::new(source, text, &tokens, strings, swallowed_eof);
    let (document, parse_diags) = parser.parse_document();
    diagnostics.extend(parse_diags);
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.primary.span.end));
    Parsed {
        document,
        diagnostics,
    }
}
