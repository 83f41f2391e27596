//! `allow W0800 "reason"`: a warning the curator has reviewed and accepts, with the reason
//! kept in the spec. Warnings of an allowed code are not reported for this spec, so
//! `--deny-warnings` passes on a sound task. Only warnings can be allowed (E0209), and
//! never without a reason (E0210).

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Severity};
use crate::span::Span;
use crate::syntax::ast::{Statement, Value};

use super::{suggest, Cx};

/// Read one `allow` statement; the code is added to [`Cx::allowed`].
pub(crate) fn check_allow(cx: &mut Cx<'_>, stmt: &Statement) {
    cx.no_block(stmt);
    let header = super::fields::header_span(stmt);
    let (code, reason) = match stmt.args.as_slice() {
        [] => {
            cx.emit(
                Diagnostic::new(
                    Code::AllowUnknownCode,
                    "`allow` names no warning code",
                    cx.label(stmt.name.span, "which warning?"),
                )
                .with_help("write `allow W0800 \"<why the warning does not apply>\"`"),
            );
            return;
        }
        [code] => (code, None),
        [code, reason] => (code, Some(reason)),
        [_, _, extra, ..] => {
            cx.invalid(
                extra
                    .span()
                    .to(stmt.args.last().map_or(extra.span(), Value::span)),
                "`allow` takes a warning code and one reason".into(),
                "extra values",
                "write `allow W0800 \"<reason>\"`; allow several codes on separate lines".into(),
            );
            return;
        }
    };
    let (word, span) = match code {
        Value::Ident(i) => (i.name.as_str(), i.span),
        Value::Str(s) => (s.value.as_str(), s.span),
        other => {
            cx.invalid(
                other.span(),
                format!("`allow` expects a warning code, found {}", other.describe()),
                "expected a code like W0800",
                "write `allow W0800 \"<reason>\"`".into(),
            );
            return;
        }
    };
    let Some(code) = known_warning(cx, word, span) else {
        return;
    };
    match reason {
        Some(Value::Str(s)) if !s.value.trim().is_empty() => cx.allowed.push(code),
        Some(Value::Str(s)) => missing_reason(cx, s.span, code),
        Some(other) => cx.invalid(
            other.span(),
            format!(
                "the reason of `allow {code}` must be a string, found {}",
                other.describe()
            ),
            "expected a string",
            format!("write `allow {code} \"<reason>\"`"),
        ),
        None => missing_reason(cx, header, code),
    }
}

fn missing_reason(cx: &mut Cx<'_>, at: Span, code: Code) {
    cx.emit(
        Diagnostic::new(
            Code::AllowMissingReason,
            format!("`allow {code}` gives no reason"),
            cx.label(at, "reason missing"),
        )
        .with_help(format!(
            "say why the warning does not apply here, for reviewers: `allow {code} \"the prompt must name the new function\"`"
        )),
    );
}

/// The warning code `word` names, or the reason it names none (E0209).
fn known_warning(cx: &mut Cx<'_>, word: &str, span: Span) -> Option<Code> {
    let warnings: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| c.severity() == Severity::Warning)
        .map(|c| c.as_str())
        .collect();
    let code = Code::from_code(&word.to_ascii_uppercase())
        .or_else(|| Code::ALL.iter().copied().find(|c| c.name() == word));
    match code {
        Some(c) if c.severity() == Severity::Warning => Some(c),
        Some(c) => {
            let what = match c.severity() {
                Severity::Error => "an error: errors are fixed, not allowed",
                _ => "a note: notes never fail a check",
            };
            cx.emit(
                Diagnostic::new(
                    Code::AllowUnknownCode,
                    format!("`{word}` ({}) is {what}", c.name()),
                    cx.label(span, "not a warning"),
                )
                .with_help(format!(
                    "only warnings can be allowed: {}",
                    suggest::list(warnings.iter().copied())
                )),
            );
            None
        }
        None => {
            cx.emit(
                Diagnostic::new(
                    Code::AllowUnknownCode,
                    format!("`{word}` is not a warning code"),
                    cx.label(span, "unknown code"),
                )
                .with_help(format!(
                    "{}warnings that can be allowed: {} (see docs/diagnostics.md)",
                    suggest::did_you_mean(word, warnings.iter().copied()),
                    suggest::list(warnings.iter().copied())
                )),
            );
            None
        }
    }
}
