//! End to end with the real binary (local backend): a `test` block that stacks two hidden
//! test patches. `check` applies them in order at base; the runs restore and apply both, so
//! the test only the second patch adds is run and ends up in the oracle (here P2P).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::process::Command;

use common::root;

/// On top of cookie-split's `tests/proxy.patch`: one more test at the end of the file that
/// patch creates the end of.
const MORE: &str = "\
diff --git a/tests/test_cookies.py b/tests/test_cookies.py
--- a/tests/test_cookies.py
+++ b/tests/test_cookies.py
@@ -49,2 +49,6 @@
     with pytest.raises(ValueError):
         build_cookie_headers({\"big\": \"x\" * 200}, 100)
+
+
+def test_stacked_patch_is_applied():
+    assert True
";

#[test]
fn stacked_hidden_test_patches_reach_the_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ex = dir.path().join("cookie-split");
    common::copy_dir(&root().join("examples/cookie-split"), &ex);
    std::fs::remove_file(ex.join("cookie-split.lock")).expect("remove lock");
    std::fs::write(ex.join("tests/proxy-more.patch"), MORE).expect("write");
    let spec = std::fs::read_to_string(ex.join("cookie-split.task")).expect("read");
    let stacked = spec.replace(
        "patch file(\"tests/proxy.patch\")",
        "patch file(\"tests/proxy.patch\") file(\"tests/proxy-more.patch\")",
    );
    assert_ne!(spec, stacked);
    std::fs::write(ex.join("cookie-split.task"), stacked).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "--backend",
            "local",
            "--color",
            "never",
            "cookie-split.task",
        ])
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .current_dir(&ex)
        .output()
        .expect("run taskc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // cookie-split's proxy has 3 F2P and 6 P2P tests; the stacked patch adds one P2P.
    assert!(stdout.contains("proxy: 3 F2P, 7 P2P"), "{stdout}\n{stderr}");
    let lock = std::fs::read_to_string(ex.join("cookie-split.lock")).expect("lock written");
    assert!(
        lock.contains("tests/test_cookies.py::test_stacked_patch_is_applied"),
        "{lock}"
    );
}
