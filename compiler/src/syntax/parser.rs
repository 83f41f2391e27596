//! Tokens → [`Document`], with statement-level error recovery.
//!
//! The grammar is one shape, `name value* block?`, so the parser is a small recursive
//! descent over the tokens of [`super::lexer`] (itself written with nom 8). Recursion is
//! bounded: blocks, lists and calls nest at most [`MAX_DEPTH`] deep; deeper input is
//! reported once (E0108) and skipped by an iterative scan, so no input overflows the stack.
//!
//! Recovery: a statement with a syntax error is reported once and skipped up to the next
//! statement boundary (a newline or `;` at the same depth, or the `}` that closes its block);
//! the statements around it are kept.

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::span::{SourceId, Span};
use crate::syntax::ast::{
    Block, Call, Comment, Document, Ident, IntLit, List, Statement, StrLit, Trivia, Value,
};
use crate::syntax::lexer::{TokKind, Token};

/// How deep blocks, lists and calls may nest, together.
pub const MAX_DEPTH: usize = 64;

/// A syntax error was found and already reported.
struct Failed;

pub(crate) struct Parser<'t> {
    text: &'t str,
    source: SourceId,
    toks: &'t [Token],
    /// String values and comment texts of the tokens, taken as they are used.
    strings: Vec<String>,
    pos: usize,
    depth: usize,
    diagnostics: Vec<Diagnostic>,
    reported_depth: bool,
    reported_eof: bool,
    /// Comments found inside lists and calls; they move above their statement.
    hoisted: Vec<Comment>,
    /// The first block whose own-line `}` is indented less than the line that opened it:
    /// when the file ends inside a block, that block most likely lacks its `}`.
    suspect: Option<Suspect>,
}

/// A block closed by a `}` that looks like it belongs to an outer block.
struct Suspect {
    open: Span,
    name: String,
    close: Span,
}

impl<'t> Parser<'t> {
    pub(crate) fn new(
        source: SourceId,
        text: &'t str,
        toks: &'t [Token],
        strings: Vec<String>,
        swallowed_eof: bool,
    ) -> Parser<'t> {
        Parser {
            text,
            source,
            toks,
            strings,
            pos: 0,
            depth: 0,
            diagnostics: Vec::new(),
            reported_depth: false,
            reported_eof: swallowed_eof,
            hoisted: Vec::new(),
            suspect: None,
        }
    }

    pub(crate) fn parse_document(mut self) -> (Document, Vec<Diagnostic>) {
        let (statements, dangling) = self.items(None);
        let doc = Document {
            statements,
            dangling,
            span: Span::new(0, self.text.len()),
        };
        (doc, self.diagnostics)
    }

    // ---- token access -------------------------------------------------------------------

    fn peek(&self) -> &'t TokKind {
        &self.tok().kind
    }

    fn tok(&self) -> &'t Token {
        // The lexer always ends with Eof and the parser never moves past it.
        let i = self.pos.min(self.toks.len().saturating_sub(1));
        &self.toks[i]
    }

    fn bump(&mut self) -> &'t Token {
        let t = self.tok();
        if t.kind != TokKind::Eof {
            self.pos += 1;
        }
        t
    }

    /// The value of a string or comment token; each is taken once, as the parser never
    /// goes back.
    fn take_string(&mut self, id: usize) -> String {
        self.strings
            .get_mut(id)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn slice(&self, span: Span) -> &'t str {
        self.text.get(span.range()).unwrap_or("")
    }

    fn label(&self, span: Span, text: impl Into<String>) -> Label {
        Label::new(self.source, span, text)
    }

    /// How a token reads in a message: "`}`", "the name `foo`", "the end of the file".
    fn describe(&self, t: &Token) -> String {
        match &t.kind {
            TokKind::Ident => format!("the name `{}`", self.slice(t.span)),
            TokKind::Int(v) => format!("the number `{v}`"),
            TokKind::Str { .. } => "a string".to_string(),
            TokKind::LBrace => "`{`".to_string(),
            TokKind::RBrace => "`}`".to_string(),
            TokKind::LBracket => "`[`".to_string(),
            TokKind::RBracket => "`]`".to_string(),
            TokKind::LParen => "`(`".to_string(),
            TokKind::RParen => "`)`".to_string(),
            TokKind::Comma => "`,`".to_string(),
            TokKind::Semi => "`;`".to_string(),
            TokKind::Newline => "the end of the line".to_string(),
            TokKind::Comment(_) => "a comment".to_string(),
            TokKind::Bad => "an invalid token".to_string(),
            TokKind::Eof => "the end of the file".to_string(),
        }
    }

    fn unexpected(&mut self, expected: &str, help: &str) {
        let t = self.tok();
        if t.kind == TokKind::Bad {
            return; // reported by the lexer
        }
        let found = self.describe(t);
        let span = if t.kind == TokKind::Newline || t.kind == TokKind::Eof {
            Span::at(t.span.start as usize)
        } else {
            t.span
        };
        self.diagnostics.push(
            Diagnostic::new(
                Code::UnexpectedToken,
                format!("expected {expected}, found {found}"),
                self.label(span, format!("expected {expected}")),
            )
            .with_help(help),
        );
    }

    // ---- statements ---------------------------------------------------------------------

    /// Statements and trivia up to the `}` of a block (`open` is its `{`) or the end of the
    /// file. Consumes the `}`.
    fn items(&mut self, open: Option<(Span, &str)>) -> (Vec<Statement>, Vec<Trivia>) {
        let mut statements: Vec<Statement> = Vec::new();
        let mut trivia: Vec<Trivia> = Vec::new();
        let mut newlines = 0usize;
        // Right after a statement, before any newline: a comment trails that statement.
        let mut can_trail = false;
        loop {
            match self.peek() {
                TokKind::Newline => {
                    newlines += 1;
                    can_trail = false;
                    self.bump();
                }
                TokKind::Semi => {
                    self.bump();
                }
                TokKind::Comment(id) => {
                    let span = self.bump().span;
                    let comment = Comment {
                        text: self.take_string(*id),
                        span,
                    };
                    match statements.last_mut() {
                        Some(last) if can_trail && last.trailing.is_none() => {
                            last.trailing = Some(comment);
                        }
                        _ => {
                            if newlines >= 2 {
                                blank_line(&statements, &mut trivia);
                            }
                            trivia.push(Trivia::Comment(comment));
                        }
                    }
                    can_trail = false;
                    newlines = 0;
                }
                TokKind::RBrace => {
                    if open.is_some() {
                        self.bump();
                        trim_blank_lines(&mut trivia);
                        return (statements, trivia);
                    }
                    let span = self.bump().span;
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::UnexpectedClose,
                            "this `}` closes no block",
                            self.label(span, "no `{` is open here"),
                        )
                        .with_help("remove this `}`, or add the `{` it should close"),
                    );
                }
                TokKind::RBracket | TokKind::RParen => {
                    let t = self.bump();
                    let c = self.slice(t.span).to_string();
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::UnexpectedClose,
                            format!("this `{c}` closes nothing"),
                            self.label(t.span, format!("no `{}` is open here", opener(&c))),
                        )
                        .with_help(format!(
                            "remove this `{c}`, or add the `{}` it should close",
                            opener(&c)
                        )),
                    );
                }
                TokKind::Eof => {
                    if let Some((open_span, name)) = open {
                        self.report_unclosed_block(open_span, name);
                    }
                    trim_blank_lines(&mut trivia);
                    return (statements, trivia);
                }
                TokKind::Ident => {
                    if newlines >= 2 {
                        blank_line(&statements, &mut trivia);
                    }
                    newlines = 0;
                    if let Some(st) = self.statement(&mut trivia) {
                        statements.push(st);
                    }
                    can_trail = true;
                }
                TokKind::Bad => {
                    self.bump();
                    self.skip_to_boundary();
                }
                _ => {
                    self.unexpected(
                        "a statement (a name such as `repo`)",
                        "every statement starts with a name: `name value… { … }`",
                    );
                    self.skip_to_boundary();
                }
            }
        }
    }

    fn report_unclosed_block(&mut self, open: Span, name: &str) {
        if self.reported_eof {
            return;
        }
        self.reported_eof = true;
        let end = self.text.len();
        let diagnostic = match self.suspect.take() {
            Some(sus) => Diagnostic::new(
                Code::UnclosedBlock,
                format!("the block of `{}` is never closed", sus.name),
                self.label(sus.open, "this `{` has no matching `}`"),
            )
            .with_label(self.label(
                sus.close,
                format!(
                    "this `}}` closes `{}`, but is indented like the end of an outer block",
                    sus.name
                ),
            ))
            .with_label(self.label(Span::at(end), "so the file ends inside a block"))
            .with_help(format!("add the `}}` of `{}` before this one", sus.name)),
            None => Diagnostic::new(
                Code::UnclosedBlock,
                format!("the block of `{name}` is never closed"),
                self.label(open, "this `{` has no matching `}`"),
            )
            .with_label(self.label(Span::at(end), "the file ends here"))
            .with_help(format!(
                "add a `}}` where the block of `{name}` should end (a `}}` may be missing in a block inside it)"
            )),
        };
        self.diagnostics.push(diagnostic);
    }

    /// `name value* block?` and its terminator. `leading` is taken only on success.
    fn statement(&mut self, leading: &mut Vec<Trivia>) -> Option<Statement> {
        let name_tok = self.bump();
        let name = Ident {
            name: self.slice(name_tok.span).to_string(),
            span: name_tok.span,
        };
        self.hoisted.clear();
        let mut args = Vec::new();
        while matches!(
            self.peek(),
            TokKind::Ident
                | TokKind::Int(_)
                | TokKind::Str { .. }
                | TokKind::LBracket
                | TokKind::Bad
        ) {
            match self.value() {
                Ok(v) => args.push(v),
                Err(Failed) => {
                    self.hoisted.clear();
                    self.skip_to_boundary();
                    return None;
                }
            }
        }
        let hoisted = std::mem::take(&mut self.hoisted);
        let mut block = None;
        if *self.peek() == TokKind::LBrace {
            match self.block(&name) {
                Ok(b) => block = Some(b),
                Err(Failed) => {
                    self.skip_to_boundary();
                    return None;
                }
            }
        }
        let end = block
            .as_ref()
            .map(|b| b.span)
            .or_else(|| args.last().map(Value::span))
            .unwrap_or(name.span);
        let span = name.span.to(end);
        match self.peek() {
            TokKind::Newline | TokKind::Eof | TokKind::RBrace | TokKind::Comment(_) => {}
            TokKind::Semi => {
                self.bump();
            }
            TokKind::LParen => {
                self.unexpected(
                    "a value, `{` or the end of the statement",
                    "a `(` only follows the name of a call, as in `file(\"x\")`",
                );
                self.skip_to_boundary();
            }
            _ => {
                let help = if block.is_some() {
                    "put the next statement on its own line, or separate it with `;`"
                } else {
                    "end the statement with a newline or `;`"
                };
                self.unexpected("the end of the statement", help);
                self.skip_to_boundary();
            }
        }
        let mut leading = std::mem::take(leading);
        leading.extend(hoisted.into_iter().map(Trivia::Comment));
        Some(Statement {
            name,
            args,
            block,
            leading,
            trailing: None,
            span,
        })
    }

    fn enter(&mut self, open: Span) -> Result<(), Failed> {
        if self.depth >= MAX_DEPTH {
            if !self.reported_depth {
                self.reported_depth = true;
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::NestingTooDeep,
                        format!("blocks, lists and calls nest more than {MAX_DEPTH} deep"),
                        self.label(open, format!("this is nesting level {}", self.depth + 1)),
                    )
                    .with_help(format!(
                        "flatten the spec: taskc reads at most {MAX_DEPTH} levels of `{{`, `[` and `(`"
                    )),
                );
            }
            self.skip_balanced();
            return Err(Failed);
        }
        self.depth += 1;
        Ok(())
    }

    fn block(&mut self, name: &Ident) -> Result<Block, Failed> {
        let open = self.tok().span;
        self.enter(open)?;
        self.bump();
        let (statements, dangling) = self.items(Some((open, &name.name)));
        self.depth -= 1;
        // items() consumed the `}` unless the file ended.
        let last = self.toks[self.pos.saturating_sub(1)].span;
        if self.suspect.is_none() && self.text.get(last.range()) == Some("}") {
            if let (Some(close_indent), Some(open_indent)) =
                (self.own_line_indent(last), self.line_indent(name.span))
            {
                if close_indent < open_indent {
                    self.suspect = Some(Suspect {
                        open,
                        name: name.name.clone(),
                        close: last,
                    });
                }
            }
        }
        Ok(Block {
            statements,
            dangling,
            span: Span::new(open.start as usize, last.end as usize),
        })
    }

    /// The indentation (in characters) of the line holding `span`, if only blanks precede it.
    fn own_line_indent(&self, span: Span) -> Option<usize> {
        let before = self.text.get(..span.start as usize)?;
        let line = before.rsplit('\n').next().unwrap_or(before);
        line.chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| line.chars().count())
    }

    /// The indentation of the line holding `span`.
    fn line_indent(&self, span: Span) -> Option<usize> {
        let before = self.text.get(..span.start as usize)?;
        let line = before.rsplit('\n').next().unwrap_or(before);
        Some(line.chars().take_while(|c| *c == ' ' || *c == '\t').count())
    }

    // ---- values -------------------------------------------------------------------------

    fn value(&mut self) -> Result<Value, Failed> {
        let t = self.tok();
        match &t.kind {
            TokKind::Str { id, style } => {
                self.bump();
                Ok(Value::Str(StrLit {
                    value: self.take_string(*id),
                    style: *style,
                    span: t.span,
                }))
            }
            TokKind::Int(v) => {
                self.bump();
                Ok(Value::Int(IntLit {
                    value: *v,
                    span: t.span,
                }))
            }
            TokKind::Ident => {
                self.bump();
                let name = Ident {
                    name: self.slice(t.span).to_string(),
                    span: t.span,
                };
                if *self.peek() == TokKind::LParen {
                    let (args, end) = self.sequence(TokKind::RParen, ')')?;
                    Ok(Value::Call(Call {
                        span: Span::new(name.span.start as usize, end),
                        name,
                        args,
                    }))
                } else {
                    Ok(Value::Ident(name))
                }
            }
            TokKind::LBracket => {
                let start = t.span.start as usize;
                let (items, end) = self.sequence(TokKind::RBracket, ']')?;
                Ok(Value::List(List {
                    items,
                    span: Span::new(start, end),
                }))
            }
            TokKind::Bad => {
                self.bump();
                Err(Failed)
            }
            _ => {
                self.unexpected(
                    "a value (a string, number, name, call or list)",
                    "values are \"strings\", 42, names, file(\"…\") calls and [lists]",
                );
                Err(Failed)
            }
        }
    }

    /// `( value, … )` or `[ value, … ]`, from the opening token (the current one).
    /// Returns the items and the end offset of the closing token.
    fn sequence(&mut self, close: TokKind, close_ch: char) -> Result<(Vec<Value>, usize), Failed> {
        let open = self.tok().span;
        let open_ch = if close_ch == ')' { '(' } else { '[' };
        let what = if close_ch == ')' { "call" } else { "list" };
        self.enter(open)?;
        self.bump();
        let result = self.sequence_items(open, open_ch, close, close_ch, what);
        self.depth -= 1;
        result
    }

    fn sequence_items(
        &mut self,
        open: Span,
        open_ch: char,
        close: TokKind,
        close_ch: char,
        what: &str,
    ) -> Result<(Vec<Value>, usize), Failed> {
        let mut items = Vec::new();
        loop {
            self.skip_insignificant();
            let t = self.tok();
            match &t.kind {
                k if *k == close => {
                    self.bump();
                    return Ok((items, t.span.end as usize));
                }
                TokKind::Eof | TokKind::RBrace => {
                    self.report_unclosed_sequence(open, open_ch, close_ch, what);
                    return Err(Failed);
                }
                TokKind::RBracket | TokKind::RParen => {
                    let c = self.slice(t.span).to_string();
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::UnexpectedClose,
                            format!("this `{c}` does not close the `{open_ch}` of the {what}"),
                            self.label(t.span, format!("expected `{close_ch}`")),
                        )
                        .with_label(self.label(open, format!("the {what} starts here")))
                        .with_help(format!("close the {what} with `{close_ch}`")),
                    );
                    self.bump();
                    return Ok((items, t.span.end as usize));
                }
                TokKind::Comma => {
                    self.unexpected(
                        &format!("a value or `{close_ch}`"),
                        "remove the extra `,`: items are separated by one comma",
                    );
                    self.skip_balanced_from_inside();
                    return Err(Failed);
                }
                _ => {}
            }
            match self.value() {
                Ok(v) => items.push(v),
                Err(Failed) => {
                    self.skip_balanced_from_inside();
                    return Err(Failed);
                }
            }
            self.skip_insignificant();
            match self.peek() {
                TokKind::Comma => {
                    self.bump();
                }
                k if *k == close => {}
                TokKind::Eof | TokKind::RBrace | TokKind::RBracket | TokKind::RParen => {}
                _ => {
                    let help = if what == "list" {
                        "separate items with `,`; did you forget the `]` that ends the list?"
                    } else {
                        "separate arguments with `,`; did you forget the `)` that ends the call?"
                    };
                    self.unexpected(&format!("`,` or `{close_ch}`"), help);
                    self.skip_balanced_from_inside();
                    return Err(Failed);
                }
            }
        }
    }

    fn report_unclosed_sequence(&mut self, open: Span, open_ch: char, close_ch: char, what: &str) {
        let t = self.tok();
        let at_eof = t.kind == TokKind::Eof;
        if at_eof {
            if self.reported_eof {
                return;
            }
            self.reported_eof = true;
        }
        let where_ = if at_eof {
            "the file ends here".to_string()
        } else {
            format!("expected `{close_ch}` before this `}}`")
        };
        self.diagnostics.push(
            Diagnostic::new(
                Code::UnclosedBlock,
                format!("this `{open_ch}` is never closed"),
                self.label(open, format!("the {what} starts here")),
            )
            .with_label(self.label(Span::at(t.span.start as usize), where_))
            .with_help(format!("add `{close_ch}` at the end of the {what}")),
        );
    }

    /// Newlines and comments inside `[ … ]` and `( … )`; comments move above the statement.
    fn skip_insignificant(&mut self) {
        loop {
            match self.peek() {
                TokKind::Newline => {
                    self.bump();
                }
                TokKind::Comment(id) => {
                    let span = self.bump().span;
                    let text = self.take_string(*id);
                    self.hoisted.push(Comment { text, span });
                }
                _ => return,
            }
        }
    }

    // ---- recovery -----------------------------------------------------------------------

    /// Skip to the next statement boundary: a newline or `;` outside brackets, or a `}` that
    /// closes the enclosing block (not consumed). Iterative: no recursion on nesting.
    fn skip_to_boundary(&mut self) {
        let mut stack: Vec<(TokKind, Span)> = Vec::new();
        loop {
            let t = self.tok();
            match &t.kind {
                TokKind::Eof => {
                    if let Some((_, span)) = stack.iter().find(|(k, _)| *k == TokKind::LBrace) {
                        let span = *span;
                        self.report_unclosed_block(span, "this statement");
                    }
                    return;
                }
                TokKind::Newline | TokKind::Semi if stack.is_empty() => return,
                TokKind::RBrace if !stack.iter().any(|(k, _)| *k == TokKind::LBrace) => {
                    // Closes the enclosing block; open brackets before it are abandoned.
                    return;
                }
                TokKind::LBrace | TokKind::LBracket | TokKind::LParen => {
                    stack.push((t.kind.clone(), t.span));
                }
                TokKind::RBrace => {
                    while let Some((k, _)) = stack.pop() {
                        if k == TokKind::LBrace {
                            break;
                        }
                    }
                }
                TokKind::RBracket | TokKind::RParen => {
                    let want = if t.kind == TokKind::RBracket {
                        TokKind::LBracket
                    } else {
                        TokKind::LParen
                    };
                    if stack.last().map(|(k, _)| k) == Some(&want) {
                        stack.pop();
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// From an opening token (current), skip to just past its matching close, or to a `}`
    /// that closes an enclosing block, or to the end of the file. Iterative.
    fn skip_balanced(&mut self) {
        let mut stack: Vec<TokKind> = Vec::new();
        loop {
            let t = self.tok();
            match &t.kind {
                TokKind::Eof => {
                    self.reported_eof = true; // one error for this region is enough
                    return;
                }
                TokKind::LBrace | TokKind::LBracket | TokKind::LParen => {
                    stack.push(t.kind.clone());
                }
                TokKind::RBrace => {
                    if !stack.contains(&TokKind::LBrace) {
                        return;
                    }
                    while let Some(k) = stack.pop() {
                        if k == TokKind::LBrace {
                            break;
                        }
                    }
                }
                TokKind::RBracket | TokKind::RParen => {
                    let want = if t.kind == TokKind::RBracket {
                        TokKind::LBracket
                    } else {
                        TokKind::LParen
                    };
                    if stack.last() == Some(&want) {
                        stack.pop();
                    }
                }
                _ => {}
            }
            self.bump();
            if stack.is_empty() {
                return;
            }
        }
    }

    /// Inside a list or call after an error: skip past its closing token (one level up).
    fn skip_balanced_from_inside(&mut self) {
        let mut depth = 1usize;
        loop {
            let t = self.tok();
            match &t.kind {
                TokKind::Eof => return,
                TokKind::RBrace => return,
                TokKind::LBracket | TokKind::LParen => depth += 1,
                TokKind::LBrace => {
                    // A block inside a list is an error already; skip it whole.
                    self.skip_balanced();
                    continue;
                }
                TokKind::RBracket | TokKind::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }
}

/// Record a blank line, as the formatter keeps them: never first in a block, never two in a
/// row (a skipped bad statement can leave two).
fn blank_line(statements: &[Statement], trivia: &mut Vec<Trivia>) {
    let something_before = !statements.is_empty() || !trivia.is_empty();
    if something_before && trivia.last() != Some(&Trivia::BlankLine) {
        trivia.push(Trivia::BlankLine);
    }
}

/// No blank line before `}` or the end of the file.
fn trim_blank_lines(trivia: &mut Vec<Trivia>) {
    while trivia.last() == Some(&Trivia::BlankLine) {
        trivia.pop();
    }
}

fn opener(close: &str) -> &'static str {
    match close {
        ")" => "(",
        "]" => "[",
        _ => "{",
    }
}
