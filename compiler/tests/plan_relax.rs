//! Relaxed hidden-test patches are still valid unified diffs: the checker's own diff parser
//! (which validates hunk line counts) reads every edited patch.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use taskc_compiler::lower::relax::{apply_edits, Edit};
use taskc_compiler::patch::parse_patch;

const PATCH: &str = "diff --git a/tests/test_refresh.py b/tests/test_refresh.py
index 3b18e51..a9c1f2e 100644
--- a/tests/test_refresh.py
+++ b/tests/test_refresh.py
@@ -1,3 +1,7 @@ import pytest
 import pytest
+
+def test_big():
+    with pytest.raises(ValueError, match=\"cookie too large\"):
+        split(\"x\" * 5000)
 
 def test_small():
@@ -20,2 +24,4 @@ def test_small():
     assert split(\"a\") == [\"a\"]
+    # refresh
+    assert refresh(\"a\", match=\"cookie too large\") is None
 # end
";

fn added(text: &str) -> Vec<String> {
    let p = parse_patch(text).unwrap_or_else(|e| panic!("{}\n{text}", e.message));
    p.files[0].added_lines().map(|l| l.text.clone()).collect()
}

#[test]
fn edited_patches_still_parse_with_consistent_hunk_counts() {
    let cases = [
        // same line count
        (
            "pytest.raises(ValueError, match=\"cookie too large\")",
            "pytest.raises(ValueError)",
        ),
        // fewer lines (two added lines become one)
        (
            "match=\"cookie too large\"):\n        split(",
            "match=\"too large\"): split(",
        ),
        // more lines
        ("def test_big():", "@pytest.mark.slow\ndef test_big():"),
        // an edit in the second hunk
        (
            "refresh(\"a\", match=\"cookie too large\")",
            "refresh(\"a\")",
        ),
    ];
    assert_eq!(added(PATCH).len(), 6);
    for (replace, with) in cases {
        let out = apply_edits(
            PATCH,
            &[Edit {
                file: "tests/test_refresh.py",
                replace,
                with,
            }],
        )
        .unwrap();
        let lines = added(&out).join("\n");
        assert!(lines.contains(with), "{with:?} missing in\n{out}");
        let lf = PATCH.matches('\n').count() as i64;
        let delta = with.matches('\n').count() as i64 - replace.matches('\n').count() as i64;
        assert_eq!(out.matches('\n').count() as i64, lf + delta);
    }
    // Two edits at once, in different hunks, one changing the line count.
    let out = apply_edits(
        PATCH,
        &[
            Edit {
                file: "tests/test_refresh.py",
                replace: "def test_big():",
                with: "@pytest.mark.slow\ndef test_big():",
            },
            Edit {
                file: "tests/test_refresh.py",
                replace: "refresh(\"a\", match=\"cookie too large\")",
                with: "refresh(\"a\")",
            },
        ],
    )
    .unwrap();
    assert_eq!(added(&out).len(), 7);
    assert!(out.contains("@@ -20,2 +25,4 @@ def test_small():"), "{out}");
}
