//! The texts a compilation reads: the spec itself and every file it names.
//! Diagnostics point into them by [`SourceId`] and [`Span`].

use crate::span::{LineIndex, SourceId, Span};

/// One text with its display name (a path relative to where the user ran taskc).
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    lines: LineIndex,
}

impl SourceFile {
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        self.lines.line_col(&self.text, offset)
    }

    pub fn line_span(&self, line: usize) -> Option<Span> {
        self.lines.line_span(&self.text, line)
    }
}

/// Every text of one compilation, addressed by [`SourceId`].
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> SourceId {
        let text = text.into();
        let lines = LineIndex::new(&text);
        self.files.push(SourceFile {
            name: name.into(),
            text,
            lines,
        });
        SourceId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: SourceId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = (SourceId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (SourceId(i as u32), f))
    }
}
