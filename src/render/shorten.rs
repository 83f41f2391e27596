//! Long lines, shortened for display (as rustc does): a line longer than [`MAX_LINE`] bytes
//! keeps a window around every label point on it, the rest becomes `…`. Line numbers stay
//! true (no line is removed), and so do the columns in a report's header: the shortened
//! text remembers where each kept piece came from.
//!
//! Without this, miette pads underlines with `{:width$}`, which panics past 65,535 columns
//! (`Formatting argument out of range`), and a 5 MB line would be printed whole.

use std::ops::Range;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// Lines longer than this (in bytes) are shortened.
pub const MAX_LINE: usize = 180;
/// Bytes kept on each side of a label point on a long line.
const AROUND: usize = 50;
/// Bytes kept at the start of a long line with no label point on it.
const HEAD: usize = 120;
/// What stands for the bytes left out.
const ELLIPSIS: &str = "…";

/// A text with its long lines shortened, and the map back to the original offsets.
#[derive(Debug, Clone)]
pub struct Shortened {
    name: String,
    text: String,
    /// Kept pieces, in order: (offset in `text`, offset in the original). Every offset of
    /// `text` between two pieces' starts maps linearly from the earlier one; an ellipsis maps
    /// to where the left-out bytes began.
    pieces: Vec<(usize, usize)>,
}

impl Shortened {
    /// `text` (named `name`) shortened so that every offset in `points` stays visible.
    /// `points` are byte offsets on character boundaries.
    pub fn new(name: String, text: &str, points: &[usize]) -> Shortened {
        if !text.split('\n').any(|l| l.len() > MAX_LINE) {
            return Shortened {
                name,
                text: text.to_string(),
                pieces: vec![(0, 0)],
            };
        }
        let mut points: Vec<usize> = points.to_vec();
        points.sort_unstable();
        let mut out = String::with_capacity(text.len().min(1 << 20));
        let mut pieces = Vec::new();
        let mut line_start = 0;
        while line_start <= text.len() {
            let line_end = text[line_start..]
                .find('\n')
                .map_or(text.len(), |i| line_start + i);
            let mut cursor = line_start;
            for w in windows(text, line_start, line_end, &points) {
                if w.start > cursor {
                    pieces.push((out.len(), cursor));
                    out.push_str(ELLIPSIS);
                }
                pieces.push((out.len(), w.start));
                out.push_str(&text[w.clone()]);
                cursor = w.end;
            }
            if cursor < line_end {
                pieces.push((out.len(), cursor));
                out.push_str(ELLIPSIS);
            }
            if line_end == text.len() {
                break;
            }
            pieces.push((out.len(), line_end));
            out.push('\n');
            line_start = line_end + 1;
        }
        Shortened {
            name,
            text: out,
            pieces,
        }
    }

    /// The shortened text.
    #[cfg(test)]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where the original offset `orig` is in the shortened text (the nearest kept byte).
    pub fn to_short(&self, orig: usize) -> usize {
        let i = self.pieces.partition_point(|&(_, o)| o <= orig);
        let Some(&(s, o)) = i.checked_sub(1).and_then(|i| self.pieces.get(i)) else {
            return 0;
        };
        let limit = self.pieces.get(i).map_or(self.text.len(), |&(s2, _)| s2);
        let mut at = (s + (orig - o)).min(limit);
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// Where the shortened offset `short` came from in the original text.
    pub fn to_original(&self, short: usize) -> usize {
        let i = self.pieces.partition_point(|&(s, _)| s <= short);
        match i.checked_sub(1).and_then(|i| self.pieces.get(i)) {
            Some(&(s, o)) => o + (short - s),
            None => short,
        }
    }

    /// An original range as a shortened one.
    pub fn range(&self, r: Range<usize>) -> Range<usize> {
        let start = self.to_short(r.start);
        let end = self.to_short(r.end).max(start);
        start..end
    }
}

/// The windows of `text[start..end]` to keep: the whole line when short, else a window
/// around each point on it (merged when they touch), or its head when it has none.
fn windows(text: &str, start: usize, end: usize, points: &[usize]) -> Vec<Range<usize>> {
    if end - start <= MAX_LINE {
        return std::iter::once(start..end).collect();
    }
    let first = points.partition_point(|&p| p < start);
    let mut keep: Vec<Range<usize>> = Vec::new();
    for &p in points[first..].iter().take_while(|&&p| p <= end) {
        let w = floor(text, p.saturating_sub(AROUND).max(start))..ceil(text, (p + AROUND).min(end));
        match keep.last_mut() {
            Some(last) if w.start <= last.end + ELLIPSIS.len() => last.end = last.end.max(w.end),
            _ => keep.push(w),
        }
    }
    if keep.is_empty() {
        keep.extend(std::iter::once(start..floor(text, start + HEAD)));
    }
    keep
}

fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

impl SourceCode for Shortened {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        // The column miette shows is counted in the original line, not the shortened one.
        let at = span.offset();
        let line_start = at.saturating_sub(inner.column());
        let column = self
            .to_original(at)
            .saturating_sub(self.to_original(line_start));
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line(),
            column,
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_kept_whole() {
        let s = Shortened::new("x".into(), "a\nbc\n", &[3]);
        assert_eq!(s.text(), "a\nbc\n");
        assert_eq!(s.range(2..4), 2..4);
    }

    #[test]
    fn a_long_line_keeps_a_window_around_each_point() {
        let line = "x".repeat(1000);
        let text = format!("head\n{line}\ntail\n");
        let point = 5 + 500;
        let s = Shortened::new("x".into(), &text, &[point]);
        let lines: Vec<&str> = s.text().lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "head");
        assert_eq!(lines[2], "tail");
        assert!(lines[1].starts_with('…') && lines[1].ends_with('…'));
        assert!(lines[1].len() <= 2 * AROUND + 2 * ELLIPSIS.len());
        let short = s.to_short(point);
        assert_eq!(s.to_original(short), point);
        // Lines after the cut map back exactly.
        let tail = text.find("tail").unwrap_or(0);
        assert_eq!(&s.text()[s.to_short(tail)..s.to_short(tail) + 4], "tail");
    }

    #[test]
    fn unlabelled_long_lines_keep_their_head() {
        let text = format!("{}\n", "é".repeat(500));
        let s = Shortened::new("x".into(), &text, &[]);
        let first = s.text().lines().next().unwrap_or("");
        assert!(first.ends_with('…'));
        assert!(first.len() <= HEAD + ELLIPSIS.len());
    }

    #[test]
    fn far_apart_points_on_one_line_get_two_windows() {
        let text = "{".repeat(100_000);
        let s = Shortened::new("x".into(), &text, &[0, 99_999]);
        assert_eq!(s.text().matches('…').count(), 1);
        assert_eq!(s.to_original(s.to_short(99_999)), 99_999);
        assert_eq!(s.to_short(0), 0);
    }
}
