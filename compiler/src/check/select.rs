//! `select "… {ids} …"` in a `test` block: the command that runs only given tests, for a
//! parser taskc cannot narrow by itself (`docs/language.md`, "Test selection").

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::lower::IDS_PLACEHOLDER;
use crate::parser::LogParser;
use crate::syntax::ast::Statement;

use super::Cx;

/// The template of a `select` statement of `repo`'s test block, whose parser is `parser`:
/// a string holding `{ids}` exactly once, on a parser taskc does not narrow natively.
pub(super) fn template(
    cx: &mut Cx<'_>,
    repo: &str,
    parser: LogParser,
    stmt: &Statement,
) -> Option<String> {
    let (text, span) = cx.string(stmt)?;
    let count = text.matches(IDS_PLACEHOLDER).count();
    if count != 1 {
        let (message, label) = if count == 0 {
            (
                format!("the `select` template of `{repo}` does not contain `{IDS_PLACEHOLDER}`"),
                "no `{ids}` here",
            )
        } else {
            (
                format!(
                    "the `select` template of `{repo}` contains `{IDS_PLACEHOLDER}` {count} times"
                ),
                "more than one `{ids}`",
            )
        };
        cx.emit(
            Diagnostic::new(Code::SelectWithoutIds, message, cx.label(span, label))
                .with_help(format!(
                    "write `{IDS_PLACEHOLDER}` once where the test ids go, e.g. \
                     `select \"node scripts/jest-only.js {IDS_PLACEHOLDER}\"`: taskc replaces it with the \
                     ids, each quoted as one shell word"
                )),
        );
        return None;
    }
    if parser.narrows_through_environment() {
        cx.emit(
            Diagnostic::new(
                Code::SelectNotNeeded,
                format!(
                    "`{repo}` gives a `select` template, but taskc narrows `{parser}` commands itself"
                ),
                cx.label(stmt.name.span.to(span), "not needed"),
            )
            .with_help(format!(
                "remove the `select` statement: a narrowed `{parser}` run keeps the `run` command \
                 and selects the tests through the environment"
            )),
        );
        return None;
    }
    Some(text)
}
