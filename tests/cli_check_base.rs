//! `taskc check` reads each repository at base where it can, read-only, with real git: a
//! local git source (path or `file://`), a remote's mirror already in the cache
//! (`--cache`), a URL rewritten in `taskc.toml`, a folder's own `.git`. A remote that is not
//! cached is skipped with a note, never failed. Each case snapshots the spec, the patches
//! and what `check` prints.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const GOOD: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return \"hi \" + name
+    return \"hello \" + name
";

/// Written against another version of `src/a.py`.
const STALE: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,2 @@
 def greet(person):
-    return \"hi \" + person
+    return \"hello \" + person
";

const TESTS: &str = "\
diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1,2 @@
+def test_greet():
+    assert True
";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A repository with one commit holding `src/a.py`; returns the commit.
fn upstream(dir: &Path) -> String {
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(
        dir.join("src/a.py"),
        "def greet(name):\n    return \"hi \" + name\n",
    )
    .expect("write");
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "base"]);
    git(dir, &["rev-parse", "HEAD"])
}

/// Two targets from `source` at `base`: `a`'s gold patch is `gold`, `b`'s always applies.
fn spec(source: &str, base: &str) -> String {
    format!(
        r#"task "greet" {{
  kind bugfix
  prompt "Say hello instead of hi."
  verify joint
  env python
  repo a {{
    source {source}
    base "{base}"
    gold file("a.patch")
    test {{ patch file("tests.patch"); run "pytest -rA"; parser pytest }}
  }}
  repo b {{
    source {source}
    base "{base}"
    gold file("good.patch")
    test {{ patch file("tests.patch"); run "pytest -rA"; parser pytest }}
  }}
}}
"#
    )
}

struct Case {
    dir: tempfile::TempDir,
    base: String,
}

fn case() -> Case {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = upstream(&dir.path().join("up"));
    std::fs::write(dir.path().join("good.patch"), GOOD).expect("write");
    std::fs::write(dir.path().join("tests.patch"), TESTS).expect("write");
    Case { dir, base }
}

impl Case {
    /// Check `spec.task` with `gold` as `a.patch`; the snapshot shows the inputs and output.
    fn check(&self, snap: &str, source: &str, gold: &str, extra: &[&str]) -> i32 {
        let root = self.dir.path();
        let text = spec(source, &self.base);
        std::fs::write(root.join("spec.task"), &text).expect("write");
        std::fs::write(root.join("a.patch"), gold).expect("write");
        let cache = root.join("cache");
        let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(["check", "--color", "never", "--cache"])
            .arg(&cache)
            .args(extra)
            .arg("spec.task")
            .current_dir(root)
            .output()
            .expect("run taskc");
        let code = out.status.code().unwrap_or(-1);
        let shown = |s: &str| s.replace(&self.base, "<base>");
        let toml = std::fs::read_to_string(root.join("taskc.toml")).unwrap_or_default();
        insta::assert_snapshot!(
            snap,
            format!(
                "---- spec.task ----\n{}{}---- a.patch ----\n{gold}---- taskc check --cache <cache> {}spec.task  (exit {code}) ----\n{}",
                shown(&text),
                if toml.is_empty() { String::new() } else { format!("---- taskc.toml ----\n{}", shown(&toml)) },
                extra.iter().map(|e| format!("{e} ")).collect::<String>(),
                shown(&String::from_utf8_lossy(&out.stderr))
            )
        );
        code
    }
}

#[test]
fn a_local_git_source_is_read_at_base() {
    let c = case();
    assert_eq!(c.check("local_applies", "git(\"up\")", GOOD, &[]), 0);
    assert_eq!(c.check("local_stale", "git(\"up\")", STALE, &[]), 1);
}

#[test]
fn an_uncached_remote_is_a_note_not_an_error() {
    let c = case();
    let remote = "git(\"https://example.invalid/up.git\")";
    assert_eq!(
        c.check("remote_uncached", remote, STALE, &["--deny-warnings"]),
        0
    );
}

#[test]
fn a_cached_mirror_of_a_remote_is_read_and_never_fetched() {
    let c = case();
    let url = "https://example.invalid/up.git";
    // The mirror `verify` would have made: <cache>/git/<sha256(url)>.git.
    let mirror = taskc_runtime::repo::mirror_path(&c.dir.path().join("cache"), url);
    std::fs::create_dir_all(mirror.parent().expect("parent")).expect("mkdir");
    git(
        c.dir.path(),
        &["clone", "-q", "--bare", "up", &mirror.to_string_lossy()],
    );
    assert_eq!(
        c.check("mirror_stale", &format!("git(\"{url}\")"), STALE, &[]),
        1
    );
    assert!(
        !mirror.join("FETCH_HEAD").exists(),
        "check fetched into the mirror"
    );
    // The cache holds nothing else: no temporary repositories, no other mirrors.
    let entries = std::fs::read_dir(c.dir.path().join("cache/git")).expect("read cache");
    assert_eq!(entries.count(), 1);
}

#[test]
fn a_rewritten_url_is_read_where_it_points() {
    let c = case();
    std::fs::write(
        c.dir.path().join("taskc.toml"),
        "[sources]\nrewrite = [{ prefix = \"https://github.com/example/\", to = \"./\" }]\n",
    )
    .expect("write");
    let url = "git(\"https://github.com/example/up\")";
    assert_eq!(c.check("rewrite_stale", url, STALE, &[]), 1);
}

#[test]
fn a_url_rewritten_to_a_file_url_is_read_there() {
    // `to = "file:///…"` (a local mirror by file URL) is read like a path: the stale patch
    // is caught, not skipped as an uncached remote (`file:` once looked like `host:path`).
    let c = case();
    let root = c.dir.path();
    std::fs::write(
        root.join("taskc.toml"),
        format!(
            "[sources]\nrewrite = [{{ prefix = \"https://github.com/example/\", to = \"file://{}/\" }}]\n",
            root.display()
        ),
    )
    .expect("write");
    std::fs::write(
        root.join("spec.task"),
        spec("git(\"https://github.com/example/up\")", &c.base),
    )
    .expect("write");
    std::fs::write(root.join("a.patch"), STALE).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never", "--format", "json", "--cache"])
        .arg(root.join("cache"))
        .arg("spec.task")
        .current_dir(root)
        .output()
        .expect("run taskc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("\"code\":\"E0404\""), "{stdout}");
    assert!(!stdout.contains("N0306"), "{stdout}");
}

#[test]
fn a_folder_with_its_own_git_is_read_at_its_base_commit() {
    let c = case();
    assert_eq!(c.check("dir_git_applies", "dir(\"up\")", GOOD, &[]), 0);
    // A base the folder's repository does not hold.
    let text = spec("dir(\"up\")", "0123456789abcdef0123456789abcdef01234567");
    let root = c.dir.path();
    std::fs::write(root.join("spec.task"), &text).expect("write");
    std::fs::write(root.join("a.patch"), GOOD).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never", "--format", "json", "spec.task"])
        .current_dir(root)
        .output()
        .expect("run taskc");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("\"code\":\"E0305\"").count(), 2, "{stdout}");
}
