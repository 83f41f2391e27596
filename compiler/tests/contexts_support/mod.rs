//! Shared by the named-contexts tests (`check_contexts.rs`, `plan_contexts.rs`): one task
//! whose `env dockerfile` declares `contexts { … }`, and the files beside it.
#![allow(dead_code)]

use super::check_support::check_and_render;

pub const GOLD: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-X = 1
+X = 2
";

pub const TEST: &str = "\
diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1,2 @@
+def test_x():
+    assert True
";

/// `{contexts}` is replaced by the `contexts` block's lines.
pub const SPEC: &str = r#"task "ctx" {
  kind bugfix
  prompt "Make X two."
  verify per-repo
  allow W0501 "one target is enough to show contexts"
  env dockerfile {
    dockerfile file("env/Dockerfile")
    contexts {
{contexts}
    }
  }
  repo api {
    source dir("repos/api")
    gold file("a.patch")
    test { patch file("a_test.patch"); run "pytest -rA"; parser pytest }
  }
}
"#;

pub const VALID: &str = r#"      task_ctx dir("env/task_ctx")
      dep_0 image("ecosyncbench/deps/api:1")
      src repo(api)"#;

/// The files beside the spec: its Dockerfile, the folder context's `run.sh`, the patches and
/// the repository `api` (its `go.mod`), `gold` the gold patch.
pub fn files<'a>(
    dockerfile: &'a str,
    run_sh: &'a str,
    go_mod: &'a str,
    gold: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("env/Dockerfile", dockerfile),
        ("env/task_ctx/run.sh", run_sh),
        ("a.patch", gold),
        ("a_test.patch", TEST),
        ("repos/api/src/a.py", "X = 1\n"),
        ("repos/api/go.mod", go_mod),
        ("repos/api/go.sum", ""),
    ]
}

/// The spec with `contexts` as its `contexts { … }` lines, checked beside `files`.
pub fn check(contexts: &str, files: &[(&str, &str)]) -> (taskc_compiler::check::Checked, String) {
    check_and_render(&SPEC.replace("{contexts}", contexts), files)
}
