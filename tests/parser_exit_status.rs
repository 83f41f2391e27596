//! `parser exit-status` through the real binary on the local backend: a plain test script
//! whose exit status is its only result (WideSWE's case 60). The hidden test prints what
//! other parsers would read as passes (a pytest summary line, TAP `ok`, a JUnit testcase)
//! and still fails at base: only the status the harness records decides the one test,
//! `exit-status`, so `verify` finds it fail-to-pass and locks it. Before this parser the
//! spec was E0704 (no such parser).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const SPEC: &str = r#"task "exit-status-demo" {
  title "A plain test script scored by its exit status"
  kind bugfix
  ecosystem "python"
  languages ["python"]
  links ["https://example.invalid/demo/pull/1"]
  prompt file("prompt.md")
  verify per-repo

  env python {
    version "3.11"
  }

  repo tool {
    source dir("repos/tool")
    gold file("gold/tool.patch")
    test {
      patch file("tests/tool.patch")
      run "sh tests/check.sh"
      parser exit-status
      timeout 120
    }
  }
}
"#;

const GOLD: &str = "diff --git a/value.txt b/value.txt
index d00491f..0cfbf08 100644
--- a/value.txt
+++ b/value.txt
@@ -1 +1 @@
-1
+2
";

/// The hidden test: passes only when `value.txt` holds 2, and prints passing lines of other
/// runners' formats either way.
const HIDDEN: &str = r#"diff --git a/tests/check.sh b/tests/check.sh
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/tests/check.sh
@@ -0,0 +1,6 @@
+echo "PASSED tests/check.sh::test_value"
+echo "ok 1 - value"
+echo '<testsuite tests="1" failures="0"><testcase name="value"/></testsuite>'
+echo "exit-status: passed"
+test "$(cat value.txt)" = 2
+exit $?
"#;

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_script_is_scored_by_the_exit_status_the_harness_records_never_by_its_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("spec");
    write(&dir, "exit-status-demo.task", SPEC);
    write(&dir, "prompt.md", "Make value.txt hold 2.\n");
    write(&dir, "repos/tool/value.txt", "1\n");
    write(&dir, "gold/tool.patch", GOLD);
    write(&dir, "tests/tool.patch", HIDDEN);
    let spec = dir.join("exit-status-demo.task");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .arg("verify")
        .arg(&spec)
        .args(["--backend", "local", "--color", "never", "--cache"])
        .arg(tmp.path().join("cache"))
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    let lock = std::fs::read_to_string(dir.join("exit-status-demo.lock"))
        .unwrap_or_else(|e| panic!("no lock ({e}):\n{text}"));
    let tool = lock
        .split("[repos.tool]")
        .nth(1)
        .unwrap_or_else(|| panic!("{lock}"));
    assert!(
        tool.contains("f2p = [\"exit-status\"]") || tool.contains("f2p = [\n  \"exit-status\",\n]"),
        "{lock}\n{text}"
    );
    assert!(tool.contains("p2p = []"), "{lock}");
    // `verify` says why no canaries guard the run.
    assert!(text.contains("exit status"), "{text}");
}
