//! Shared by the checker's integration tests: a plain-text rendering of diagnostics (the
//! CLI does the real miette rendering) and loaders over in-memory and on-disk folders.

#![allow(dead_code)]

use std::fmt::Write;

use taskc_compiler::check::{check_spec, Checked};
use taskc_compiler::loader::MemLoader;
use taskc_compiler::{Label, SourceMap};

/// `file:line:col: text`, the quoted source line, and a caret line under the span.
fn render_label(out: &mut String, sources: &SourceMap, label: &Label, prefix: &str) {
    let file = sources.get(label.source);
    let start = label.span.start as usize;
    let (line, col) = file.line_col(start);
    let _ = writeln!(out, "  {prefix}{}:{line}:{col}: {}", file.name, label.text);
    let line_span = file.line_span(line).unwrap_or_default();
    let text = file.text.get(line_span.range()).unwrap_or("");
    let _ = writeln!(out, "    | {}", text.trim_end_matches('\r'));
    let line_end = line_span.end as usize;
    let end = (label.span.end as usize).min(line_end).max(start);
    let width = file
        .text
        .get(start..end)
        .map(|s| s.chars().count())
        .unwrap_or(0)
        .max(1);
    let _ = writeln!(out, "    | {}{}", " ".repeat(col - 1), "^".repeat(width));
}

/// Every diagnostic of `checked`, as plain text.
pub fn render(checked: &Checked) -> String {
    let mut out = String::new();
    for d in checked.diagnostics.iter() {
        let _ = writeln!(out, "{} {}: {}", d.code, d.severity().as_str(), d.message);
        render_label(&mut out, &checked.sources, &d.primary, "");
        for l in &d.secondary {
            render_label(&mut out, &checked.sources, l, "+ ");
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "  help: {h}");
        }
    }
    if checked.diagnostics.is_empty() {
        out.push_str("no diagnostics\n");
    }
    out
}

/// The spec, the other files, then the rendered diagnostics: one snapshot shows input and
/// output together.
pub fn check_and_render(spec: &str, files: &[(&str, &str)]) -> (Checked, String) {
    let mut loader = MemLoader::new();
    for (path, text) in files {
        loader = loader.with(path, text.as_bytes());
    }
    let checked = check_spec("task/spec.task", spec.as_bytes(), &loader);
    let mut out = String::new();
    let _ = writeln!(out, "--- task/spec.task");
    out.push_str(spec);
    if !spec.ends_with('\n') {
        out.push('\n');
    }
    for (path, text) in files {
        if path.starts_with("repos/") {
            continue;
        }
        let _ = writeln!(out, "--- task/{path}");
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    let _ = writeln!(out, "=== diagnostics");
    out.push_str(&render(&checked));
    (checked, out)
}
