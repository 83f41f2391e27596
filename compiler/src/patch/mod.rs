//! Unified diffs, parsed for real: which files a patch touches, its hunks and their lines,
//! with spans into the patch file for diagnostics and for editors that rewrite a patch in
//! place. The one diff parser: the checker, the relaxation editor (`lower::relax`) and the
//! runtime's predictions splitter all read patches through it.

mod added;
pub mod apply;
mod git_name;
mod numstat;
mod parse;

pub use added::AddedText;
pub use numstat::numstat_z;
pub use parse::{parse_patch, parse_patch_lenient, PatchError};

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
    /// Every path the file's header lines name, as written, in patch order.
    pub header_paths: Vec<HeaderPath>,
}

/// A path on one of a file's header lines, exactly as the patch writes it: quotes and an
/// `a/`/`b/` prefix included, a `---`/`+++` line's tab and timestamp excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderPath {
    pub line: HeaderLine,
    pub span: Span,
}

/// Which header line a [`HeaderPath`] stands on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderLine {
    /// `diff --git <old> <new>`: the first path.
    GitOld,
    /// `diff --git <old> <new>`: the second path.
    GitNew,
    /// `--- <old>`.
    Old,
    /// `+++ <new>`.
    New,
    RenameFrom,
    RenameTo,
    CopyFrom,
    CopyTo,
}

impl HeaderLine {
    /// The prefix git writes before a path on this line (`a/` on the old side, `b/` on the
    /// new side; rename and copy lines name bare paths).
    pub fn side_prefix(self) -> &'static str {
        match self {
            HeaderLine::GitOld | HeaderLine::Old => "a/",
            HeaderLine::GitNew | HeaderLine::New => "b/",
            HeaderLine::RenameFrom
            | HeaderLine::RenameTo
            | HeaderLine::CopyFrom
            | HeaderLine::CopyTo => "",
        }
    }
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
    /// From the `@@` header line to the hunk's last line.
    pub span: Span,
    /// The `@@ -a,b +c,d @@ section` line alone.
    pub header: Span,
}

impl Hunk {
    /// The text after the header's closing `@@` (a section heading, maybe empty), from the
    /// patch text the hunk was parsed from.
    pub fn section<'t>(&self, text: &'t str) -> &'t str {
        let header = text.get(self.header.range()).unwrap_or("");
        header
            .strip_prefix("@@ ")
            .and_then(|rest| rest.find(" @@").map(|i| &rest[i + 3..]))
            .unwrap_or("")
    }
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
