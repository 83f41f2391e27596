//! The unified-diff parser.
//!
//! Accepts what `git diff` / `git format-patch` write (`diff --git` with extended headers,
//! renames, mode changes, binary markers) and plain `---`/`+++` diffs. Text before the first
//! file header (an e-mail preamble) is ignored. Hunk line counts are checked against the hunk
//! header. Line texts and spans exclude the line ending (`\n` or `\r\n`).
//!
//! [`parse_patch`] refuses what is not a valid diff; [`parse_patch_lenient`] reads the same
//! structure out of any text (for splitting an agent's diff by file, where a malformed hunk
//! must reach `git apply` and fail there, charged to the agent, not stop the reading).

use super::git_name;
use super::{FilePatch, HeaderLine, HeaderPath, Hunk, HunkLine, LineKind, Patch};
use crate::span::Span;

/// Why a patch is not a valid unified diff, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    pub message: String,
    /// Where in the patch file (the bad hunk header or line).
    pub span: Span,
    pub help: Option<String>,
}

impl PatchError {
    fn new(message: impl Into<String>, span: Span, help: impl Into<String>) -> PatchError {
        PatchError {
            message: message.into(),
            span,
            help: Some(help.into()),
        }
    }
}

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatchError {}

/// Parse a unified diff. An input without any file header yields an empty [`Patch`]
/// (the caller decides whether that is an error).
pub fn parse_patch(text: &str) -> Result<Patch, PatchError> {
    Parser::new(text, false).run()
}

/// The files, header paths and hunks of `text` as far as they can be read, never failing:
/// what [`parse_patch`] refuses is kept as it stands (a hunk with wrong counts ends where
/// its lines do; a header without hunks is a file with none; lines that fit nowhere belong
/// to no hunk). Every byte from a file's header up to the next file's stays in that file's
/// section.
pub fn parse_patch_lenient(text: &str) -> Patch {
    // `fail` never returns an error when lenient.
    Parser::new(text, true).run().unwrap_or_default()
}

/// One physical line: its text without the line ending, and its span.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    span: Span,
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    while start < text.len() {
        let end = memchr_newline(text, start).unwrap_or(text.len());
        let mut content_end = end;
        if content_end > start && bytes[content_end - 1] == b'\r' {
            content_end -= 1;
        }
        lines.push(Line {
            text: &text[start..content_end],
            span: Span::new(start, content_end),
        });
        start = end + 1;
    }
    lines
}

fn memchr_newline(text: &str, from: usize) -> Option<usize> {
    // core's `str::find` on a char is memchr, optimised even in debug builds.
    text.get(from..)
        .and_then(|s| s.find('\n'))
        .map(|i| i + from)
}

/// A file patch being assembled.
struct Building {
    file: FilePatch,
    /// Saw `---`/`+++` lines.
    has_file_lines: bool,
    /// Saw an extended header that makes a hunk-less change meaningful (mode, rename, copy,
    /// new/deleted file, binary).
    meaningful_header: bool,
    /// The header line that started this file (for errors).
    header: Span,
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    files: Vec<FilePatch>,
    current: Option<Building>,
    /// Keep going past what makes a diff invalid ([`parse_patch_lenient`]).
    lenient: bool,
    /// How many leading components git strips from names (`-p`), and whether it settled
    /// it from a plain diff's names (git's `p_value`, `p_value_known`).
    p_value: i32,
    p_known: bool,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, lenient: bool) -> Parser<'a> {
        Parser {
            lines: split_lines(text),
            pos: 0,
            files: Vec::new(),
            current: None,
            lenient,
            p_value: 1,
            p_known: false,
        }
    }

    /// `err` stops a strict parse; a lenient one goes on (the caller says how).
    fn fail(&self, err: PatchError) -> Result<(), PatchError> {
        if self.lenient {
            Ok(())
        } else {
            Err(err)
        }
    }

    fn peek(&self, offset: usize) -> Option<Line<'a>> {
        self.lines.get(self.pos + offset).copied()
    }

    fn run(mut self) -> Result<Patch, PatchError> {
        while let Some(line) = self.peek(0) {
            let t = line.text;
            if let Some(rest) = t.strip_prefix("diff --git ") {
                self.finish()?;
                let at = line.span.start as usize + "diff --git ".len();
                let (old, new, [old_span, new_span]) = parse_git_header_paths(rest, at);
                self.current = Some(Building {
                    file: FilePatch {
                        old_path: old,
                        new_path: new,
                        hunks: Vec::new(),
                        binary: false,
                        span: line.span,
                        header_paths: vec![
                            HeaderPath {
                                line: HeaderLine::GitOld,
                                span: old_span,
                            },
                            HeaderPath {
                                line: HeaderLine::GitNew,
                                span: new_span,
                            },
                        ],
                    },
                    has_file_lines: false,
                    meaningful_header: false,
                    header: line.span,
                });
                self.pos += 1;
                self.extended_headers()?;
            } else if t.starts_with("--- ") && self.is_plus_header(1) {
                self.file_lines(line)?;
            } else if t.starts_with("@@@") {
                self.fail(PatchError::new(
                    "combined diffs (`@@@`) are not supported",
                    line.span,
                    "write the patch with `git diff` against a single parent",
                ))?;
                self.pos += 1;
            } else if t.starts_with("@@ ") || t == "@@" {
                self.hunk(line)?;
            } else {
                // Preamble, trailer (`-- ` signature) or commentary between files.
                self.pos += 1;
            }
        }
        self.finish()?;
        Ok(Patch { files: self.files })
    }

    fn is_plus_header(&self, offset: usize) -> bool {
        self.peek(offset)
            .is_some_and(|l| l.text.starts_with("+++ "))
    }

    /// The lines after `diff --git` up to `---` or a hunk or the next file.
    fn extended_headers(&mut self) -> Result<(), PatchError> {
        while let Some(line) = self.peek(0) {
            let t = line.text;
            let Some(cur) = self.current.as_mut() else {
                return Ok(());
            };
            if t.starts_with("diff --git ") || t.starts_with("@@") {
                return Ok(());
            }
            if t.starts_with("--- ")
                && self
                    .lines
                    .get(self.pos + 1)
                    .is_some_and(|l| l.text.starts_with("+++ "))
            {
                return Ok(());
            }
            if t.starts_with("new file mode ") {
                cur.file.old_path = None;
                cur.meaningful_header = true;
            } else if t.starts_with("deleted file mode ") {
                cur.file.new_path = None;
                cur.meaningful_header = true;
            } else if let Some((which, p)) = rename_or_copy(t) {
                let span = Span::new(line.span.end as usize - p.len(), line.span.end as usize);
                // git: `find_name(line, p_value - 1, 0)`: neither a space nor a tab ends it.
                let name =
                    git_name::find_name(p, (self.p_value - 1).max(0), git_name::Term::Neither)
                        .map_or_else(|| unquote(p), |n| n.name);
                match which {
                    HeaderLine::RenameFrom | HeaderLine::CopyFrom => cur.file.old_path = Some(name),
                    _ => cur.file.new_path = Some(name),
                }
                cur.file.header_paths.push(HeaderPath { line: which, span });
                cur.meaningful_header = true;
            } else if t.starts_with("old mode ")
                || t.starts_with("new mode ")
                || t.starts_with("similarity index ")
                || t.starts_with("dissimilarity index ")
            {
                cur.meaningful_header = true;
            } else if t.starts_with("index ") {
                // Blob ids: nothing to keep.
            } else if t.starts_with("Binary files ") && t.ends_with(" differ") {
                cur.file.binary = true;
                cur.meaningful_header = true;
            } else if t == "GIT binary patch" {
                cur.file.binary = true;
                cur.meaningful_header = true;
                cur.file.span = cur.file.span.to(line.span);
                self.pos += 1;
                // Skip the base85 literal/delta blocks up to the next file.
                while let Some(l) = self.peek(0) {
                    if l.text.starts_with("diff --git ") {
                        break;
                    }
                    if let Some(c) = self.current.as_mut() {
                        if !l.text.is_empty() && !l.text.starts_with("-- ") && l.text != "--" {
                            c.file.span = c.file.span.to(l.span);
                        }
                    }
                    self.pos += 1;
                }
                return Ok(());
            } else {
                // Anything else ends the header block (e.g. trailing commentary).
                return Ok(());
            }
            cur.file.span = cur.file.span.to(line.span);
            self.pos += 1;
        }
        Ok(())
    }

    /// `--- old` followed by `+++ new`, read as `git apply` reads them (`git_name`): in a
    /// `diff --git` block, each name up to a tab; in a plain diff, up to a tab or a
    /// timestamp, with git's guess of how many leading components to strip, and GNU diff's
    /// epoch timestamp marking a created or deleted file.
    fn file_lines(&mut self, minus: Line<'a>) -> Result<(), PatchError> {
        let Some(plus) = self.peek(1) else {
            return Ok(());
        };
        let (first, second) = (&minus.text[4..], &plus.text[4..]);
        // Within a `diff --git` whose header has not yet seen `---`, these lines belong to it.
        let continues = self
            .current
            .as_ref()
            .is_some_and(|c| !c.has_file_lines && c.file.hunks.is_empty() && !c.file.binary);
        let read = if continues {
            // `new file mode` / `deleted file mode` seen: that side must be `/dev/null`.
            let (is_new, is_delete) = self.current.as_ref().map_or((false, false), |c| {
                (c.file.old_path.is_none(), c.file.new_path.is_none())
            });
            self.git_file_lines(first, second, is_new, is_delete)
        } else {
            self.traditional_file_lines(first, second)
        };
        let ((old, old_len), (new, new_len)) = match read {
            Some(r) => r,
            None => {
                self.fail(PatchError::new(
                    "no file name on this `---`/`+++` pair",
                    minus.span.to(plus.span),
                    "name the file as `git diff` does: `--- a/<path>` and `+++ b/<path>`",
                ))?;
                (
                    (file_line_path(first, "a/"), file_line_raw(first).len()),
                    (file_line_path(second, "b/"), file_line_raw(second).len()),
                )
            }
        };
        let token = |l: Line<'_>, len: usize| {
            let start = l.span.start as usize + 4;
            Span::new(start, start + len)
        };
        let paths = [
            HeaderPath {
                line: HeaderLine::Old,
                span: token(minus, old_len),
            },
            HeaderPath {
                line: HeaderLine::New,
                span: token(plus, new_len),
            },
        ];
        if !continues {
            self.finish()?;
            self.current = Some(Building {
                file: FilePatch {
                    old_path: None,
                    new_path: None,
                    hunks: Vec::new(),
                    binary: false,
                    span: minus.span,
                    header_paths: Vec::new(),
                },
                has_file_lines: false,
                meaningful_header: false,
                header: minus.span,
            });
        }
        if let Some(cur) = self.current.as_mut() {
            cur.has_file_lines = true;
            cur.file.old_path = old;
            cur.file.new_path = new;
            cur.file.header_paths.extend(paths);
            cur.file.span = cur.file.span.to(plus.span);
        }
        self.pos += 2;
        Ok(())
    }

    /// git's `gitdiff_verify_name` reading: the side a `new file mode` / `deleted file
    /// mode` line made absent must be `/dev/null`; any other side is a name up to a tab
    /// (there `/dev/null` is a name like any other: `dev/null`).
    #[allow(clippy::type_complexity)]
    fn git_file_lines(
        &self,
        first: &str,
        second: &str,
        is_new: bool,
        is_delete: bool,
    ) -> Option<((Option<String>, usize), (Option<String>, usize))> {
        let side = |line: &str, null: bool| -> Option<(Option<String>, usize)> {
            if null {
                return git_name::is_dev_null(line).then_some((None, "/dev/null".len()));
            }
            git_name::find_name(line, self.p_value, git_name::Term::Tab)
                .map(|n| (Some(n.name), n.token_len))
        };
        Some((side(first, is_new)?, side(second, is_delete)?))
    }

    /// git's `parse_traditional_patch`.
    #[allow(clippy::type_complexity)]
    fn traditional_file_lines(
        &mut self,
        first: &str,
        second: &str,
    ) -> Option<((Option<String>, usize), (Option<String>, usize))> {
        if !self.p_known {
            let q = git_name::guess_p_value(second);
            let p = git_name::guess_p_value(first).or(q);
            if p.is_some() && p == q {
                self.p_value = p.unwrap_or(1);
                self.p_known = true;
            }
        }
        let p = self.p_value;
        let null = "/dev/null".len();
        if git_name::is_dev_null(first) {
            let n = git_name::find_name_traditional(second, None, p)?;
            return Some(((None, null), (Some(n.name), n.token_len)));
        }
        if git_name::is_dev_null(second) {
            let n = git_name::find_name_traditional(first, None, p)?;
            return Some(((Some(n.name), n.token_len), (None, null)));
        }
        let a = git_name::find_name_traditional(first, None, p);
        let b = git_name::find_name_traditional(second, a.as_ref().map(|n| n.name.as_str()), p)?;
        let a_len = a.map_or(0, |n| n.token_len);
        let name = b.name;
        Some(if git_name::has_epoch_timestamp(first) {
            ((None, a_len), (Some(name), b.token_len))
        } else if git_name::has_epoch_timestamp(second) {
            ((Some(name), a_len), (None, b.token_len))
        } else {
            ((Some(name.clone()), a_len), (Some(name), b.token_len))
        })
    }

    fn hunk(&mut self, header: Line<'a>) -> Result<(), PatchError> {
        if self.current.is_none() {
            self.fail(PatchError::new(
                "hunk before any file header",
                header.span,
                "a hunk must follow `--- a/<path>` and `+++ b/<path>` lines naming the file it changes",
            ))?;
            self.pos += 1;
            return Ok(());
        }
        let Some((old_start, old_len, new_start, new_len)) = parse_hunk_header(header.text) else {
            self.fail(PatchError::new(
                format!("malformed hunk header `{}`", header.text),
                header.span,
                "a hunk header looks like `@@ -12,7 +12,8 @@` (old start,count and new start,count)",
            ))?;
            self.pos += 1;
            return Ok(());
        };
        self.pos += 1;
        let mut lines = Vec::new();
        let (mut old_left, mut new_left) = (old_len, new_len);
        let (mut seen_removed, mut seen_added, mut seen_context) = (0u32, 0u32, 0u32);
        let mut span = header.span;
        while old_left > 0 || new_left > 0 {
            let Some(line) = self.peek(0) else {
                break;
            };
            let t = line.text;
            let kind = match t.as_bytes().first() {
                Some(b' ') => LineKind::Context,
                Some(b'+') => LineKind::Added,
                Some(b'-') => LineKind::Removed,
                // Some tools strip the single space of an empty context line.
                None if old_left > 0 && new_left > 0 => LineKind::Context,
                Some(b'\\') => {
                    self.pos += 1;
                    span = span.to(line.span);
                    continue;
                }
                _ => {
                    if t.starts_with("@@") || t.starts_with("diff --git ") || t.is_empty() {
                        break;
                    }
                    self.fail(PatchError::new(
                        format!("unexpected line in hunk: `{}`", shorten(t)),
                        line.span,
                        "every line of a hunk starts with ` ` (context), `+` (added), `-` (removed) or `\\` (no newline marker); was the patch edited by hand or re-wrapped?",
                    ))?;
                    break;
                }
            };
            let body = if t.is_empty() { "" } else { &t[1..] };
            match kind {
                LineKind::Context => {
                    if old_left == 0 || new_left == 0 {
                        break;
                    }
                    old_left -= 1;
                    new_left -= 1;
                    seen_context += 1;
                }
                LineKind::Added => {
                    if new_left == 0 {
                        break;
                    }
                    new_left -= 1;
                    seen_added += 1;
                }
                LineKind::Removed => {
                    if old_left == 0 {
                        break;
                    }
                    old_left -= 1;
                    seen_removed += 1;
                }
            }
            lines.push(HunkLine {
                kind,
                text: body.to_string(),
                span: line.span,
            });
            span = span.to(line.span);
            self.pos += 1;
        }
        if old_left > 0 || new_left > 0 {
            self.fail(PatchError::new(
                count_message(
                    old_len,
                    new_len,
                    seen_removed + seen_context,
                    seen_added + seen_context,
                ),
                header.span,
                "the counts in `@@ -start,count +start,count @@` must match the hunk's lines; regenerate the patch with `git diff` rather than editing it by hand",
            ))?;
        }
        // A trailing `\ No newline at end of file`.
        while let Some(l) = self.peek(0) {
            if l.text.starts_with('\\') {
                span = span.to(l.span);
                self.pos += 1;
            } else {
                break;
            }
        }
        if let Some(next) = self.peek(0) {
            if is_hunk_body_line(next.text)
                && !(next.text.starts_with("--- ") && self.is_plus_header(1))
            {
                self.fail(self.too_many_lines(
                    header.span,
                    next,
                    (old_len, new_len),
                    (seen_removed + seen_context, seen_added + seen_context),
                ))?;
            }
        }
        if let Some(cur) = self.current.as_mut() {
            cur.file.span = cur.file.span.to(span);
            cur.file.hunks.push(Hunk {
                old_start,
                old_len,
                new_start,
                new_len,
                lines,
                span,
                header: header.span,
            });
        }
        Ok(())
    }

    /// The hunk whose header is `header` goes on past its counts at `first_extra`.
    fn too_many_lines(
        &self,
        header: Span,
        first_extra: Line<'a>,
        (old_len, new_len): (u32, u32),
        (old_seen, new_seen): (u32, u32),
    ) -> PatchError {
        let (mut extra_old, mut extra_new) = (0u32, 0u32);
        let mut i = self.pos;
        while let Some(l) = self.lines.get(i) {
            match l.text.as_bytes().first() {
                Some(b' ') => {
                    extra_old += 1;
                    extra_new += 1;
                }
                Some(b'+') if !l.text.starts_with("+++ ") => extra_new += 1,
                Some(b'-') if !l.text.starts_with("--- ") && !l.text.starts_with("-- ") => {
                    extra_old += 1
                }
                Some(b'\\') => {}
                _ => break,
            }
            i += 1;
        }
        let mut err = PatchError::new(
            count_message(old_len, new_len, old_seen + extra_old, new_seen + extra_new),
            header,
            "the counts in `@@ -start,count +start,count @@` must match the hunk's lines; regenerate the patch with `git diff` rather than editing it by hand",
        );
        if extra_old == 0 && extra_new == 0 {
            err.message = format!(
                "unexpected line after hunk: `{}`",
                shorten(first_extra.text)
            );
            err.span = first_extra.span;
        }
        err
    }

    /// Close the file being built, checking it changes something.
    fn finish(&mut self) -> Result<(), PatchError> {
        let Some(b) = self.current.take() else {
            return Ok(());
        };
        if b.file.hunks.is_empty() && !b.file.binary && (b.has_file_lines || !b.meaningful_header) {
            self.fail(PatchError::new(
                format!("file header for `{}` has no hunks", display_path(&b.file)),
                b.header,
                "a file's `---`/`+++` lines must be followed by at least one `@@ … @@` hunk; remove the header or regenerate the patch",
            ))?;
        }
        self.files.push(b.file);
        Ok(())
    }
}

fn display_path(f: &FilePatch) -> &str {
    let p = f.path();
    if p.is_empty() {
        "?"
    } else {
        p
    }
}

fn is_hunk_body_line(t: &str) -> bool {
    matches!(t.as_bytes().first(), Some(b' ' | b'+' | b'-'))
        && !t.starts_with("-- ")
        && t != "--"
        && !t.starts_with("diff --git ")
}

fn count_message(old_len: u32, new_len: u32, old_seen: u32, new_seen: u32) -> String {
    // Prefer the side that differs; say "added" for the new side, "removed" for the old.
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    if new_len != new_seen {
        format!(
            "hunk says {new_len} new-side line{} (added + context), found {new_seen}",
            plural(new_len)
        )
    } else {
        format!(
            "hunk says {old_len} old-side line{} (removed + context), found {old_seen}",
            plural(old_len)
        )
    }
}

fn shorten(t: &str) -> String {
    const MAX: usize = 60;
    if t.chars().count() <= MAX {
        t.to_string()
    } else {
        let s: String = t.chars().take(MAX).collect();
        format!("{s}…")
    }
}

/// `@@ -l[,s] +l[,s] @@[ section]`.
fn parse_hunk_header(t: &str) -> Option<(u32, u32, u32, u32)> {
    let rest = t.strip_prefix("@@ -")?;
    let end = rest.find(" @@")?;
    let ranges = &rest[..end];
    let (old, new) = ranges.split_once(" +")?;
    let (os, ol) = parse_range(old)?;
    let (ns, nl) = parse_range(new)?;
    Some((os, ol, ns, nl))
}

fn parse_range(s: &str) -> Option<(u32, u32)> {
    let num = |x: &str| -> Option<u32> {
        if x.is_empty() || !x.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        x.parse().ok()
    };
    match s.split_once(',') {
        Some((a, b)) => Some((num(a)?, num(b)?)),
        None => Some((num(s)?, 1)),
    }
}

/// `rename from`/`rename to`/`copy from`/`copy to` lines: which, and the path as written.
fn rename_or_copy(t: &str) -> Option<(HeaderLine, &str)> {
    [
        ("rename from ", HeaderLine::RenameFrom),
        ("rename to ", HeaderLine::RenameTo),
        ("copy from ", HeaderLine::CopyFrom),
        ("copy to ", HeaderLine::CopyTo),
    ]
    .into_iter()
    .find_map(|(prefix, which)| t.strip_prefix(prefix).map(|p| (which, p)))
}

/// The path as written on a `---`/`+++` line: without a trailing tab+timestamp or blanks.
fn file_line_raw(raw: &str) -> &str {
    raw.split('\t').next().unwrap_or(raw).trim_end()
}

/// The path on a `---`/`+++` line: strip a trailing tab+timestamp, `/dev/null` → None,
/// strip the `a/`/`b/` prefix.
fn file_line_path(raw: &str, prefix: &str) -> Option<String> {
    let p = unquote(file_line_raw(raw));
    if p == "/dev/null" {
        return None;
    }
    Some(p.strip_prefix(prefix).map(str::to_string).unwrap_or(p))
}

/// `a/x b/y` (possibly quoted) from a `diff --git` line whose rest `rest` starts at byte
/// `at` of the patch: both paths, and where each stands as written.
fn parse_git_header_paths(rest: &str, at: usize) -> (Option<String>, Option<String>, [Span; 2]) {
    let (a, b, strip) = git_header_split(rest);
    let value = |r: &std::ops::Range<usize>, prefix: &str| {
        let v = unquote(&rest[r.clone()]);
        if strip {
            v.strip_prefix(prefix).map(str::to_string).unwrap_or(v)
        } else {
            v
        }
    };
    let span = |r: &std::ops::Range<usize>| Span::new(at + r.start, at + r.end);
    (
        Some(value(&a, "a/")),
        Some(value(&b, "b/")),
        [span(&a), span(&b)],
    )
}

/// Where the two paths of a `diff --git` line's rest stand, and whether they carry the
/// `a/`/`b/` prefixes.
fn git_header_split(rest: &str) -> (std::ops::Range<usize>, std::ops::Range<usize>, bool) {
    let len = rest.len();
    if rest.starts_with('"') {
        if let Some((first, tail)) = split_quoted_len(rest) {
            let second = tail.trim_start();
            return (0..first, len - second.len()..len, true);
        }
    }
    if let Some(idx) = rest.find(" \"b/") {
        return (0..idx, idx + 1..len, true);
    }
    // Unquoted: `a/P b/P`; with equal halves the split is unambiguous even if P has spaces.
    if len % 2 == 1 {
        let half = len / 2;
        if rest.is_char_boundary(half) && rest.as_bytes()[half] == b' ' {
            let (a, b) = (&rest[..half], &rest[half + 1..]);
            if a.len() > 2 && a.get(2..).is_some() && a.get(2..) == b.get(2..) {
                return (0..half, half + 1..len, true);
            }
        }
    }
    match rest.find(" b/") {
        Some(idx) => (0..idx, idx + 1..len, true),
        None => match rest.find(' ') {
            Some(idx) => (0..idx, idx + 1..len, false),
            None => (0..len, 0..len, false),
        },
    }
}

/// The length of the C-quoted string leading `s` (quotes included) and the rest after it.
fn split_quoted_len(s: &str) -> Option<(usize, &str)> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            return Some((i + 1, &s[i + 1..]));
        }
    }
    None
}

/// Git quotes paths with unusual bytes as C strings with octal escapes.
fn unquote(s: &str) -> String {
    let Some(inner) = s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) else {
        return s.to_string();
    };
    let mut out: Vec<u8> = Vec::with_capacity(inner.len());
    let b = inner.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let c = b[i + 1];
            let simple = match c {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'r' => Some(b'\r'),
                b'"' => Some(b'"'),
                b'\\' => Some(b'\\'),
                b'a' => Some(7),
                b'b' => Some(8),
                b'f' => Some(12),
                b'v' => Some(11),
                _ => None,
            };
            if let Some(v) = simple {
                out.push(v);
                i += 2;
                continue;
            }
            if i + 3 < b.len() && b[i + 1..i + 4].iter().all(|d| (b'0'..=b'7').contains(d)) {
                let v = (b[i + 1] - b'0') as u32 * 64
                    + (b[i + 2] - b'0') as u32 * 8
                    + (b[i + 3] - b'0') as u32;
                out.push(v as u8);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
