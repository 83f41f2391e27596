//! Diagnostics for tools: one JSON object per line.

use serde_json::{json, Value};
use taskc_compiler::source::SourceFile;
use taskc_compiler::{Diagnostic, Label, SourceMap};

use super::clamp;

/// One diagnostic as one line of JSON (no trailing newline).
///
/// Fields: `spec` (the spec checked, which may differ from `file`), `code`, `name`, `severity`, `message`, `file`, `line`, `column`, `end_line`,
/// `end_column` (1-based; columns count characters), `span` (`{start, end}` byte offsets),
/// `labels` (every label, the primary one first: `{file, line, column, span, text,
/// primary}`), `help` (string or null).
pub fn render(spec: &str, d: &Diagnostic, sources: &SourceMap) -> String {
    let file = find(sources, d.primary.source.0);
    let (name, line, column, end_line, end_column, span) = match file {
        Some(f) => {
            let r = clamp(f, d.primary.span);
            let (l, c) = f.line_col(r.start);
            let (el, ec) = f.line_col(r.end);
            (f.name.as_str(), l, c, el, ec, r)
        }
        None => ("", 0, 0, 0, 0, 0..0),
    };
    let labels: Vec<Value> = std::iter::once((&d.primary, true))
        .chain(d.secondary.iter().map(|l| (l, false)))
        .map(|(l, primary)| label(sources, l, primary))
        .collect();
    json!({
        "spec": spec,
        "code": d.code.as_str(),
        "name": d.code.name(),
        "severity": d.severity().as_str(),
        "message": d.message,
        "file": name,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "span": {"start": span.start, "end": span.end},
        "labels": labels,
        "help": d.help,
    })
    .to_string()
}

fn find(sources: &SourceMap, id: u32) -> Option<&SourceFile> {
    sources.iter().find(|(i, _)| i.0 == id).map(|(_, f)| f)
}

fn label(sources: &SourceMap, l: &Label, primary: bool) -> Value {
    match find(sources, l.source.0) {
        Some(f) => {
            let r = clamp(f, l.span);
            let (line, column) = f.line_col(r.start);
            json!({
                "file": f.name,
                "line": line,
                "column": column,
                "span": {"start": r.start, "end": r.end},
                "text": l.text,
                "primary": primary,
            })
        }
        None => json!({
            "file": "",
            "line": 0,
            "column": 0,
            "span": {"start": 0, "end": 0},
            "text": l.text,
            "primary": primary,
        }),
    }
}
