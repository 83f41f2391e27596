//! A hidden test patch whose `index` line does not describe what it produces (WideSWE case
//! 106: cargo's contract-aligned hidden patch keeps upstream's `index 181a257e7..e77a638f2`
//! line for `tests/testsuite/rustup.rs` while its hunks, relaxed from upstream's, produce
//! another blob).
//!
//! The importer has no repository to hash the result with, but it has the gold patch: when a
//! hidden patch's section for a file names the same `index <pre>..<post>` as the gold
//! patch's section for that file while its hunks differ, both start from blob `<pre>` and
//! cannot both end at `<post>`; the gold patch is the upstream diff, so the hidden patch's
//! line is the wrong one. taskc applies the hunks (exact context, like `git apply`) and never
//! reads index lines, so the spec is unaffected; the note (W1108) is for a tool that does
//! (`git apply --3way`, `git am`), and for the benchmark's author.

use super::case::Case;
use crate::import::files::CaseFiles;
use taskc_compiler::{Code, Diagnostic};

/// One file's section of a unified git diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section<'a> {
    /// The file the section changes (its `b/` path).
    pub path: &'a str,
    /// The `index` line's `(pre, post)` blob abbreviations.
    pub index: Option<(&'a str, &'a str)>,
    /// Byte offset of the `index` line in the patch (for diagnostics).
    pub index_at: usize,
    /// The hunks (from the first `@@` to the section's end).
    pub hunks: &'a str,
}

/// The sections of `patch`, in order. Text before the first `diff --git` is ignored.
pub fn sections(patch: &str) -> Vec<Section<'_>> {
    let mut starts: Vec<usize> = Vec::new();
    let mut off = 0usize;
    for line in patch.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            starts.push(off);
        }
        off += line.len();
    }
    let mut out = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let e = starts.get(i + 1).copied().unwrap_or(patch.len());
        let text = &patch[s..e];
        let header = text.lines().next().unwrap_or("");
        let mut path = header
            .rsplit_once(" b/")
            .map(|(_, p)| p.trim_end())
            .unwrap_or("");
        let mut index = None;
        let mut index_at = s;
        let mut hunks_at = text.len();
        let mut o = 0usize;
        for line in text.split_inclusive('\n') {
            let l = line.trim_end_matches(['\n', '\r']);
            if l.starts_with("@@") {
                hunks_at = o;
                break;
            }
            if let Some(rest) = l.strip_prefix("index ") {
                let range = rest.split_whitespace().next().unwrap_or("");
                if let Some((a, b)) = range.split_once("..") {
                    index = Some((a, b));
                    index_at = s + o;
                }
            } else if let Some(p) = l.strip_prefix("+++ b/") {
                path = p;
            }
            o += line.len();
        }
        out.push(Section {
            path,
            index,
            index_at,
            hunks: &text[hunks_at..],
        });
    }
    out
}

/// A hidden patch's file section that keeps the gold patch's index line with other hunks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub path: String,
    pub pre: String,
    pub post: String,
    /// Byte offset of the hidden patch's `index` line.
    pub at: usize,
}

/// The sections of `hidden` whose `index` line is the same as `gold`'s section for that file
/// while the hunks differ.
pub fn mismatches(gold: &str, hidden: &str) -> Vec<Mismatch> {
    let gold = sections(gold);
    sections(hidden)
        .into_iter()
        .filter_map(|h| {
            let (pre, post) = h.index?;
            let g = gold.iter().find(|g| g.path == h.path)?;
            (g.index == h.index && g.hunks != h.hunks).then(|| Mismatch {
                path: h.path.to_string(),
                pre: pre.to_string(),
                post: post.to_string(),
                at: h.index_at,
            })
        })
        .collect()
}

/// A note per hidden patch section that keeps the gold patch's index line with other hunks.
pub fn check(case: &Case, files: &mut CaseFiles) {
    for repo in &case.repos {
        let Some(gold) = &repo.gold else { continue };
        for h in case
            .hidden
            .get(&repo.name)
            .map(Vec::as_slice)
            .unwrap_or(&[])
        {
            for m in mismatches(&gold.text, &h.patch.text) {
                let label = files.at(h.patch.source, m.at, "index line");
                files.emit(
                    Diagnostic::new(
                        Code::ImportNote,
                        format!(
                            "`{}` keeps the gold patch's `index {}..{}` line for `{}` while its hunks differ from the gold's: it does not produce blob `{}`; taskc applies the hunks and never reads index lines",
                            h.patch.rel, m.pre, m.post, m.path, m.post
                        ),
                        label,
                    )
                    .with_help(
                        "a tool that trusts index lines (`git apply --3way`, `git am`) would look for the wrong blob; regenerate the patch with `git diff` to correct the line",
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLD: &str = "diff --git a/src/lib.rs b/src/lib.rs\nindex 1111111..2222222 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/tests/t.rs b/tests/t.rs\nindex 3333333..4444444 100644\n--- a/tests/t.rs\n+++ b/tests/t.rs\n@@ -1 +1,2 @@\n x\n+strict\n";

    #[test]
    fn sections_read_path_index_and_hunks() {
        let s = sections(GOLD);
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].path, "tests/t.rs");
        assert_eq!(s[1].index, Some(("3333333", "4444444")));
        assert!(GOLD[s[1].index_at..].starts_with("index 3333333"));
        assert_eq!(s[1].hunks, "@@ -1 +1,2 @@\n x\n+strict\n");
    }

    #[test]
    fn the_gold_index_line_on_other_hunks_is_a_mismatch() {
        let hidden = "diff --git a/tests/t.rs b/tests/t.rs\nindex 3333333..4444444 100644\n--- a/tests/t.rs\n+++ b/tests/t.rs\n@@ -1 +1,2 @@\n x\n+relaxed\n";
        let m = mismatches(GOLD, hidden);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].path, "tests/t.rs");
        assert_eq!(m[0].post, "4444444");
        assert!(hidden[m[0].at..].starts_with("index 3333333..4444444"));
    }

    #[test]
    fn the_upstream_test_diff_itself_and_own_index_lines_are_not() {
        // The gold's own section (an upstream test diff) is no mismatch.
        let same = &GOLD[GOLD.find("diff --git a/tests").unwrap_or(0)..];
        assert!(mismatches(GOLD, same).is_empty());
        // Other hunks under their own index line are no mismatch either.
        let own = "diff --git a/tests/t.rs b/tests/t.rs\nindex 3333333..5555555 100644\n--- a/tests/t.rs\n+++ b/tests/t.rs\n@@ -1 +1,2 @@\n x\n+relaxed\n";
        assert!(mismatches(GOLD, own).is_empty());
        // A file the gold does not change is not compared.
        let other = "diff --git a/tests/u.rs b/tests/u.rs\nindex 3333333..4444444 100644\n--- a/tests/u.rs\n+++ b/tests/u.rs\n@@ -1 +1 @@\n-y\n+z\n";
        assert!(mismatches(GOLD, other).is_empty());
    }
}
