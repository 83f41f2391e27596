//! A small schema-driven reader of a block's statements: unknown fields (with a
//! suggestion), fields given twice, required fields missing.

use std::collections::BTreeMap;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::Statement;

use super::suggest;
use super::Cx;

/// One field a block accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub name: &'static str,
    /// Missing → E0202. Fields whose absence has a dedicated code say `false` here.
    pub required: bool,
    /// May appear more than once.
    pub many: bool,
}

/// A field that may appear at most once.
pub(crate) const fn once(name: &'static str) -> Field {
    Field {
        name,
        required: false,
        many: false,
    }
}

/// A field that must appear exactly once.
pub(crate) const fn required(name: &'static str) -> Field {
    Field {
        name,
        required: true,
        many: false,
    }
}

/// A repeatable field.
pub(crate) const fn many(name: &'static str) -> Field {
    Field {
        name,
        required: false,
        many: true,
    }
}

/// The statements of one block, grouped by field (unknown ones dropped after reporting).
#[derive(Debug, Default)]
pub(crate) struct Fields<'d> {
    by_name: BTreeMap<&'static str, Vec<&'d Statement>>,
}

impl<'d> Fields<'d> {
    /// The (first) statement of a once-only field.
    pub(crate) fn one(&self, name: &str) -> Option<&'d Statement> {
        self.by_name.get(name).and_then(|v| v.first().copied())
    }

    /// Every statement of a field, in order.
    pub(crate) fn all(&self, name: &str) -> Vec<&'d Statement> {
        self.by_name.get(name).cloned().unwrap_or_default()
    }
}

/// The span of a statement without its block: `name value*`.
pub(crate) fn header_span(stmt: &Statement) -> Span {
    stmt.args
        .iter()
        .fold(stmt.name.span, |acc, v| acc.to(v.span()))
}

/// Read `stmts`, the body of `owner` (e.g. "`task`", "repository `proxy`") whose header is at
/// `header`, against `schema`.
pub(crate) fn read<'d>(
    cx: &mut Cx<'_>,
    owner: &str,
    header: Span,
    stmts: &'d [Statement],
    schema: &[Field],
) -> Fields<'d> {
    let mut fields = Fields::default();
    // Fields an unknown one was taken for (`promt` → `prompt`): their absence is that typo,
    // already reported, not another error.
    let mut suggested: Vec<&str> = Vec::new();
    for stmt in stmts {
        let name = stmt.name.name.as_str();
        let Some(field) = schema.iter().find(|f| f.name == name) else {
            let names = schema.iter().map(|f| f.name);
            suggested.extend(suggest::closest(name, names.clone()));
            let help = format!(
                "{}{} accepts: {}",
                suggest::did_you_mean(name, names.clone()),
                owner,
                suggest::list(names)
            );
            cx.emit(
                Diagnostic::new(
                    Code::UnknownField,
                    format!("unknown field `{name}` in {owner}"),
                    cx.label(stmt.name.span, "unknown field"),
                )
                .with_help(help),
            );
            continue;
        };
        let entry = fields.by_name.entry(field.name).or_default();
        if !field.many {
            if let Some(first) = entry.first() {
                cx.emit(
                    Diagnostic::new(
                        Code::DuplicateField,
                        format!("`{name}` is given twice in {owner}"),
                        cx.label(stmt.name.span, "given again here"),
                    )
                    .with_label(cx.label(first.name.span, "first given here"))
                    .with_help(format!("`{name}` may appear once; remove one of them")),
                );
                continue;
            }
        }
        entry.push(stmt);
    }
    for field in schema.iter().filter(|f| f.required) {
        if fields.one(field.name).is_none() && !cx.syntax_errors && !suggested.contains(&field.name)
        {
            cx.emit(
                Diagnostic::new(
                    Code::MissingField,
                    format!("{owner} has no `{}`", field.name),
                    cx.label(header, format!("`{}` is required here", field.name)),
                )
                .with_help(missing_help(field.name)),
            );
        }
    }
    fields
}

/// How to write a required field, shown when it is missing.
fn missing_help(name: &str) -> String {
    let example = match name {
        "kind" => "kind bugfix   (or: kind feature)",
        "prompt" => "prompt file(\"prompt.md\")",
        "verify" => "verify joint   (or: verify per-repo)",
        "env" => "env python { version \"3.11\" }",
        "source" => "source dir(\"repos/<name>\")   (or git(\"<url>\") / bundle(\"<file>.bundle\") with a base)",
        "patch" => "patch file(\"tests/<repo>.patch\")",
        "run" => "run \"python -m pytest -rA tests\"",
        "parser" => "parser pytest",
        "replace" => "replace \"<old text>\" with \"<new text>\"",
        _ => return format!("add a `{name}` field; see docs/language.md"),
    };
    format!("add it, e.g. `{example}`")
}
