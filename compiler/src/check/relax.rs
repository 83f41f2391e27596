//! `relax <repo> { drop …; edit … }`: typed relaxations of a target's hidden tests.

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::model::{RelaxAction, Relaxation, Role, Rule};
use crate::patch::{FilePatch, HunkLine};
use crate::span::Span;
use crate::syntax::ast::{Statement, Value};

use super::fields::{self, header_span, many, once};
use super::patches::LoadedPatch;
use super::repo::RepoDraft;
use super::{suggest, Cx};

const RELAX_FIELDS: &[fields::Field] = &[many("drop"), many("edit"), many("note")];
const DROP_FIELDS: &[fields::Field] = &[once("rule"), once("because")];
const EDIT_FIELDS: &[fields::Field] = &[once("rule"), once("because"), fields::required("replace")];

pub(crate) fn check_relax(cx: &mut Cx<'_>, stmt: &Statement, repos: &mut [RepoDraft]) {
    let names: Vec<String> = repos.iter().map(|r| r.name.clone()).collect();
    let target = match cx.single(stmt, "a repository name") {
        Some(Value::Ident(i)) => Some((i.name.clone(), i.span)),
        Some(other) => {
            cx.invalid(
                other.span(),
                format!("`relax` names a repository, found {}", other.describe()),
                "expected a repository name",
                "write `relax my-repo { … }`".into(),
            );
            None
        }
        None => None,
    };
    let Some(block) = cx.needs_block(stmt) else {
        return;
    };
    let repo_index = target.as_ref().and_then(|(name, span)| {
        let Some(i) = names.iter().position(|n| n == name) else {
            cx.emit(
                Diagnostic::new(
                    Code::UnknownRepository,
                    format!("`relax {name}` names no repository of this task"),
                    cx.label(*span, "unknown repository"),
                )
                .with_help(format!(
                    "{}target repositories: {}",
                    suggest::did_you_mean(name, names.iter().map(String::as_str)),
                    suggest::list(
                        repos
                            .iter()
                            .filter(|r| r.role == Role::Target)
                            .map(|r| r.name.as_str())
                    )
                )),
            );
            return None;
        };
        if repos[i].role == Role::Context {
            cx.emit(
                Diagnostic::new(
                    Code::ContextScored,
                    format!("`{name}` is a context repository: it has no hidden tests to relax"),
                    cx.label(*span, "context repository"),
                )
                .with_label(cx.label(repos[i].name_span, "declared as context here"))
                .with_help(
                    "relaxations apply to a target's hidden tests; remove this `relax` block",
                ),
            );
            return None;
        }
        Some(i)
    });
    let repo_name = target.as_ref().map(|t| t.0.clone()).unwrap_or_default();
    let owner = format!("`relax {repo_name}`");
    let f = fields::read(
        cx,
        &owner,
        header_span(stmt),
        &block.statements,
        RELAX_FIELDS,
    );

    // Free-text relaxations (imported `semantic_changes`): shown, never applied.
    for s in f.all("note") {
        cx.no_block(s);
        if let Some((text, span)) = cx.string(s) {
            cx.emit(
                Diagnostic::new(
                    Code::RelaxNote,
                    format!("the hidden tests of `{repo_name}` were relaxed in free text: {text}"),
                    cx.label(span, "free-text relaxation"),
                )
                .with_help("the note changes nothing that runs: review the hidden test patch, and write what it describes as a typed `drop` or `edit` where it maps onto one"),
            );
        }
    }

    let mut items: Vec<&Statement> = f.all("drop");
    items.extend(f.all("edit"));
    items.sort_by_key(|s| s.span.start);
    let patch = repo_index.and_then(|i| repos[i].test.as_ref().and_then(|t| t.patch.as_ref()));
    let mut found = Vec::new();
    for item in items {
        if let Some(r) = relaxation(cx, &repo_name, item, patch) {
            found.push((r, item));
        }
    }
    let Some(i) = repo_index else {
        return;
    };
    // A dropped test may not also be expected.
    if let Some(test) = &repos[i].test {
        for (r, item) in &found {
            let RelaxAction::Drop { test: id } = &r.action else {
                continue;
            };
            for (kind, expected, span) in &test.expects {
                if expected == id {
                    cx.emit(
                        Diagnostic::new(
                            Code::ExpectDropped,
                            format!("test `{id}` is expected {kind} and also dropped"),
                            cx.label(*span, format!("expected {kind} here")),
                        )
                        .with_label(cx.label(header_span(item), "dropped here"))
                        .with_help("a dropped test leaves the oracle, so it cannot be expected: remove the `expect` or the `drop`"),
                    );
                }
            }
        }
    }
    repos[i]
        .relaxations
        .extend(found.into_iter().map(|(r, _)| r));
}

/// One `drop` or `edit`.
fn relaxation(
    cx: &mut Cx<'_>,
    repo: &str,
    stmt: &Statement,
    patch: Option<&LoadedPatch>,
) -> Option<Relaxation> {
    let kind = stmt.name.name.as_str();
    let subject = match cx.single(
        stmt,
        if kind == "drop" {
            "a test id"
        } else {
            "a file path"
        },
    ) {
        Some(Value::Str(s)) => Some((s.value.clone(), s.span)),
        Some(other) => {
            let example = if kind == "drop" {
                "drop \"tests/test_x.py::test_y\" { … }"
            } else {
                "edit \"tests/test_x.py\" { … }"
            };
            cx.invalid(
                other.span(),
                format!("`{kind}` expects a string, found {}", other.describe()),
                "expected a string",
                format!("write `{example}`"),
            );
            None
        }
        None => None,
    };
    let header = header_span(stmt);
    let block = cx.needs_block(stmt)?;
    let schema = if kind == "drop" {
        DROP_FIELDS
    } else {
        EDIT_FIELDS
    };
    let f = fields::read(cx, &format!("`{kind}`"), header, &block.statements, schema);

    let rule = match f.one("rule") {
        Some(s) => cx
            .word(s, Rule::WORDS)
            .and_then(|(w, _)| w.parse::<Rule>().ok()),
        None => {
            if !cx.syntax_errors {
                cx.emit(
                    Diagnostic::new(
                        Code::RelaxMissingRule,
                        format!("this `{kind}` has no `rule`"),
                        cx.label(header, "relaxation without a rule"),
                    )
                    .with_help("say which review rule allows it: `rule implementation-specific` (the prompt does not fix this detail) or `rule unrequested` (the prompt never asked for this)"),
                );
            }
            None
        }
    };
    let reason = match f.one("because") {
        Some(s) => match cx.string(s) {
            Some((r, span)) if r.trim().is_empty() => {
                cx.emit(
                    Diagnostic::new(
                        Code::RelaxMissingReason,
                        format!("this `{kind}` has an empty `because`"),
                        cx.label(span, "empty reason"),
                    )
                    .with_help("say why the relaxation is fair, citing the prompt, e.g. `because \"the prompt does not fix the error text\"`"),
                );
                None
            }
            other => other.map(|r| r.0),
        },
        None => {
            if !cx.syntax_errors {
                cx.emit(
                    Diagnostic::new(
                        Code::RelaxMissingReason,
                        format!("this `{kind}` has no `because`"),
                        cx.label(header, "relaxation without a reason"),
                    )
                    .with_help("say why the relaxation is fair, citing the prompt, e.g. `because \"the prompt does not fix the error text\"`"),
                );
            }
            None
        }
    };

    let action = if kind == "drop" {
        let (id, span) = subject?;
        if let Some(p) = patch {
            let file = id.split("::").next().unwrap_or(&id);
            if !touches(p, file) {
                cx.emit(
                    Diagnostic::new(
                        Code::DropUnknownFile,
                        format!("`{file}` is not touched by the hidden test patch of `{repo}`"),
                        cx.label(span, "file not in the hidden test patch"),
                    )
                    .with_label(Label::new(p.source, Span::at(0), "the hidden test patch"))
                    .with_help(format!(
                        "{}the hidden test patch touches: {}; test ids are `path::name` relative to the repository's root",
                        suggest::did_you_mean(file, p.file.patch.files.iter().map(FilePatch::path)),
                        suggest::list(p.file.patch.files.iter().map(FilePatch::path))
                    )),
                );
                return None;
            }
        }
        Some(RelaxAction::Drop { test: id })
    } else {
        let replace = f.one("replace").and_then(|s| replace_args(cx, s));
        let (file, span) = subject?;
        let (old, old_span, new) = replace?;
        match patch {
            Some(p) => check_edit(cx, repo, p, &file, span, &old, old_span).then_some(()),
            None => Some(()),
        }
        .map(|_| RelaxAction::Edit {
            // As the patch names it, so lowering finds the file.
            file: file.trim_start_matches("./").to_string(),
            replace: old,
            with: new,
        })
    };
    Some(Relaxation {
        rule: rule?,
        reason: reason?,
        action: action?,
    })
}

fn touches(p: &LoadedPatch, file: &str) -> bool {
    let file = file.trim_start_matches("./");
    p.file.patch.files.iter().any(|f| f.path() == file)
}

/// `replace "<old>" with "<new>"`.
fn replace_args(cx: &mut Cx<'_>, stmt: &Statement) -> Option<(String, Span, String)> {
    cx.no_block(stmt);
    match stmt.args.as_slice() {
        [Value::Str(old), Value::Ident(w), Value::Str(new)] if w.name == "with" => {
            if old.value.is_empty() {
                cx.invalid(
                    old.span,
                    "the text to replace is empty".into(),
                    "empty text",
                    "quote the exact text of the hidden test patch's added lines to replace".into(),
                );
                return None;
            }
            Some((old.value.clone(), old.span, new.value.clone()))
        }
        _ => {
            cx.invalid(
                header_span(stmt),
                "`replace` takes `\"<old>\" with \"<new>\"`".into(),
                "malformed replace",
                "write `replace \"old text\" with \"new text\"` (raw strings r#\"…\"# help with quotes)".into(),
            );
            None
        }
    }
}

/// The added lines of `file` joined with `\n`, with the offset where each line starts.
struct Joined<'p> {
    text: String,
    starts: Vec<usize>,
    lines: Vec<&'p HunkLine>,
}

impl<'p> Joined<'p> {
    fn new(f: &'p FilePatch) -> Joined<'p> {
        let mut text = String::new();
        let mut starts = Vec::new();
        let mut lines = Vec::new();
        for l in f.added_lines() {
            if !lines.is_empty() {
                text.push('\n');
            }
            starts.push(text.len());
            text.push_str(&l.text);
            lines.push(l);
        }
        Joined {
            text,
            starts,
            lines,
        }
    }

    /// The span in the patch file of joined bytes `start..end`.
    fn span(&self, start: usize, end: usize) -> Span {
        let at = |off: usize| -> usize {
            let i = match self.starts.binary_search(&off) {
                Ok(i) => i,
                Err(i) => i.saturating_sub(1),
            };
            // +1 skips the `+` marker.
            self.lines[i].span.start as usize + 1 + (off - self.starts[i])
        };
        Span::new(
            at(start),
            at(end.saturating_sub(1).max(start)) + usize::from(end > start),
        )
    }

    /// Every (possibly overlapping) occurrence of `needle`.
    fn occurrences(&self, needle: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = self.text.get(from..).and_then(|t| t.find(needle)) {
            out.push(from + i);
            let step = self.text[from + i..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
            from += i + step;
        }
        out
    }
}

/// E0605/E0601/E0602 for an `edit`; true when the edit is sound.
fn check_edit(
    cx: &mut Cx<'_>,
    repo: &str,
    p: &LoadedPatch,
    file: &str,
    file_span: Span,
    old: &str,
    old_span: Span,
) -> bool {
    let wanted = file.trim_start_matches("./");
    let Some(fp) = p.file.patch.files.iter().find(|f| f.path() == wanted) else {
        cx.emit(
            Diagnostic::new(
                Code::EditUnknownFile,
                format!("`{file}` is not touched by the hidden test patch of `{repo}`"),
                cx.label(file_span, "file not in the hidden test patch"),
            )
            .with_help(format!(
                "{}an `edit` rewrites the hidden test patch; it touches: {}",
                suggest::did_you_mean(file, p.file.patch.files.iter().map(FilePatch::path)),
                suggest::list(p.file.patch.files.iter().map(FilePatch::path))
            )),
        );
        return false;
    };
    let joined = Joined::new(fp);
    let hits = joined.occurrences(old);
    match hits.len() {
        1 => true,
        0 => {
            let mut d = Diagnostic::new(
                Code::EditTextNotFound,
                format!("the text to replace does not occur in the added lines of `{file}`"),
                cx.label(old_span, "not found in the hidden test patch"),
            );
            let first_line = old
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(old)
                .trim();
            let closest = joined
                .lines
                .iter()
                .map(|l| {
                    (
                        strsim::normalized_levenshtein(l.text.trim(), first_line),
                        *l,
                    )
                })
                .filter(|(score, _)| *score > 0.0)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            match closest {
                Some((_, line)) => {
                    let n = cx
                        .sources
                        .get(p.source)
                        .line_col(line.span.start as usize)
                        .0;
                    d = d
                        .with_label(Label::new(p.source, line.span, format!("closest added line (line {n})")))
                        .with_help(format!(
                            "the closest added line is line {n} of `{}`: `{}`; copy the text exactly (it is matched byte for byte, lines joined with \\n)",
                            p.file.path,
                            line.text.trim()
                        ));
                }
                None => {
                    d = d.with_help(format!(
                        "`{file}` adds no line resembling it; copy the text exactly from the patch's `+` lines"
                    ));
                }
            }
            cx.emit(d);
            false
        }
        n => {
            let mut d = Diagnostic::new(
                Code::EditTextAmbiguous,
                format!("the text to replace occurs {n} times in the added lines of `{file}`"),
                cx.label(old_span, format!("occurs {n} times")),
            )
            .with_help("an edit must name exactly one place: quote more of the surrounding line to make the text unique");
            for (k, start) in hits.iter().enumerate() {
                let span = joined.span(*start, start + old.len());
                d = d.with_label(Label::new(p.source, span, format!("occurrence {}", k + 1)));
            }
            cx.emit(d);
            false
        }
    }
}
