//! Applying `edit` relaxations to a hidden test patch's text at lowering time.
//!
//! The patch is read with the one diff parser (`crate::patch`), and an edit's `replace`
//! text is matched as the checker matches it: once, in the added lines of its file joined
//! with `\n` ([`AddedText`]; the checker guarantees it). The matched added lines are
//! rewritten in place, by their spans; when the line count changes, the hunk header's new
//! length (and the new start of later hunks of that file) are adjusted, so the result is
//! still a valid patch. Every other byte is kept.

use std::collections::BTreeMap;

use crate::patch::{parse_patch, AddedText, Patch};

/// Why an edit could not be applied to a patch text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelaxError {
    #[error("the hidden test patch is not a valid unified diff: {message}")]
    Malformed { message: String },
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

/// The line ending after byte `end` of `text`: `"\r\n"`, `"\n"` or `""` at the end.
fn eol_at(text: &str, end: usize) -> &'static str {
    match text.get(end..) {
        Some(t) if t.starts_with("\r\n") => "\r\n",
        Some(t) if t.starts_with('\n') => "\n",
        _ => "",
    }
}

/// `text` with every edit applied. Edits are matched against the original text.
pub fn apply_edits(text: &str, edits: &[Edit<'_>]) -> Result<String, RelaxError> {
    if edits.is_empty() {
        return Ok(text.to_string());
    }
    let patch = parse_patch(text).map_err(|e| RelaxError::Malformed { message: e.message })?;
    apply_parsed(text, &patch, edits)
}

/// [`apply_edits`] over `patch`, parsed from `text`.
fn apply_parsed(text: &str, patch: &Patch, edits: &[Edit<'_>]) -> Result<String, RelaxError> {
    // (start, end, replacement) in the original text.
    let mut patches: Vec<(usize, usize, String)> = Vec::new();
    // (file, hunk) → change in its new length.
    let mut len_delta: BTreeMap<(usize, usize), i64> = BTreeMap::new();
    // (file, first added line, last added line) already rewritten.
    let mut touched: Vec<(usize, usize, usize)> = Vec::new();

    for edit in edits {
        let file = || edit.file.to_string();
        let wanted = edit.file.trim_start_matches("./");
        let Some((fi, fp)) = patch
            .files
            .iter()
            .enumerate()
            .find(|(_, f)| f.path() == wanted)
        else {
            return Err(RelaxError::UnknownFile { file: file() });
        };
        let added = AddedText::new(fp);
        let p = match added.occurrences(edit.replace).as_slice() {
            [] => return Err(RelaxError::NotFound { file: file() }),
            [p] => *p,
            many => {
                return Err(RelaxError::Ambiguous {
                    file: file(),
                    count: many.len(),
                })
            }
        };
        let q = p + edit.replace.len();
        let k1 = added.line_at(p);
        // The last line containing a byte of the match (an empty match stays on k1).
        let k2 = if q > p { added.line_at(q - 1) } else { k1 };
        let (Some((hunk, first)), Some((_, last))) = (added.line(k1), added.line(k2)) else {
            return Err(RelaxError::NotFound { file: file() });
        };
        // Lines next to each other in the patch: only a line ending between them.
        for k in k1..k2 {
            let (Some((_, a)), Some((_, b))) = (added.line(k), added.line(k + 1)) else {
                continue;
            };
            let (end, next) = (a.span.end as usize, b.span.start as usize);
            if eol_at(text, end).len() != next.saturating_sub(end) || next < end {
                return Err(RelaxError::NotContiguous { file: file() });
            }
        }
        if touched
            .iter()
            .any(|&(f, a, b)| f == fi && a <= k2 && k1 <= b)
        {
            return Err(RelaxError::Overlap { file: file() });
        }
        touched.push((fi, k1, k2));
        let region_end = added.line_start(k2) + last.text.len();
        let new_text = format!(
            "{}{}{}",
            &added.text[added.line_start(k1)..p],
            edit.with,
            &added.text[q..region_end]
        );
        let eol = match eol_at(text, first.span.end as usize) {
            "" => "\n",
            e => e,
        };
        let new_lines: Vec<String> = new_text.split('\n').map(|l| format!("+{l}")).collect();
        let delta = new_lines.len() as i64 - (k2 - k1 + 1) as i64;
        if delta != 0 {
            *len_delta.entry((fi, hunk)).or_default() += delta;
        }
        patches.push((
            first.span.start as usize,
            last.span.end as usize,
            new_lines.join(eol),
        ));
    }

    // Hunk headers: new length of edited hunks, new start of later hunks of the same file.
    for (fi, fp) in patch.files.iter().enumerate() {
        let mut shift = 0i64;
        for (h, hunk) in fp.hunks.iter().enumerate() {
            let dl = len_delta.get(&(fi, h)).copied().unwrap_or(0);
            if dl != 0 || shift != 0 {
                let new_start = (i64::from(hunk.new_start) + shift).max(0);
                let new_len = (i64::from(hunk.new_len) + dl).max(0);
                patches.push((
                    hunk.header.start as usize,
                    hunk.header.end as usize,
                    format!(
                        "@@ -{},{} +{},{} @@{}",
                        hunk.old_start,
                        hunk.old_len,
                        new_start,
                        new_len,
                        hunk.section(text)
                    ),
                ));
            }
            shift += dl;
        }
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

    #[test]
    fn a_missing_final_newline_renamed_files_and_quoted_paths_are_edited_in_place() {
        let text = "diff --git a/old.py \"b/t\\303\\251st.py\"\nsimilarity index 80%\nrename from old.py\nrename to \"t\\303\\251st.py\"\n--- a/old.py\n+++ \"b/t\\303\\251st.py\"\n@@ -1 +1,2 @@\n x = 1\n+assert f() == 2\n\\ No newline at end of file\n";
        let out = apply_edits(
            text,
            &[Edit {
                file: "tést.py",
                replace: "assert f() == 2",
                with: "y = f()\nassert y == 2",
            }],
        )
        .unwrap();
        assert!(
            out.ends_with(
                "@@ -1,1 +1,3 @@\n x = 1\n+y = f()\n+assert y == 2\n\\ No newline at end of file\n"
            ),
            "{out}"
        );
        let p = crate::patch::parse_patch(&out).unwrap();
        assert_eq!(p.files[0].added_lines().count(), 2);
    }

    #[test]
    fn a_malformed_patch_is_an_error_not_a_panic() {
        let e = apply_edits(
            "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n+a\n",
            &[Edit {
                file: "x",
                replace: "a",
                with: "b",
            }],
        );
        assert!(matches!(e, Err(RelaxError::Malformed { .. })));
    }

    mod props {
        use super::*;
        use crate::patch::parse_patch;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

            /// Rewriting one added line into any number of lines keeps a valid patch (the
            /// strict parser reads it) whose added lines are exactly the edited ones, in LF
            /// or CRLF, and every other file and hunk keeps its counts.
            #[test]
            fn edits_keep_a_valid_patch_with_the_edited_lines(
                lines in proptest::collection::vec("[a-z =()]{0,10}", 1..6),
                pick in 0usize..6,
                with in proptest::collection::vec("[a-z =()]{0,10}", 1..4),
                crlf in any::<bool>(),
            ) {
                let pick = pick % lines.len();
                let tagged: Vec<String> = lines.iter().enumerate().map(|(i, l)| format!("{l}#{i}")).collect();
                let n = tagged.len();
                let adds: String = tagged.iter().map(|l| format!("+{l}\n")).collect();
                let mut text = format!("diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1,{} @@ def f():\n ctx\n{adds}@@ -9,1 +{},1 @@\n-old\n+new\n--- a/u.py\n+++ b/u.py\n@@ -1 +1 @@\n-a\n+b\n", n + 1, 9 + n);
                if crlf {
                    text = text.replace('\n', "\r\n");
                }
                let with = with.join("\n");
                let out = apply_edits(&text, &[Edit { file: "t.py", replace: &tagged[pick], with: &with }])
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let parsed = parse_patch(&out).map_err(|e| TestCaseError::fail(format!("{}\n{out}", e.message)))?;
                let mut expected: Vec<String> = tagged.clone();
                expected.splice(pick..=pick, with.split('\n').map(str::to_string));
                expected.push("new".to_string());
                let got: Vec<String> = parsed.files[0].added_lines().map(|l| l.text.clone()).collect();
                prop_assert_eq!(got, expected);
                prop_assert_eq!(parsed.files[0].hunks[0].section(&out), " def f():");
                prop_assert_eq!(parsed.files[1].added_lines().count(), 1);
                prop_assert_eq!(out.contains("\r\n"), crlf);
                prop_assert_eq!(out.replace("\r\n", "").contains('\r'), false);
            }
        }
    }
}
