//! The added lines of one file patch as one text (joined with `\n`), mapped back to the
//! patch: what a relaxation `edit` matches against. The checker finds and locates an edit's
//! text with it; the relaxation editor (`lower::relax`) rewrites the same lines, so both
//! agree on what matches where.

use super::{FilePatch, HunkLine};
use crate::span::Span;

/// The added lines of a [`FilePatch`], joined with `\n`.
#[derive(Debug, Clone)]
pub struct AddedText<'p> {
    /// The joined text (markers and line endings removed).
    pub text: String,
    /// Where each line starts in [`AddedText::text`].
    starts: Vec<usize>,
    /// Each line, and the index of its hunk in the file patch.
    lines: Vec<(usize, &'p HunkLine)>,
}

impl<'p> AddedText<'p> {
    pub fn new(f: &'p FilePatch) -> AddedText<'p> {
        let mut text = String::new();
        let mut starts = Vec::new();
        let mut lines = Vec::new();
        for (h, hunk) in f.hunks.iter().enumerate() {
            for l in hunk
                .lines
                .iter()
                .filter(|l| l.kind == super::LineKind::Added)
            {
                if !lines.is_empty() {
                    text.push('\n');
                }
                starts.push(text.len());
                text.push_str(&l.text);
                lines.push((h, l));
            }
        }
        AddedText {
            text,
            starts,
            lines,
        }
    }

    /// The number of added lines.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The added lines, in order.
    pub fn lines(&self) -> impl Iterator<Item = &'p HunkLine> + '_ {
        self.lines.iter().map(|(_, l)| *l)
    }

    /// The `k`-th added line and the index of its hunk.
    pub fn line(&self, k: usize) -> Option<(usize, &'p HunkLine)> {
        self.lines.get(k).copied()
    }

    /// Where the `k`-th line starts in [`AddedText::text`].
    pub fn line_start(&self, k: usize) -> usize {
        self.starts.get(k).copied().unwrap_or(self.text.len())
    }

    /// The index of the line holding byte `off` of [`AddedText::text`] (a line's `\n`
    /// belongs to it).
    pub fn line_at(&self, off: usize) -> usize {
        match self.starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The span in the patch file of joined bytes `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let at = |off: usize| -> usize {
            let i = self.line_at(off);
            match (self.lines.get(i), self.starts.get(i)) {
                // +1 skips the `+` marker.
                (Some((_, l)), Some(s)) => l.span.start as usize + 1 + (off - s),
                _ => 0,
            }
        };
        Span::new(
            at(start),
            at(end.saturating_sub(1).max(start)) + usize::from(end > start),
        )
    }

    /// Every (possibly overlapping) occurrence of `needle`.
    pub fn occurrences(&self, needle: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = self.text.get(from..).and_then(|t| t.find(needle)) {
            out.push(from + i);
            let step = self.text[from + i..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
            from += i + step;
        }
        out
    }
}
