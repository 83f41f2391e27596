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

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// Arbitrary diff-looking text never panics the parser.
        #[test]
        fn never_panics(text in "((diff --git |--- |\\+\\+\\+ |@@ -|@@ |\\\\|[ +\\-]|new file mode |rename from |\"a/)[a-z0-9,+\\- /\"\\\\é@]{0,12}\r?\n){0,30}") {
            let _ = parse_patch(&text);
        }
    }
}
