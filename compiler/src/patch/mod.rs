//! Unified diffs, parsed for real: which files a patch touches, its hunks and their lines,
//! with spans into the patch file for diagnostics.

pub mod apply;
mod parse;

pub use parse::{parse_patch, PatchError};

use crate::span::Span;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch {
    pub files: Vec<FilePatch>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// Path before, without the `a/` prefix; `None` for a created file (`/dev/null`).
    pub old_path: Option<String>,
    /// Path after, without the `b/` prefix; `None` for a deleted file.
    pub new_path: Option<String>,
    pub hunks: Vec<Hunk>,
    /// `GIT binary patch` or `Binary files … differ`.
    pub binary: bool,
    /// From the `diff --git` (or `---`) line to the end of the last hunk.
    pub span: Span,
}

impl FilePatch {
    /// The path the file has after the patch (or had, if deleted).
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or("")
    }

    /// Lines this file patch adds, in order.
    pub fn added_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .filter(|l| l.kind == LineKind::Added)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    pub lines: Vec<HunkLine>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: LineKind,
    /// The line without its leading marker and without its newline.
    pub text: String,
    /// The whole line in the patch file, marker included, newline excluded.
    pub span: Span,
}
