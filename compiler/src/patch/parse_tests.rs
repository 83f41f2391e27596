//! Tests of the unified-diff parser on diffs written by `git diff`.

use super::*;
use crate::patch::LineKind;

/// `git diff --cached -M` over a binary change, CRLF lines, a deletion, a pure rename, a mode
/// change with edits, a new file, and unicode without a final newline.
const GIT_FULL: &str = include_str!("testdata/git-full.patch");

/// `git diff --binary` of a changed binary file.
const GIT_BINARY: &str = include_str!("testdata/git-binary.patch");

fn paths(p: &Patch) -> Vec<(Option<&str>, Option<&str>)> {
    p.files
        .iter()
        .map(|f| (f.old_path.as_deref(), f.new_path.as_deref()))
        .collect()
}

#[test]
fn parses_everything_git_writes() {
    let p = parse_patch(GIT_FULL).unwrap();
    assert_eq!(
        paths(&p),
        vec![
            (Some("b.bin"), Some("b.bin")),
            (Some("crlf.txt"), Some("crlf.txt")),
            (Some("gone.txt"), None),
            (Some("mv.txt"), Some("moved.txt")),
            (Some("src/cookies.py"), Some("src/cookies.py")),
            (None, Some("tests/test_cookies.py")),
            (Some("uni.txt"), Some("uni.txt")),
        ]
    );
    assert!(p.files[0].binary && p.files[0].hunks.is_empty());
    assert!(p.files[3].hunks.is_empty() && !p.files[3].binary);
    let cookies = &p.files[4];
    let h = &cookies.hunks[0];
    assert_eq!(
        (h.old_start, h.old_len, h.new_start, h.new_len),
        (1, 4, 1, 6)
    );
    let added: Vec<&str> = cookies.added_lines().map(|l| l.text.as_str()).collect();
    assert_eq!(
        added,
        vec![
            "def split(c, limit=4096):",
            "    if len(c) > limit:",
            "        return [c[:limit], c[limit:]]"
        ]
    );
    // Blank context lines keep their (empty) text.
    assert_eq!(
        h.lines.last().map(|l| (l.kind, l.text.as_str())),
        Some((LineKind::Context, ""))
    );
    // Spans point at whole lines in the patch text.
    let first = &h.lines[0];
    assert_eq!(&GIT_FULL[first.span.range()], "-def split(c):");
    assert!(GIT_FULL[cookies.span.range()].starts_with("diff --git a/src/cookies.py"));
    assert!(GIT_FULL[cookies.span.range()].ends_with("    return [c]\n \n "));
}

#[test]
fn crlf_content_lines_drop_the_carriage_return() {
    let p = parse_patch(GIT_FULL).unwrap();
    let crlf = &p.files[1];
    let texts: Vec<&str> = crlf.hunks[0]
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(texts, vec!["a", "b", "B", "c"]);
}

#[test]
fn whole_patch_in_crlf_parses_the_same() {
    let crlf = GIT_FULL.replace('\n', "\r\n");
    let a = parse_patch(GIT_FULL).unwrap();
    let b = parse_patch(&crlf).unwrap();
    assert_eq!(paths(&a), paths(&b));
    let ta: Vec<_> = a.files[4].added_lines().map(|l| l.text.clone()).collect();
    let tb: Vec<_> = b.files[4].added_lines().map(|l| l.text.clone()).collect();
    assert_eq!(ta, tb);
}

#[test]
fn unicode_and_no_newline_marker() {
    let p = parse_patch(GIT_FULL).unwrap();
    let uni = &p.files[6];
    let h = &uni.hunks[0];
    assert_eq!(h.lines.len(), 3);
    assert_eq!(h.lines[2].text, "wörld ✓");
    assert_eq!(&GIT_FULL[h.lines[2].span.range()], "+wörld ✓");
}

#[test]
fn git_binary_patch_is_skipped() {
    let p = parse_patch(GIT_BINARY).unwrap();
    assert_eq!(p.files.len(), 1);
    assert!(p.files[0].binary);
    let two = format!("{GIT_BINARY}{GIT_FULL}");
    assert_eq!(parse_patch(&two).unwrap().files.len(), 8);
}

#[test]
fn plain_diff_without_git_header() {
    let text = "diff -u old/x.py new/x.py\n--- x.py\t2024-01-01 00:00:00.000000000 +0000\n+++ x.py\t2024-01-02 00:00:00.000000000 +0000\n@@ -1 +1,2 @@\n a\n+b\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(paths(&p), vec![(Some("x.py"), Some("x.py"))]);
    let text =
        "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n--- a/y.py\n+++ b/y.py\n@@ -3,0 +4 @@\n+c\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(
        paths(&p),
        vec![(Some("x.py"), Some("x.py")), (Some("y.py"), Some("y.py"))]
    );
}

#[test]
fn format_patch_preamble_and_signature_are_ignored() {
    let text = format!(
        "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\n---\n x.py | 2 +-\n\n{}-- \n2.43.0\n",
        "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"
    );
    let p = parse_patch(&text).unwrap();
    assert_eq!(paths(&p), vec![(Some("x.py"), Some("x.py"))]);
}

#[test]
fn removed_line_that_looks_like_a_header() {
    let text = "--- a/x.md\n+++ b/x.md\n@@ -1,2 +1 @@\n--- a/notes\n-+++ b/notes\n+new\n";
    let p = parse_patch(text).unwrap();
    let kinds: Vec<_> = p.files[0].hunks[0].lines.iter().map(|l| l.kind).collect();
    assert_eq!(
        kinds,
        vec![LineKind::Removed, LineKind::Removed, LineKind::Added]
    );
}

#[test]
fn quoted_and_spaced_paths() {
    let text = "diff --git \"a/t\\303\\251st.py\" \"b/t\\303\\251st.py\"\nnew file mode 100644\nindex 0000000..e69de29\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(paths(&p), vec![(None, Some("tést.py"))]);
    let text = "diff --git a/my file.txt b/my file.txt\nold mode 100644\nnew mode 100755\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(paths(&p), vec![(Some("my file.txt"), Some("my file.txt"))]);
}

#[test]
fn empty_input_is_an_empty_patch() {
    assert!(parse_patch("").unwrap().files.is_empty());
    assert!(parse_patch("\n\n").unwrap().files.is_empty());
}

fn err(text: &str) -> (String, String) {
    let e = parse_patch(text).unwrap_err();
    (e.message, text[e.span.range()].to_string())
}

#[test]
fn too_few_added_lines() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,5 @@\n a\n-b\n+c\n+d\n+e\n";
    assert_eq!(
        err(text),
        (
            "hunk says 5 new-side lines (added + context), found 4".into(),
            "@@ -1,2 +1,5 @@".into()
        )
    );
}

#[test]
fn too_few_lines_before_next_file() {
    let text = "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+c\ndiff --git a/y b/y\n";
    let (msg, at) = err(text);
    assert_eq!(msg, "hunk says 3 new-side lines (added + context), found 2");
    assert_eq!(at, "@@ -1,3 +1,3 @@");
}

#[test]
fn too_many_lines() {
    let text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n";
    assert_eq!(
        err(text),
        (
            "hunk says 1 new-side line (added + context), found 2".into(),
            "@@ -1 +1 @@".into()
        )
    );
    let text = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n-c\n";
    assert_eq!(
        err(text).0,
        "hunk says 1 old-side line (removed + context), found 2"
    );
}

#[test]
fn garbage_inside_a_hunk() {
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\nthis is not a diff line\n-b\n+c\n";
    assert_eq!(
        err(text),
        (
            "unexpected line in hunk: `this is not a diff line`".into(),
            "this is not a diff line".into()
        )
    );
}

#[test]
fn hunk_before_any_file() {
    let text = "@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(
        err(text),
        ("hunk before any file header".into(), "@@ -1 +1 @@".into())
    );
}

#[test]
fn header_without_hunks() {
    let text = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\ndiff --git a/y b/y\n";
    assert_eq!(
        err(text),
        (
            "file header for `x` has no hunks".into(),
            "diff --git a/x b/x".into()
        )
    );
    let text = "diff --git a/x b/x\nindex 1..2 100644\n";
    assert_eq!(err(text).0, "file header for `x` has no hunks");
}

#[test]
fn malformed_hunk_header() {
    let text = "--- a/x\n+++ b/x\n@@ -1,a +1 @@\n-a\n+b\n";
    assert_eq!(
        err(text),
        (
            "malformed hunk header `@@ -1,a +1 @@`".into(),
            "@@ -1,a +1 @@".into()
        )
    );
}

#[test]
fn never_panics_on_prefixes_of_a_real_patch() {
    for (i, _) in GIT_FULL.char_indices() {
        let _ = parse_patch(&GIT_FULL[..i]);
    }
}

/// The header paths of each file, as the patch writes them.
fn header_paths(text: &str, p: &Patch) -> Vec<Vec<(crate::patch::HeaderLine, String)>> {
    p.files
        .iter()
        .map(|f| {
            f.header_paths
                .iter()
                .map(|h| (h.line, text[h.span.range()].to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn header_paths_stand_where_the_patch_writes_them() {
    use crate::patch::HeaderLine::*;
    let p = parse_patch(GIT_FULL).unwrap();
    let h = header_paths(GIT_FULL, &p);
    // Binary: only the `diff --git` paths.
    assert_eq!(
        h[0],
        vec![(GitOld, "a/b.bin".into()), (GitNew, "b/b.bin".into())]
    );
    // CRLF content, LF headers.
    assert_eq!(
        h[1][2..],
        [(Old, "a/crlf.txt".into()), (New, "b/crlf.txt".into())]
    );
    // Deletion: `+++ /dev/null` is a path as written.
    assert_eq!(h[2][3], (New, "/dev/null".into()));
    // Rename: the bare paths of `rename from`/`rename to`.
    assert_eq!(
        h[3],
        vec![
            (GitOld, "a/mv.txt".into()),
            (GitNew, "b/moved.txt".into()),
            (RenameFrom, "mv.txt".into()),
            (RenameTo, "moved.txt".into()),
        ]
    );
    // Mode change with edits: the mode lines name no path.
    assert_eq!(h[4].len(), 4);
    assert!(p.files[4].hunks[0].section(GIT_FULL).is_empty());
    assert_eq!(
        &GIT_FULL[p.files[4].hunks[0].header.range()],
        "@@ -1,4 +1,6 @@"
    );
}

#[test]
fn header_paths_exclude_timestamps_and_keep_quotes_also_in_crlf() {
    use crate::patch::HeaderLine::*;
    let text = "--- a/x.py\t2024-01-01 00:00:00\r\n+++ b/x.py\t2024-01-02 00:00:00\r\n@@ -1 +1 @@ def f():\r\n-a\r\n+b\r\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(
        header_paths(text, &p)[0],
        vec![(Old, "a/x.py".into()), (New, "b/x.py".into())]
    );
    assert_eq!(p.files[0].hunks[0].section(text), " def f():");
    let text = "diff --git \"a/t\\303\\251st.py\" \"b/t\\303\\251st.py\"\nnew file mode 100644\nindex 0000000..e69de29\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(
        header_paths(text, &p)[0],
        vec![
            (GitOld, "\"a/t\\303\\251st.py\"".into()),
            (GitNew, "\"b/t\\303\\251st.py\"".into())
        ]
    );
    let text = "diff --git a/my file.txt b/my file.txt\nold mode 100644\nnew mode 100755\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(
        header_paths(text, &p)[0],
        vec![
            (GitOld, "a/my file.txt".into()),
            (GitNew, "b/my file.txt".into())
        ]
    );
}

#[test]
fn empty_files_and_a_missing_final_newline() {
    // A new empty file has no hunks, and needs none.
    let text = "diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n";
    let p = parse_patch(text).unwrap();
    assert_eq!(paths(&p), vec![(None, Some("empty"))]);
    assert!(p.files[0].hunks.is_empty());
    // Emptying a file: every line removed, `\ No newline` kept in the hunk's span.
    let text = "--- a/x\n+++ b/x\n@@ -1,2 +0,0 @@\n-a\n-b\n\\ No newline at end of file\n";
    let p = parse_patch(text).unwrap();
    let h = &p.files[0].hunks[0];
    assert_eq!(h.lines.len(), 2);
    assert!(text[h.span.range()].ends_with("\\ No newline at end of file"));
}

#[test]
fn lenient_parsing_reads_what_strict_parsing_refuses() {
    // Too few lines, garbage in a hunk, a header without hunks, a hunk without a header.
    let bad = [
        "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n",
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\ngarbage\n+b\n",
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n",
        "@@ -1 +1 @@\n-a\n+b\n",
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n+c\n",
        "--- a/x\n+++ b/x\n@@ -1,a +1 @@\n-a\n",
    ];
    for text in bad {
        assert!(parse_patch(text).is_err(), "{text}");
        let p = parse_patch_lenient(text);
        for f in &p.files {
            assert_eq!(&text[f.span.range()][..3], &text[..3], "{text}");
        }
    }
    assert_eq!(parse_patch_lenient(bad[0]).files[0].hunks[0].lines.len(), 3);
    assert_eq!(parse_patch_lenient(bad[2]).files.len(), 1);
    assert!(parse_patch_lenient(bad[3]).files.is_empty());
    // On a valid patch both agree.
    assert_eq!(
        parse_patch_lenient(GIT_FULL),
        parse_patch(GIT_FULL).unwrap()
    );
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// One file's section of a valid `git diff`: a kind of change and a path.
    fn section(kind: u8, path: &str, body: &[String]) -> String {
        let adds: String = body.iter().map(|l| format!("+{l}\n")).collect();
        let dels: String = body.iter().map(|l| format!("-{l}\n")).collect();
        let n = body.len().max(1);
        let adds = if adds.is_empty() {
            "+\n".to_string()
        } else {
            adds
        };
        let dels = if dels.is_empty() {
            "-\n".to_string()
        } else {
            dels
        };
        match kind % 6 {
            0 => format!("diff --git a/{path} b/{path}\nindex 1..2 100644\n--- a/{path}\n+++ b/{path}\n@@ -1,{n} +1,{n} @@\n{dels}{adds}"),
            1 => format!("diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{n} @@\n{adds}"),
            2 => format!("diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n@@ -1,{n} +0,0 @@\n{dels}\\ No newline at end of file\n"),
            3 => format!("diff --git a/{path} b/{path}.new\nsimilarity index 100%\nrename from {path}\nrename to {path}.new\n"),
            4 => format!("diff --git a/{path} b/{path}\nold mode 100644\nnew mode 100755\n"),
            _ => format!("diff --git a/{path} b/{path}\nindex 1..2 100644\nBinary files a/{path} and b/{path} differ\n"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// Arbitrary diff-looking text never panics the parser, strict or lenient.
        #[test]
        fn never_panics(text in "((diff --git |--- |\\+\\+\\+ |@@ -|@@ |\\\\|[ +\\-]|new file mode |rename from |\"a/)[a-z0-9,+\\- /\"\\\\é@]{0,12}\r?\n){0,30}") {
            let _ = parse_patch(&text);
            let p = parse_patch_lenient(&text);
            for f in &p.files {
                prop_assert!(text.get(f.span.range()).is_some());
                for h in &f.header_paths {
                    prop_assert!(text.get(h.span.range()).is_some());
                }
            }
        }

        /// Valid diffs of every kind of change (edits, new, deleted, renamed, mode-only,
        /// binary files; lines starting like headers; CRLF or not) parse into one file
        /// each, whose header paths are the paths as written, in both modes.
        #[test]
        fn every_kind_of_change_parses_with_its_paths(
            files in proptest::collection::vec((0u8..6, "[a-z]{1,6}(/[a-z]{1,6}){0,2}", proptest::collection::vec("(-- |\\+\\+\\+ |@@ )?[a-z ]{0,8}", 0..4)), 1..6),
            crlf in any::<bool>(),
        ) {
            let mut text: String = files.iter().map(|(k, p, b)| section(*k, p, b)).collect();
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            let strict = parse_patch(&text).map_err(|e| TestCaseError::fail(format!("{}: {text}", e.message)))?;
            prop_assert_eq!(&parse_patch_lenient(&text), &strict);
            prop_assert_eq!(strict.files.len(), files.len());
            for (f, (kind, path, _)) in strict.files.iter().zip(&files) {
                prop_assert_eq!(&text[f.header_paths[0].span.range()], format!("a/{path}"));
                prop_assert_eq!(f.binary, kind % 6 == 5);
                let expect_new = match kind % 6 { 2 => None, 3 => Some(format!("{path}.new")), _ => Some(path.clone()) };
                prop_assert_eq!(&f.new_path, &expect_new);
                for h in &f.header_paths {
                    prop_assert!(text[h.span.range()].ends_with(path.as_str()) || text[h.span.range()].ends_with(".new") || &text[h.span.range()] == "/dev/null");
                }
            }
        }
    }
}
