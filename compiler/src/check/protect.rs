//! `protect "glob"` in a `repo` or `test` block: more files of the repository's test
//! surface, reverted to base in every scoring run before the hidden tests are applied
//! (`docs/language.md`, `docs/security.md`). Each glob is checked here (E0310).

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::glob::{Glob, GlobError};
use crate::syntax::ast::Statement;

use super::Cx;

/// The globs of the `protect` statements `stmts`, each checked; `None` when one is bad
/// (every bad one is reported).
pub(crate) fn protect_globs(cx: &mut Cx<'_>, stmts: &[&Statement]) -> Option<Vec<String>> {
    let mut ok = true;
    let mut globs = Vec::new();
    for s in stmts {
        let Some((text, span)) = cx.string(s) else {
            ok = false;
            continue;
        };
        match Glob::parse(&text) {
            Ok(g) => globs.push(g.as_str().to_string()),
            Err(e) => {
                ok = false;
                let help = match e {
                    GlobError::Absolute | GlobError::DotSegment(_) | GlobError::GitDir => {
                        "write a path relative to the repository's root, e.g. `protect \"tests/fixtures/**\"`"
                    }
                    GlobError::Unsupported(_) => {
                        "globs know `*` and `?` within a segment and `**` for whole segments; write one `protect` per alternative"
                    }
                    GlobError::PartialDoubleStar(_) => {
                        "use `**` as a whole segment (`a/**/b`) or `*` within one (`a*b`)"
                    }
                    GlobError::Empty | GlobError::EmptySegment => {
                        "name a file or folder: `protect \"conftest.py\"`, `protect \"tests/**\"`"
                    }
                };
                cx.emit(
                    Diagnostic::new(
                        Code::InvalidGlob,
                        format!("`protect` glob `{text}` is not valid: {e}"),
                        cx.label(span, "not a valid glob"),
                    )
                    .with_help(help),
                );
            }
        }
    }
    ok.then_some(globs)
}
