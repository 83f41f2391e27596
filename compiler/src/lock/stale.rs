//! Telling when a lock no longer matches its spec, as W0900 / E0901 diagnostics.

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::lower::{LowerError, LowerOptions};
use crate::model::Task;
use crate::span::{SourceId, Span};

use super::{lock_inputs, Lock, LockError};

/// One input whose digest changed since the lock was written (`None`: absent on that side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleInput {
    /// e.g. `spec`, `gold.proxy`, `sources.docs`, `plan`.
    pub name: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Inputs that differ between `lock` and `task` (default lowering options).
pub fn stale_inputs(task: &Task, lock: &Lock) -> Result<Vec<StaleInput>, LowerError> {
    stale_inputs_with(task, lock, &LowerOptions::default())
}

/// Inputs that differ between `lock` and `task` lowered with `opts` (pass the project's
/// base-image override, as `verify` did).
pub fn stale_inputs_with(
    task: &Task,
    lock: &Lock,
    opts: &LowerOptions,
) -> Result<Vec<StaleInput>, LowerError> {
    let now = lock_inputs(task, opts)?.flat();
    let then = lock.inputs.flat();
    let mut names: Vec<&String> = now.keys().chain(then.keys()).collect();
    names.sort();
    names.dedup();
    let mut stale: Vec<StaleInput> = names
        .into_iter()
        .filter(|n| now.get(*n) != then.get(*n))
        .map(|n| StaleInput {
            name: n.clone(),
            old: then.get(n).cloned(),
            new: now.get(n).cloned(),
        })
        .collect();
    stale.extend(line_numbered_doc_tests(lock));
    Ok(stale)
}

/// A lock written before cargo doc-test ids lost their line numbers (`src/lib.rs - add
/// (line 9)`, now `src/lib.rs - add`) is stale, not mapped: the current parser never
/// reports such an id, so scoring against it would count every doc-test missing, and
/// which ordinal (` #2`) an old id maps to is only known from a new run. One entry
/// `oracle.<repo>` per target whose oracle holds one.
fn line_numbered_doc_tests(lock: &Lock) -> Vec<StaleInput> {
    lock.repos
        .iter()
        .filter(|(_, r)| {
            r.f2p
                .iter()
                .chain(&r.p2p)
                .chain(&r.skipped)
                .chain(r.dropped.iter().map(|d| &d.test))
                .any(|id| is_line_numbered_doc_test(id))
        })
        .map(|(repo, _)| StaleInput {
            name: format!("oracle.{repo}"),
            old: Some("doc-test ids with `(line N)`".into()),
            new: Some("doc-test ids without line numbers".into()),
        })
        .collect()
}

/// rustdoc's `src/lib.rs - add (line 9)` (with ` - compile` / ` - compile fail` after it).
pub fn is_line_numbered_doc_test(id: &str) -> bool {
    let Some(at) = id.rfind(" (line ") else {
        return false;
    };
    let (item, rest) = id.split_at(at);
    let Some((line, after)) = rest[" (line ".len()..].split_once(')') else {
        return false;
    };
    !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && (after.is_empty() || after.starts_with(" - "))
        && (item.contains(".rs - ") || item.ends_with(".rs -"))
}

/// Span of the line in `text` that sets input `name` (`gold.proxy` → `proxy = …` under
/// `[inputs.gold]`), or of the `[inputs]` header, or the start of the file.
fn input_span(text: &str, name: &str) -> Span {
    let (table, key) = match name.split_once('.') {
        Some((group, key)) => (format!("[inputs.{group}]"), key),
        None => ("[inputs]".to_string(), name),
    };
    let mut offset = 0;
    let mut in_table = false;
    let mut header = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            in_table = t == table;
            if in_table {
                header = Some(Span::new(offset, offset + line.trim_end().len()));
            }
        } else if in_table {
            let k = t.split('=').next().unwrap_or("").trim().trim_matches('"');
            if k == key {
                return Span::new(offset, offset + line.trim_end().len());
            }
        }
        offset += line.len();
    }
    header.unwrap_or_default()
}

fn short(d: &Option<String>) -> String {
    match d {
        Some(d) if d.len() > 12 && !d.contains('-') => d[..12].to_string(),
        Some(d) => d.clone(),
        None => "(none)".to_string(),
    }
}

/// W0900 for a stale lock: one diagnostic, one label per changed input (in the lock file
/// `lock_source`, whose text is `lock_text`). `None` when nothing changed.
pub fn stale_lock_diagnostic(
    lock_path: &str,
    spec_path: &str,
    lock_source: SourceId,
    lock_text: &str,
    stale: &[StaleInput],
) -> Option<Diagnostic> {
    let first = stale.first()?;
    let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
    let label = |s: &StaleInput| {
        Label::new(
            lock_source,
            input_span(lock_text, &s.name),
            format!(
                "`{}` changed: {} → {}",
                s.name,
                short(&s.old),
                short(&s.new)
            ),
        )
    };
    let mut d = Diagnostic::new(
        Code::StaleLock,
        format!(
            "`{lock_path}` was written for other inputs: {} changed ({})",
            if stale.len() == 1 {
                "1 input".to_string()
            } else {
                format!("{} inputs", stale.len())
            },
            names.join(", ")
        ),
        label(first),
    )
    .with_help(format!(
        "re-run `taskc verify {spec_path}` to derive the oracle again and rewrite the lock"
    ));
    for s in &stale[1..] {
        d = d.with_label(label(s));
    }
    Some(d)
}

/// E0901 for a lock that cannot be read.
pub fn invalid_lock_diagnostic(
    lock_path: &str,
    spec_path: &str,
    lock_source: SourceId,
    err: &LockError,
) -> Diagnostic {
    let span = match err {
        LockError::Toml {
            span: Some((a, b)), ..
        } => Span::new(*a, *b),
        _ => Span::default(),
    };
    Diagnostic::new(
        Code::InvalidLock,
        format!("cannot read `{lock_path}`: {err}"),
        Label::new(lock_source, span, "here"),
    )
    .with_help(format!(
        "lock files are written by taskc; delete it and re-run `taskc verify {spec_path}`"
    ))
}
