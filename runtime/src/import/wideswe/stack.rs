//! A later hidden test patch of one repository (WideSWE stacks a "contract alignment" patch
//! on the upstream test diff) as typed `relax … edit`s, when it only rewrites lines the
//! earlier patches add.
//!
//! Each hunk of the later patch, trimmed to its changed lines (and the context between
//! them), must quote a run of consecutive added lines of the same file in the earlier
//! patches exactly once, starting and ending on line boundaries; the edit replaces that run
//! with the hunk's new side. A hunk that only adds lines is anchored on the context line
//! before it (or after it). The result is checked with the compiler's own
//! [`apply_edits`], so what the importer writes is what `taskc` applies. A patch that does
//! not map this way, hunk for hunk, stays a stacked patch.

use taskc_compiler::lower::relax::{apply_edits, Edit};
use taskc_compiler::patch::{parse_patch, FilePatch, LineKind};

/// One edit of the hidden test patch: replace `replace` with `with` in `file`'s added lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    pub file: String,
    pub replace: String,
    pub with: String,
}

/// `later` as edits of `earlier` (the text of the earlier patches, in order), or `None`
/// when it does not map hunk for hunk.
pub fn as_edits(earlier: &str, later: &str) -> Option<Vec<Rewrite>> {
    let before = parse_patch(earlier).ok()?;
    let after = parse_patch(later).ok()?;
    if after.files.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for fp in &after.files {
        if fp.binary || fp.old_path.is_none() || fp.new_path.is_none() || fp.old_path != fp.new_path
        {
            return None;
        }
        let path = fp.path();
        let added = added_text(before.files.iter().filter(|f| f.path() == path));
        for h in &fp.hunks {
            let rw = hunk_edit(path, &h.lines)?;
            if !once_on_lines(&added, &rw.replace) {
                return None;
            }
            out.push(rw);
        }
    }
    let edits: Vec<Edit<'_>> = out
        .iter()
        .map(|r| Edit {
            file: &r.file,
            replace: &r.replace,
            with: &r.with,
        })
        .collect();
    apply_edits(earlier, &edits).ok()?;
    Some(out)
}

/// The added lines of `files`, joined with `\n` (as `relax` edits see them).
fn added_text<'a>(files: impl Iterator<Item = &'a FilePatch>) -> String {
    let lines: Vec<&str> = files
        .flat_map(|f| f.added_lines())
        .map(|l| l.text.as_str())
        .collect();
    lines.join("\n")
}

/// `needle` occurs exactly once in `hay`, and that once is whole lines.
fn once_on_lines(hay: &str, needle: &str) -> bool {
    if needle.is_empty() || hay.matches(needle).count() != 1 {
        return false;
    }
    let framed = format!("\n{hay}\n");
    framed.matches(&format!("\n{needle}\n")).count() == 1
}

/// The edit one hunk makes: its old and new side between its first and last change.
fn hunk_edit(file: &str, lines: &[taskc_compiler::patch::HunkLine]) -> Option<Rewrite> {
    let changed = |k: LineKind| k != LineKind::Context;
    let first = lines.iter().position(|l| changed(l.kind))?;
    let last = lines.iter().rposition(|l| changed(l.kind))?;
    let mut region: Vec<&taskc_compiler::patch::HunkLine> = lines[first..=last].iter().collect();
    if !region.iter().any(|l| l.kind != LineKind::Added) {
        // Only additions: anchor on the context line before, else after.
        if first > 0 {
            region.insert(0, &lines[first - 1]);
        } else if let Some(next) = lines.get(last + 1) {
            region.push(next);
        } else {
            return None;
        }
    }
    let side = |keep: LineKind| -> String {
        region
            .iter()
            .filter(|l| l.kind == LineKind::Context || l.kind == keep)
            .map(|l| l.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    Some(Rewrite {
        file: file.to_string(),
        replace: side(LineKind::Removed),
        with: side(LineKind::Added),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRST: &str = "\
diff --git a/t/test_a.py b/t/test_a.py
index 1111111..2222222 100644
--- a/t/test_a.py
+++ b/t/test_a.py
@@ -1,2 +1,7 @@
 import pytest
 
+def test_new():
+    x = make()
+    with pytest.raises(TypeError, match=\"must be\"):
+        make(bad=True)
+
";

    #[test]
    fn a_rewrite_of_added_lines_becomes_an_edit() {
        let second = "\
diff --git a/t/test_a.py b/t/test_a.py
index 2222222..3333333 100644
--- a/t/test_a.py
+++ b/t/test_a.py
@@ -3,5 +3,6 @@ import pytest
 def test_new():
     x = make()
-    with pytest.raises(TypeError, match=\"must be\"):
+    assert x
+    with pytest.raises(TypeError):
         make(bad=True)
 
";
        let edits = as_edits(FIRST, second).expect("maps");
        assert_eq!(
            edits,
            [Rewrite {
                file: "t/test_a.py".into(),
                replace: "    with pytest.raises(TypeError, match=\"must be\"):".into(),
                with: "    assert x\n    with pytest.raises(TypeError):".into(),
            }]
        );
    }

    #[test]
    fn a_patch_touching_base_lines_stays_stacked() {
        let second = "\
diff --git a/t/test_a.py b/t/test_a.py
index 2222222..3333333 100644
--- a/t/test_a.py
+++ b/t/test_a.py
@@ -1,3 +1,3 @@
-import pytest
+import pytest, os
 
 def test_new():
";
        assert_eq!(as_edits(FIRST, second), None);
        let other_file = "\
diff --git a/t/test_b.py b/t/test_b.py
index 2222222..3333333 100644
--- a/t/test_b.py
+++ b/t/test_b.py
@@ -1 +1 @@
-a
+b
";
        assert_eq!(as_edits(FIRST, other_file), None);
    }

    #[test]
    fn pure_additions_are_anchored_on_context() {
        let second = "\
diff --git a/t/test_a.py b/t/test_a.py
index 2222222..3333333 100644
--- a/t/test_a.py
+++ b/t/test_a.py
@@ -4,2 +4,3 @@ def test_new():
     x = make()
+    assert x is not None
     with pytest.raises(TypeError, match=\"must be\"):
";
        let edits = as_edits(FIRST, second).expect("maps");
        assert_eq!(edits[0].replace, "    x = make()");
        assert_eq!(edits[0].with, "    x = make()\n    assert x is not None");
    }
}
