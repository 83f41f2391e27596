//! Applying `edit` relaxations to a hidden test patch's text at lowering time.
//!
//! Each edit's `replace` text must occur exactly once in the added lines of its file
//! (joined with `\n`; the checker guarantees it). The matched added lines are rewritten
//! in place; when the line count changes, the hunk header's new length (and the new start
//! of later hunks of that file) are adjusted, so the result is still a valid patch.

use std::collections::BTreeMap;

/// Why an edit could not be applied to a patch text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelaxError {
    #[error("`{file}` is not touched by the hidden test patch")]
    UnknownFile { file: String },
    #[error("the text to replace does not occur in the added lines of `{file}`")]
    NotFound { file: String },
    #[error("the text to replace occurs {count} times in the added lines of `{file}`; it must occur once")]
    Ambiguous { file: String, count: usize },
    #[error("the text to replace in `{file}` spans added lines that are not next to each other")]
    NotContiguous { file: String },
    #[error("two edits of `{file}` rewrite the same added line")]
    Overlap { file: String },
}

/// One `edit`: in `file`, replace `replace` with `with`.
#[derive(Debug, Clone, Copy)]
pub struct Edit<'a> {
    pub file: &'a str,
    pub replace: &'a str,
    pub with: &'a str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Header,
    Context,
    Added,
    Removed,
    Other,
}

#[derive(Debug, Clone)]
struct Line {
    /// Byte offset of the line's first character (the marker).
    start: usize,
    /// Byte offset of the end of its content (before `\r\n` or `\n`).
    end: usize,
    /// `"\r\n"`, `"\n"` or `""` (last line without newline).
    eol: &'static str,
    kind: Kind,
    file: usize,
    hunk: usize,
}

#[derive(Debug, Clone)]
struct HunkHeader {
    line: usize,
    file: usize,
    old_start: u64,
    old_len: u64,
    new_start: u64,
    new_len: u64,
    rest: String,
}

struct Scan {
    lines: Vec<Line>,
    /// Path after the patch (or before, if deleted), per file section.
    files: Vec<String>,
    hunks: Vec<HunkHeader>,
}

fn strip_prefix_path(p: &str) -> Option<String> {
    let p = p.split('\t').next().unwrap_or(p).trim_end();
    if p == "/dev/null" {
        return None;
    }
    let p = p
        .strip_prefix("a/")
        .or_else(|| p.strip_prefix("b/"))
        .unwrap_or(p);
    Some(p.to_string())
}

/// `-a,b` or `-a` → (a, b) with b defaulting to 1.
fn range(s: &str) -> Option<(u64, u64)> {
    let (a, b) = match s.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let a = a.parse().ok()?;
    let b = match b {
        Some(b) => b.parse().ok()?,
        None => 1,
    };
    Some((a, b))
}

fn parse_header(line: &str) -> Option<(u64, u64, u64, u64, String)> {
    let body = line.strip_prefix("@@ ")?;
    let (ranges, rest) = body.split_once(" @@")?;
    let (old, new) = ranges.split_once(' ')?;
    let (os, ol) = range(old.strip_prefix('-')?)?;
    let (ns, nl) = range(new.strip_prefix('+')?)?;
    Some((os, ol, ns, nl, rest.to_string()))
}

fn scan(text: &str) -> Scan {
    let mut lines = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut hunks: Vec<HunkHeader> = Vec::new();
    let mut old_path: Option<String> = None;
    let mut pending_git = false;
    let (mut old_left, mut new_left) = (0u64, 0u64);
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let start = offset;
        offset += raw.len();
        let (content, eol) = if let Some(c) = raw.strip_suffix("\r\n") {
            (c, "\r\n")
        } else if let Some(c) = raw.strip_suffix('\n') {
            (c, "\n")
        } else {
            (raw, "")
        };
        let end = start + content.len();
        let file = files.len().saturating_sub(1);
        let hunk = hunks.len().saturating_sub(1);
        let in_hunk = old_left > 0 || new_left > 0;
        let kind = if in_hunk {
            match content.as_bytes().first() {
                Some(b'+') => {
                    new_left = new_left.saturating_sub(1);
                    Kind::Added
                }
                Some(b'-') => {
                    old_left = old_left.saturating_sub(1);
                    Kind::Removed
                }
                Some(b'\\') => Kind::Other,
                _ => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                    Kind::Context
                }
            }
        } else if let Some(rest) = content.strip_prefix("diff --git ") {
            let path = rest
                .rsplit_once(" b/")
                .map(|(_, b)| b.to_string())
                .unwrap_or_default();
            files.push(path);
            old_path = None;
            pending_git = true;
            Kind::Other
        } else if let Some(rest) = content.strip_prefix("--- ") {
            old_path = strip_prefix_path(rest);
            Kind::Other
        } else if let Some(rest) = content.strip_prefix("+++ ") {
            let path = strip_prefix_path(rest)
                .or(old_path.take())
                .unwrap_or_default();
            // A `+++` line inside a `diff --git` section names that section's file.
            match files.last_mut() {
                Some(last) if pending_git => *last = path,
                _ => files.push(path),
            }
            pending_git = false;
            Kind::Other
        } else if let Some((os, ol, ns, nl, rest)) = parse_header(content) {
            if files.is_empty() {
                files.push(String::new());
            }
            hunks.push(HunkHeader {
                line: lines.len(),
                file: files.len() - 1,
                old_start: os,
                old_len: ol,
                new_start: ns,
                new_len: nl,
                rest,
            });
            old_left = ol;
            new_left = nl;
            pending_git = false;
            Kind::Header
        } else {
            Kind::Other
        };
        let (file, hunk) = match kind {
            Kind::Header => (files.len() - 1, hunks.len() - 1),
            _ => (file, hunk),
        };
        lines.push(Line {
            start,
            end,
            eol,
            kind,
            file,
            hunk,
        });
    }
    Scan {
        lines,
        files,
        hunks,
    }
}

/// `text` with every edit applied. Edits are matched against the original text.
pub fn apply_edits(text: &str, edits: &[Edit<'_>]) -> Result<String, RelaxError> {
    if edits.is_empty() {
        return Ok(text.to_string());
    }
    let scan = scan(text);
    // (start, end, replacement) in the original text.
    let mut patches: Vec<(usize, usize, String)> = Vec::new();
    // hunk index → change in its new length.
    let mut len_delta: BTreeMap<usize, i64> = BTreeMap::new();
    let mut touched: Vec<(usize, usize)> = Vec::new();

    for edit in edits {
        let file_ids: Vec<usize> = (0..scan.files.len())
            .filter(|&i| scan.files[i] == edit.file)
            .collect();
        if file_ids.is_empty() {
            return Err(RelaxError::UnknownFile {
                file: edit.file.to_string(),
            });
        }
        let added: Vec<usize> = (0..scan.lines.len())
            .filter(|&i| {
                scan.lines[i].kind == Kind::Added && file_ids.contains(&scan.lines[i].file)
            })
            .collect();
        // Joined text of added lines (without the `+`), with each line's offset in it.
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(added.len());
        for (k, &i) in added.iter().enumerate() {
            if k > 0 {
                joined.push('\n');
            }
            starts.push(joined.len());
            let l = &scan.lines[i];
            joined.push_str(&text[l.start + 1..l.end]);
        }
        let found: Vec<usize> = joined.match_indices(edit.replace).map(|(p, _)| p).collect();
        let p = match found.as_slice() {
            [] => {
                return Err(RelaxError::NotFound {
                    file: edit.file.to_string(),
                })
            }
            [p] => *p,
            many => {
                return Err(RelaxError::Ambiguous {
                    file: edit.file.to_string(),
                    count: many.len(),
                })
            }
        };
        let q = p + edit.replace.len();
        let line_of = |off: usize| match starts.binary_search(&off) {
            Ok(k) => k,
            Err(k) => k - 1,
        };
        let k1 = line_of(p);
        // The last line containing a byte of the match (an empty match stays on k1).
        let k2 = if q > p { line_of(q - 1) } else { k1 };
        for w in added[k1..=k2].windows(2) {
            if w[1] != w[0] + 1 {
                return Err(RelaxError::NotContiguous {
                    file: edit.file.to_string(),
                });
            }
        }
        let (first, last) = (&scan.lines[added[k1]], &scan.lines[added[k2]]);
        if touched
            .iter()
            .any(|&(a, b)| a <= added[k2] && added[k1] <= b)
        {
            return Err(RelaxError::Overlap {
                file: edit.file.to_string(),
            });
        }
        touched.push((added[k1], added[k2]));
        let region_end = starts[k2] + (last.end - last.start - 1);
        let new_text = format!(
            "{}{}{}",
            &joined[starts[k1]..p],
            edit.with,
            &joined[q..region_end]
        );
        let eol = if first.eol.is_empty() {
            "\n"
        } else {
            first.eol
        };
        let new_lines: Vec<String> = new_text.split('\n').map(|l| format!("+{l}")).collect();
        let delta = new_lines.len() as i64 - (k2 - k1 + 1) as i64;
        if delta != 0 {
            *len_delta.entry(first.hunk).or_default() += delta;
        }
        patches.push((first.start, last.end, new_lines.join(eol)));
    }

    // Hunk headers: new length of edited hunks, new start of later hunks of the same file.
    let mut shift: BTreeMap<usize, i64> = BTreeMap::new();
    for (&h, &d) in &len_delta {
        let file = scan.hunks[h].file;
        for (j, later) in scan.hunks.iter().enumerate().skip(h + 1) {
            if later.file == file {
                *shift.entry(j).or_default() += d;
            }
        }
    }
    for (j, hunk) in scan.hunks.iter().enumerate() {
        let dl = len_delta.get(&j).copied().unwrap_or(0);
        let ds = shift.get(&j).copied().unwrap_or(0);
        if dl == 0 && ds == 0 {
            continue;
        }
        let line = &scan.lines[hunk.line];
        let new_start = (hunk.new_start as i64 + ds).max(0);
        let new_len = (hunk.new_len as i64 + dl).max(0);
        patches.push((
            line.start,
            line.end,
            format!(
                "@@ -{},{} +{},{} @@{}",
                hunk.old_start, hunk.old_len, new_start, new_len, hunk.rest
            ),
        ));
    }

    patches.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut out = text.to_string();
    for (start, end, replacement) in patches {
        out.replace_range(start..end, &replacement);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "diff --git a/tests/test_refresh.py b/tests/test_refresh.py
--- a/tests/test_refresh.py
+++ b/tests/test_refresh.py
@@ -1,2 +1,5 @@
 import pytest
+def test_big():
+    with pytest.raises(ValueError, match=\"cookie too large\"):
+        split(\"x\" * 5000)
 # end
@@ -10,1 +13,2 @@
 x = 1
+y = 2
diff --git a/tests/other.py b/tests/other.py
new file mode 100644
--- /dev/null
+++ b/tests/other.py
@@ -0,0 +1,1 @@
+match=\"cookie too large\"
";

    #[test]
    fn replaces_the_one_occurrence_in_the_named_file_only() {
        let out = apply_edits(
            PATCH,
            &[Edit {
                file: "tests/test_refresh.py",
                replace: "pytest.raises(ValueError, match=\"cookie too large\")",
                with: "pytest.raises(ValueError)",
            }],
        )
        .unwrap();
        assert!(out.contains("+    with pytest.raises(ValueError):\n"));
        assert!(out.contains("+match=\"cookie too large\"\n"));
        assert!(out.contains("@@ -1,2 +1,5 @@\n"));
    }

    #[test]
    fn multi_line_edits_fix_hunk_headers() {
        let out = apply_edits(
            PATCH,
            &[Edit {
                file: "tests/test_refresh.py",
                replace: "match=\"cookie too large\"):\n        split(",
                with: "match=\"too large\"): split(",
            }],
        )
        .unwrap();
        assert!(out.contains("@@ -1,2 +1,4 @@\n"), "{out}");
        assert!(out.contains("@@ -10,1 +12,2 @@\n"), "{out}");
        assert!(out.contains(
            "+    with pytest.raises(ValueError, match=\"too large\"): split(\"x\" * 5000)\n"
        ));
        // The other file's hunk is untouched.
        assert!(out.contains("@@ -0,0 +1,1 @@\n"));
    }

    #[test]
    fn inserting_lines_grows_the_hunk() {
        let out = apply_edits(
            PATCH,
            &[Edit {
                file: "tests/test_refresh.py",
                replace: "def test_big():",
                with: "@pytest.mark.slow\ndef test_big():",
            }],
        )
        .unwrap();
        assert!(
            out.contains("@@ -1,2 +1,6 @@\n import pytest\n+@pytest.mark.slow\n+def test_big():\n"),
            "{out}"
        );
        assert!(out.contains("@@ -10,1 +14,2 @@\n"), "{out}");
    }

    #[test]
    fn crlf_line_endings_are_kept() {
        let crlf = PATCH.replace('\n', "\r\n");
        let out = apply_edits(
            &crlf,
            &[Edit {
                file: "tests/test_refresh.py",
                replace: "def test_big():",
                with: "def test_huge():\ndef _unused():",
            }],
        )
        .unwrap();
        assert!(
            out.contains("+def test_huge():\r\n+def _unused():\r\n"),
            "{out}"
        );
        assert!(out.contains("@@ -1,2 +1,6 @@\r\n"));
    }

    #[test]
    fn errors_name_the_file() {
        let e = |replace| {
            apply_edits(
                PATCH,
                &[Edit {
                    file: "tests/test_refresh.py",
                    replace,
                    with: "",
                }],
            )
            .unwrap_err()
        };
        assert!(matches!(e("nowhere"), RelaxError::NotFound { .. }));
        assert!(matches!(e("t"), RelaxError::Ambiguous { .. }));
        assert!(matches!(
            e("\"x\" * 5000)\ny = 2"),
            RelaxError::NotContiguous { .. }
        ));
        let unknown = apply_edits(
            PATCH,
            &[Edit {
                file: "nope.py",
                replace: "x",
                with: "y",
            }],
        );
        assert!(matches!(unknown, Err(RelaxError::UnknownFile { .. })));
    }
}
