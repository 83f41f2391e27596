//! An adapter that lets miette draw a `compiler::Diagnostic`.
//!
//! The primary label's source is the report's source; labels in other sources (a patch
//! file, the prompt) become notes, one per source, each drawn below with its own snippet.

use std::fmt;

use miette::{LabeledSpan, SourceCode};
use taskc_compiler::source::SourceFile;
use taskc_compiler::{Diagnostic, Label, Severity, SourceId, SourceMap, Span};

use super::clamp;
use super::shorten::Shortened;

/// A diagnostic (or a note of one) as miette sees it.
#[derive(Debug)]
pub struct Report {
    message: String,
    code: Option<String>,
    severity: miette::Severity,
    help: Option<String>,
    source: Shortened,
    labels: Vec<LabeledSpan>,
    notes: Vec<Report>,
}

impl Report {
    /// Build the report for `d`, whose labels point into `sources`.
    pub fn new(d: &Diagnostic, sources: &SourceMap) -> Report {
        let primary_source = d.primary.source;
        // Labels by source, the primary label's source first.
        let mut groups: Vec<(SourceId, Vec<(&Label, bool)>)> =
            vec![(primary_source, vec![(&d.primary, true)])];
        for label in &d.secondary {
            match groups.iter_mut().find(|(id, _)| *id == label.source) {
                Some((_, ls)) => ls.push((label, false)),
                None => groups.push((label.source, vec![(label, false)])),
            }
        }
        let mut drawn = groups
            .into_iter()
            .map(|(id, labels)| (id, snippet(sources, id, &labels)));
        let (source, labels) = match drawn.next() {
            Some((_, s)) => s,
            None => snippet(sources, primary_source, &[]),
        };
        let notes = drawn
            .map(|(id, (source, labels))| Report {
                message: format!("see {}", name_of(sources, id)),
                code: None,
                severity: miette::Severity::Advice,
                help: None,
                source,
                labels,
                notes: Vec::new(),
            })
            .collect();
        Report {
            message: printable(&d.message).into_owned(),
            code: Some(format!("{} ({})", d.code.as_str(), d.code.name())),
            severity: match d.severity() {
                Severity::Error => miette::Severity::Error,
                Severity::Warning => miette::Severity::Warning,
                Severity::Note => miette::Severity::Advice,
            },
            help: d.help.as_deref().map(|h| printable(h).into_owned()),
            source,
            labels,
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

/// The (shortened) text of source `id` and `labels` placed in it.
fn snippet(
    sources: &SourceMap,
    id: SourceId,
    labels: &[(&Label, bool)],
) -> (Shortened, Vec<LabeledSpan>) {
    if !in_range(sources, id) {
        let source = Shortened::new("<unknown source>".into(), "", &[]);
        let spans = labels.iter().map(|(l, p)| labeled(l, 0..0, *p)).collect();
        return (source, spans);
    }
    let file = sources.get(id);
    let ranges: Vec<std::ops::Range<usize>> =
        labels.iter().map(|(l, _)| range(file, l.span)).collect();
    let points: Vec<usize> = ranges.iter().flat_map(|r| [r.start, r.end]).collect();
    let source = Shortened::new(file.name.clone(), &printable(&file.text), &points);
    let spans = labels
        .iter()
        .zip(ranges)
        .map(|((l, p), r)| labeled(l, source.range(r), *p))
        .collect();
    (source, spans)
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

/// A label's span in `file`, clamped, on a line miette can draw.
fn range(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let mut r = clamp(file, span);
    // An empty span at the very end, after the last newline, sits on a line miette
    // cannot draw: show it at the end of the last line instead.
    if r.is_empty() && r.start == file.text.len() && file.text.ends_with('\n') {
        r = r.start - 1..r.start - 1;
    }
    r
}

fn labeled(label: &Label, range: std::ops::Range<usize>, primary: bool) -> LabeledSpan {
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
