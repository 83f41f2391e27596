//! Diagnostics as plain data. Rendering (miette, JSON) lives in the CLI, apart from the data.

use crate::codes::Code;
use crate::span::{SourceId, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    /// Something the checker could not check, said so that silence is not read as a pass.
    /// Never fails a check, not even with `--deny-warnings`.
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A labelled span: where something is, and what about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub source: SourceId,
    pub span: Span,
    pub text: String,
}

impl Label {
    pub fn new(source: SourceId, span: Span, text: impl Into<String>) -> Label {
        Label {
            source,
            span,
            text: text.into(),
        }
    }
}

/// One finding: a stable code, a message, a primary label, further labels, and help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity.
    pub fn new(code: Code, message: impl Into<String>, primary: Label) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            primary,
            secondary: Vec::new(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, label: Label) -> Diagnostic {
        self.secondary.push(label);
        self
    }

    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// Diagnostics gathered by one stage, in the order found.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sorted by source, then position, then code: the order users read them in.
    pub fn sorted(mut self) -> Diagnostics {
        self.0.sort_by(|a, b| {
            (a.primary.source, a.primary.span.start, a.code).cmp(&(
                b.primary.source,
                b.primary.span.start,
                b.code,
            ))
        });
        self
    }
}

impl Extend<Diagnostic> for Diagnostics {
    fn extend<T: IntoIterator<Item = Diagnostic>>(&mut self, iter: T) {
        self.0.extend(iter)
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}
