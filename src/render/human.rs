//! Diagnostics for people: miette's graphical reports, with or without colour.

use miette::{GraphicalReportHandler, GraphicalTheme};
use taskc_compiler::{Diagnostic, SourceMap};

use super::report::Report;

/// The width reports are wrapped to, fixed so output is the same on every terminal.
pub const WIDTH: usize = 100;

/// Renders diagnostics as miette graphical reports.
pub struct Human {
    handler: GraphicalReportHandler,
}

impl Human {
    /// A renderer drawing with unicode characters, in colour if `color`.
    pub fn new(color: bool) -> Human {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        Human {
            handler: GraphicalReportHandler::new_themed(theme)
                .with_width(WIDTH)
                .with_links(false),
        }
    }

    /// One diagnostic as text, ending with a newline.
    pub fn render(&self, d: &Diagnostic, sources: &SourceMap) -> String {
        let report = Report::new(d, sources);
        let mut out = String::new();
        let drawn = self.handler.render_report(&mut out, &report).is_ok()
            && report
                .notes()
                .iter()
                .all(|n| self.handler.render_report(&mut out, n).is_ok());
        if !drawn {
            // Rendering into a String only fails if a snippet cannot be read; fall back to
            // the plain facts rather than losing the diagnostic.
            out = plain(d, sources);
        }
        out
    }
}

/// `file:line:col: severity[CODE]: message` — the fallback when a report cannot be drawn.
pub fn plain(d: &Diagnostic, sources: &SourceMap) -> String {
    let (file, line, col) = match sources.iter().find(|(id, _)| *id == d.primary.source) {
        Some((_, f)) => {
            let (l, c) = f.line_col(d.primary.span.start as usize);
            (f.name.clone(), l, c)
        }
        None => ("<unknown source>".to_string(), 0, 0),
    };
    format!(
        "{file}:{line}:{col}: {}[{}]: {}\n",
        d.severity().as_str(),
        d.code.as_str(),
        d.message
    )
}

/// `checked 5 specs: 2 errors, 1 warning`.
pub fn summary(verb: &str, specs: usize, errors: usize, warnings: usize) -> String {
    format!(
        "{verb} {specs} {}: {errors} {}, {warnings} {}",
        plural(specs, "spec", "specs"),
        plural(errors, "error", "errors"),
        plural(warnings, "warning", "warnings"),
    )
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}
