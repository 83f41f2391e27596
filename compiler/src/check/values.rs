//! Reading field values: one string, a word from a fixed set, a list of strings, a
//! `file("…")` call. Wrong shapes are E0203 with what was expected and what was found.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Statement, Value};

use super::fields::header_span;
use super::suggest;
use super::Cx;

impl Cx<'_> {
    /// E0203 on `span`.
    pub(crate) fn invalid(&mut self, span: Span, message: String, label: &str, help: String) {
        self.emit(
            Diagnostic::new(Code::InvalidValue, message, self.label(span, label)).with_help(help),
        );
    }

    /// Report a block on a field that takes none.
    pub(crate) fn no_block(&mut self, stmt: &Statement) {
        if let Some(b) = &stmt.block {
            let name = &stmt.name.name;
            self.invalid(
                b.span,
                format!("`{name}` takes no block"),
                "unexpected block",
                format!("remove the `{{ … }}` after `{name}`"),
            );
        }
    }

    /// The single value of `stmt` (`expected` says what it should be).
    pub(crate) fn single<'d>(&mut self, stmt: &'d Statement, expected: &str) -> Option<&'d Value> {
        let name = &stmt.name.name;
        match stmt.args.as_slice() {
            [v] => Some(v),
            [] => {
                self.invalid(
                    stmt.name.span,
                    format!("`{name}` needs a value: {expected}"),
                    "value missing",
                    format!("write `{name} <{expected}>`"),
                );
                None
            }
            [_, extra @ ..] => {
                let span = extra
                    .iter()
                    .fold(extra[0].span(), |acc, v| acc.to(v.span()));
                self.invalid(
                    span,
                    format!("`{name}` takes one value ({expected}), found {}", stmt.args.len()),
                    "extra values",
                    "remove the extra values, or put several on separate lines if the field repeats"
                        .into(),
                );
                None
            }
        }
    }

    /// A field whose single value is a string.
    pub(crate) fn string(&mut self, stmt: &Statement) -> Option<(String, Span)> {
        self.no_block(stmt);
        let v = self.single(stmt, "a string")?;
        match v {
            Value::Str(s) => Some((s.value.clone(), s.span)),
            other => {
                let found = other.describe();
                self.invalid(
                    other.span(),
                    format!("`{}` expects a string, found {found}", stmt.name.name),
                    "expected a string",
                    format!("quote it: `{} \"…\"`", stmt.name.name),
                );
                None
            }
        }
    }

    /// A field whose single value is one of `words` (E0207 otherwise, with a suggestion).
    pub(crate) fn word(
        &mut self,
        stmt: &Statement,
        words: &[&'static str],
    ) -> Option<(&'static str, Span)> {
        self.no_block(stmt);
        let v = self.single(stmt, &format!("one of {}", words.join(", ")))?;
        self.word_value(&stmt.name.name, v, words)
    }

    /// `v` as one of `words`, for field `field`.
    pub(crate) fn word_value(
        &mut self,
        field: &str,
        v: &Value,
        words: &[&'static str],
    ) -> Option<(&'static str, Span)> {
        let (text, quoted) = match v {
            Value::Ident(i) => (i.name.as_str(), false),
            Value::Str(s) => (s.value.as_str(), true),
            other => {
                self.invalid(
                    other.span(),
                    format!(
                        "`{field}` expects one of {}, found {}",
                        suggest::list(words.iter().copied()),
                        other.describe()
                    ),
                    "expected a name",
                    format!("write e.g. `{field} {}`", words[0]),
                );
                return None;
            }
        };
        if let Some(w) = words.iter().find(|w| **w == text) {
            if quoted {
                self.invalid(
                    v.span(),
                    format!("`{field}` expects a name, found the string \"{text}\""),
                    "remove the quotes",
                    format!("write `{field} {text}`"),
                );
                return None;
            }
            return Some((w, v.span()));
        }
        self.emit(
            Diagnostic::new(
                Code::UnknownKeyword,
                format!("`{text}` is not a valid `{field}`"),
                self.label(v.span(), format!("unknown {field}")),
            )
            .with_help(format!(
                "{}`{field}` accepts: {}",
                suggest::did_you_mean(text, words.iter().copied()),
                suggest::list(words.iter().copied())
            )),
        );
        None
    }

    /// A field whose single value is a list of strings.
    pub(crate) fn string_list(&mut self, stmt: &Statement) -> Option<Vec<String>> {
        self.no_block(stmt);
        let v = self.single(stmt, "a list of strings")?;
        let Value::List(list) = v else {
            self.invalid(
                v.span(),
                format!(
                    "`{}` expects a list of strings, found {}",
                    stmt.name.name,
                    v.describe()
                ),
                "expected a list",
                format!("write `{} [\"a\", \"b\"]`", stmt.name.name),
            );
            return None;
        };
        let mut out = Vec::new();
        let mut ok = true;
        for item in &list.items {
            match item {
                Value::Str(s) => out.push(s.value.clone()),
                other => {
                    ok = false;
                    self.invalid(
                        other.span(),
                        format!(
                            "`{}` lists strings only, found {}",
                            stmt.name.name,
                            other.describe()
                        ),
                        "expected a string",
                        "quote each item".into(),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    /// A `file("…")` value: its path string and the span of the call.
    pub(crate) fn file_call(&mut self, field: &str, v: &Value) -> Option<(String, Span)> {
        match v {
            Value::Call(c) if c.name.name == "file" => match c.args.as_slice() {
                [Value::Str(s)] => Some((s.value.clone(), s.span)),
                _ => {
                    self.invalid(
                        c.span,
                        "`file(…)` takes one string: the path".into(),
                        "expected file(\"<path>\")",
                        "write `file(\"relative/path\")`".into(),
                    );
                    None
                }
            },
            other => {
                self.invalid(
                    other.span(),
                    format!("`{field}` expects file(\"…\"), found {}", other.describe()),
                    "expected file(\"<path>\")",
                    format!("write `{field} file(\"relative/path\")`"),
                );
                None
            }
        }
    }

    /// A statement that must carry a block; reports E0203 at its header if not.
    pub(crate) fn needs_block<'d>(
        &mut self,
        stmt: &'d Statement,
    ) -> Option<&'d crate::syntax::ast::Block> {
        match &stmt.block {
            Some(b) => Some(b),
            None => {
                let name = &stmt.name.name;
                let head = self.spec_text(header_span(stmt)).to_string();
                self.invalid(
                    header_span(stmt),
                    format!("`{name}` needs a `{{ … }}` block"),
                    "block missing",
                    format!("write `{head} {{ … }}`"),
                );
                None
            }
        }
    }
}
