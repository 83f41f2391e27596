//! The syntax tree of a `.task` file.
//!
//! The surface language is a uniform tree of *statements*: a name, zero or more values,
//! and an optional `{ … }` block of further statements. The checker gives the statements
//! their meaning; the parser only knows this shape. This keeps error recovery simple
//! (a bad statement is skipped up to the next line), lets the formatter keep every comment,
//! and makes "unknown field" a checker diagnostic with a suggestion rather than a parse error.
//!
//! Every node carries its byte [`Span`]. The AST is not serialisable on purpose: plans,
//! locks and reports are the serialised forms.

use crate::span::Span;

/// A whole `.task` file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Document {
    pub statements: Vec<Statement>,
    /// Comments after the last statement.
    pub dangling: Vec<Trivia>,
    pub span: Span,
}

/// `name value* [{ statement* }]`, ended by a newline, `;` or the closing `}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub name: Ident,
    pub args: Vec<Value>,
    pub block: Option<Block>,
    /// Comments (and blank-line separators) on the lines before this statement.
    pub leading: Vec<Trivia>,
    /// A `// comment` on the same line, after the statement.
    pub trailing: Option<Comment>,
    pub span: Span,
}

/// `{ statement* }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub statements: Vec<Statement>,
    /// Comments after the last statement, before the `}`.
    pub dangling: Vec<Trivia>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trivia {
    Comment(Comment),
    /// One or more empty lines (the formatter keeps at most one).
    BlankLine,
}

/// `// text` — `text` excludes the slashes and the newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub text: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(StrLit),
    Ident(Ident),
    Int(IntLit),
    /// `file("prompt.md")`, `git("https://…")`.
    Call(Call),
    /// `["python", "go"]`.
    List(List),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Str(s) => s.span,
            Value::Ident(i) => i.span,
            Value::Int(i) => i.span,
            Value::Call(c) => c.span,
            Value::List(l) => l.span,
        }
    }

    /// What kind of value this is, for "expected a string, found a list".
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Ident(_) => "a name",
            Value::Int(_) => "an integer",
            Value::Call(_) => "a call",
            Value::List(_) => "a list",
        }
    }
}

/// How a string was written, so the formatter can keep the author's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrStyle {
    /// `"…"` with escapes `\" \\ \n \t \r \0 \u{…}`.
    Quoted,
    /// `r"…"`, `r#"…"#`: no escapes; `hashes` is the number of `#`.
    Raw { hashes: u8 },
    /// `"""…"""` on its own lines: common indentation removed, no escapes but `\"""`.
    Block,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrLit {
    /// The value after escapes and indentation are resolved.
    pub value: String,
    pub style: StrStyle,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntLit {
    pub value: u64,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub name: Ident,
    pub args: Vec<Value>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    pub items: Vec<Value>,
    pub span: Span,
}
