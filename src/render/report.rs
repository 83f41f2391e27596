//! An adapter that lets miette draw a `compiler::Diagnostic`.
//!
//! The primary label's source is the report's source; labels in other sources (a patch
//! file, the prompt) become notes, one per source, each drawn below with its own snippet.

use std::fmt;
use std::sync::Arc;

use miette::{LabeledSpan, NamedSource, SourceCode};
use taskc_compiler::{Diagnostic, Label, Severity, SourceId, SourceMap};

use super::clamp;

/// A diagnostic (or a note of one) as miette sees it.
#[derive(Debug)]
pub struct Report {
    message: String,
    code: Option<String>,
    severity: miette::Severity,
    help: Option<String>,
    source: NamedSource<Arc<str>>,
    labels: Vec<LabeledSpan>,
    notes: Vec<Report>,
}

impl Report {
    /// Build the report for `d`, whose labels point into `sources`.
    pub fn new(d: &Diagnostic, sources: &SourceMap) -> Report {
        let primary_source = d.primary.source;
        let mut own = vec![labeled(sources, &d.primary, true)];
        let mut others: Vec<(SourceId, Vec<LabeledSpan>)> = Vec::new();
        for label in &d.secondary {
            if label.source == primary_source {
                own.push(labeled(sources, label, false));
                continue;
            }
            let l = labeled(sources, label, false);
            match others.iter_mut().find(|(id, _)| *id == label.source) {
                Some((_, ls)) => ls.push(l),
                None => others.push((label.source, vec![l])),
            }
        }
        let notes = others
            .into_iter()
            .map(|(id, labels)| {
                let name = name_of(sources, id);
                Report {
                    message: format!("see {name}"),
                    code: None,
                    severity: miette::Severity::Advice,
                    help: None,
                    source: named(sources, id),
                    labels,
                    notes: Vec::new(),
                }
            })
            .collect();
        Report {
            message: printable(&d.message).into_owned(),
            code: Some(format!("{} ({})", d.code.as_str(), d.code.name())),
            severity: match d.severity() {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
            },
            help: d.help.as_deref().map(|h| printable(h).into_owned()),
            source: named(sources, primary_source),
            labels: own,
            notes,
        }
    }

    /// Notes about labels in other sources than the report's, to draw after it.
    pub fn notes(&self) -> &[Report] {
        &self.notes
    }
}

fn in_range(sources: &SourceMap, id: SourceId) -> bool {
    sources.iter().any(|(i, _)| i == id)
}

fn name_of(sources: &SourceMap, id: SourceId) -> String {
    if in_range(sources, id) {
        sources.get(id).name.clone()
    } else {
        "<unknown source>".to_string()
    }
}

fn named(sources: &SourceMap, id: SourceId) -> NamedSource<Arc<str>> {
    if in_range(sources, id) {
        let f = sources.get(id);
        NamedSource::new(f.name.clone(), Arc::from(printable(&f.text).as_ref()))
    } else {
        NamedSource::new("<unknown source>", Arc::from(""))
    }
}

/// `text` with ASCII control characters other than tab and line ends shown as `?`: a NUL
/// or an escape sequence in a spec must not reach the terminal. One byte for one byte, so
/// spans still line up.
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r');
    if text.contains(bad) {
        text.replace(bad, "?").into()
    } else {
        text.into()
    }
}

fn labeled(sources: &SourceMap, label: &Label, primary: bool) -> LabeledSpan {
    let range = if in_range(sources, label.source) {
        let file = sources.get(label.source);
        let mut r = clamp(file, label.span);
        // An empty span at the very end, after the last newline, sits on a line miette
        // cannot draw: show it at the end of the last line instead.
        if r.is_empty() && r.start == file.text.len() && file.text.ends_with('\n') {
            r = r.start - 1..r.start - 1;
        }
        r
    } else {
        0..0
    };
    let text = (!label.text.is_empty()).then(|| printable(&label.text).into_owned());
    let span = (range.start, range.end - range.start);
    if primary {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}
