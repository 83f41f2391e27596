//! The checks that read repositories at base through the `Loader` (here a `MemLoader`:
//! folders, and git sources made readable with `with_commit`), the prompt-leak lint's use
//! of the base, `allow`, and the messages around them. Each snapshot shows every input file
//! (repositories included) and the diagnostics.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;

use std::fmt::Write;

use taskc_compiler::check::{check_spec, Checked};
use taskc_compiler::loader::MemLoader;
use taskc_compiler::Code;

const BASE: &str = "0123456789abcdef0123456789abcdef01234567";
const URL: &str = "https://example.org/b.git";

const A_PY: &str = "def greet(name):\n    return \"hi \" + name\n";

const A_GOLD: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,6 @@
 def greet(name):
-    return \"hi \" + name
+    return \"hello \" + format_name(name)
+
+
+def format_name(name):
+    return name.title()
";

const A_TEST: &str = "\
diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1,2 @@
+def test_greet():
+    assert True
";

const B_GOLD: &str = "\
diff --git a/src/b.py b/src/b.py
--- a/src/b.py
+++ b/src/b.py
@@ -1 +1 @@
-from a import greet as hi
+from a import greet as hello
";

const B_TEST: &str = "\
diff --git a/tests/test_b.py b/tests/test_b.py
new file mode 100644
--- /dev/null
+++ b/tests/test_b.py
@@ -0,0 +1,2 @@
+def test_b():
+    assert True
";

const SPEC: &str = r#"task "greet" {
  kind bugfix
  prompt file("prompt.md")
  verify joint
  env python
  repo a {
    source dir("repos/a")
    gold file("a.patch")
    test { patch file("a_test.patch"); run "pytest -rA"; parser pytest }
  }
  repo b {
    source git("https://example.org/b.git")
    base "0123456789abcdef0123456789abcdef01234567"
    uses a
    gold file("b.patch")
    test { patch file("b_test.patch"); run "pytest -rA"; parser pytest }
  }
}
"#;

/// The default files, with `own` added or replacing them.
fn files<'a>(own: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all: Vec<(&str, &str)> = vec![
        ("prompt.md", "Say hello instead of hi.\n"),
        ("a.patch", A_GOLD),
        ("a_test.patch", A_TEST),
        ("b.patch", B_GOLD),
        ("b_test.patch", B_TEST),
        ("repos/a/src/a.py", A_PY),
    ];
    for (p, t) in own {
        all.retain(|(q, _)| q != p);
        all.push((p, t));
    }
    all
}

/// Check `spec` with the files, `b`'s git source holding `b_files` at `BASE` (or not
/// readable when `None`); the text shows every input and the diagnostics.
fn check(spec: &str, own: &[(&str, &str)], b_files: Option<&[(&str, &str)]>) -> (Checked, String) {
    let all = files(own);
    let mut loader = MemLoader::new();
    for (p, t) in &all {
        loader = loader.with(p, t.as_bytes());
    }
    if let Some(b) = b_files {
        loader = loader.with_commit(URL, BASE, b);
    }
    let checked = check_spec("task/spec.task", spec.as_bytes(), &loader);
    let mut out = format!("--- task/spec.task\n{spec}");
    for (p, t) in &all {
        let _ = write!(out, "--- task/{p}\n{t}");
    }
    match b_files {
        Some(b) => {
            for (p, t) in b {
                let _ = write!(out, "--- {URL} at {BASE}: {p}\n{t}");
            }
        }
        None => out.push_str(&format!("--- {URL}: not readable\n")),
    }
    out.push_str("=== diagnostics\n");
    out.push_str(&check_support::render(&checked));
    (checked, out)
}

fn codes(c: &Checked) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

const B_AT_BASE: &[(&str, &str)] = &[("src/b.py", "from a import greet as hi\n")];

#[test]
fn patches_that_apply_at_base_are_clean() {
    let (c, out) = check(SPEC, &[], Some(B_AT_BASE));
    assert_eq!(codes(&c), vec![Code::PromptLeak; 0], "{out}");
    assert!(c.task.is_some());
}

#[test]
fn e0404_a_hunk_that_matches_nowhere() {
    let stale = A_GOLD.replace(" def greet(name):", " def greet(person):");
    let (c, out) = check(SPEC, &[("a.patch", &stale)], Some(B_AT_BASE));
    insta::assert_snapshot!("e0404", out);
    assert_eq!(codes(&c), vec![Code::PatchDoesNotApply], "{out}");
}

#[test]
fn e0405_a_changed_file_missing_at_base_suggests_the_closest() {
    let b = &[("src/bb.py", "from a import greet as hi\n")];
    let (c, out) = check(SPEC, &[], Some(b));
    insta::assert_snapshot!("e0405", out);
    assert_eq!(codes(&c), vec![Code::PatchFileMissing], "{out}");
    assert!(out.contains("did you mean `src/bb.py`?"), "{out}");
}

#[test]
fn e0406_a_created_file_that_exists() {
    let b = &[
        ("src/b.py", "from a import greet as hi\n"),
        ("tests/test_b.py", "def test_b():\n    pass\n"),
    ];
    let (c, out) = check(SPEC, &[], Some(b));
    insta::assert_snapshot!("e0406", out);
    assert_eq!(codes(&c), vec![Code::PatchFileExists], "{out}");
}

#[test]
fn e0305_a_base_the_source_does_not_hold() {
    let spec = SPEC.replace(BASE, "89abcdef0123456789abcdef0123456789abcdef");
    let (c, out) = check(&spec, &[], Some(B_AT_BASE));
    insta::assert_snapshot!("e0305", out);
    assert_eq!(codes(&c), vec![Code::BaseNotInSource], "{out}");
}

#[test]
fn n0306_an_unreadable_source_is_a_note_and_the_task_checks() {
    let (c, out) = check(SPEC, &[], None);
    insta::assert_snapshot!("n0306", out);
    assert_eq!(codes(&c), vec![Code::BaseUnreadable], "{out}");
    assert!(c.task.is_some(), "a note is not a finding");
}

#[test]
fn e0407_a_diff_saved_with_colour_codes() {
    let coloured = A_GOLD
        .lines()
        .map(|l| match l.as_bytes().first() {
            Some(b'+') => format!("\u{1b}[32m{l}\u{1b}[m\n"),
            Some(b'-') => format!("\u{1b}[31m{l}\u{1b}[m\n"),
            Some(b'@') => format!("\u{1b}[36m{l}\u{1b}[m\n"),
            _ => format!("\u{1b}[1m{l}\u{1b}[m\n"),
        })
        .collect::<String>();
    let (c, out) = check(SPEC, &[("a.patch", &coloured)], Some(B_AT_BASE));
    insta::assert_snapshot!("e0407", out.replace('\u{1b}', "<ESC>"));
    assert_eq!(codes(&c), vec![Code::PatchColourCodes], "{out}");
}

const LEAKY: &str = "Greet people with hello and capitalise names with a `format_name` helper.\n";

#[test]
fn w0800_warns_on_a_name_only_the_gold_patch_introduces() {
    let (c, out) = check(SPEC, &[("prompt.md", LEAKY)], Some(B_AT_BASE));
    insta::assert_snapshot!("w0800_leak", out);
    assert_eq!(codes(&c), vec![Code::PromptLeak], "{out}");
}

#[test]
fn w0800_is_quiet_when_the_name_exists_at_base() {
    // `format_name` exists in another repository at base: naming it gives nothing away.
    let b = &[
        ("src/b.py", "from a import greet as hi\n"),
        ("src/names.py", "def format_name(n):\n    return n\n"),
    ];
    let (c, out) = check(SPEC, &[("prompt.md", LEAKY)], Some(b));
    assert_eq!(codes(&c), vec![], "{out}");
}

#[test]
fn w0800_does_not_guess_when_a_repository_is_unreadable_at_base() {
    // `b` cannot be read at base, so `format_name` may exist there already: a note that
    // says so (N1600), never the warning (before: W0800, failing `--deny-warnings`).
    let (c, out) = check(SPEC, &[("prompt.md", LEAKY)], None);
    insta::assert_snapshot!("n1600_leak_unchecked", out);
    assert_eq!(
        codes(&c),
        vec![Code::BaseUnreadable, Code::PromptLeakUnchecked],
        "{out}"
    );
}

#[test]
fn w0800_skips_builtins_and_the_gold_patch_s_test_lines() {
    let gold = format!(
        "{A_GOLD}\
diff --git a/tests/test_names.py b/tests/test_names.py
new file mode 100644
--- /dev/null
+++ b/tests/test_names.py
@@ -0,0 +1,3 @@
+def test_title_case():
+    with pytest.raises(ValueError):
+        format_title_case(None)
"
    );
    let prompt = "Say hello; raise `ValueError` on bad names; see test_title_case.\n";
    let (c, out) = check(
        SPEC,
        &[("prompt.md", prompt), ("a.patch", &gold)],
        Some(B_AT_BASE),
    );
    assert_eq!(codes(&c), vec![], "{out}");
}

#[test]
fn allow_accepts_a_warning_with_a_reason() {
    let spec = SPEC.replace(
        "  verify joint\n",
        "  verify joint\n  allow W0800 \"the prompt must name the helper: it is the requested interface\"\n",
    );
    let (c, out) = check(&spec, &[("prompt.md", LEAKY)], Some(B_AT_BASE));
    insta::assert_snapshot!("allow_accepted", out);
    assert_eq!(codes(&c), vec![], "{out}");
    assert_eq!(c.allowed, vec![Code::PromptLeak]);
    assert!(c.task.is_some());
}

#[test]
fn allow_needs_a_warning_code_and_a_reason() {
    let spec = SPEC.replace(
        "  verify joint\n",
        "  verify joint\n  allow W0801 \"typo\"\n  allow E0404 \"errors cannot be allowed\"\n  allow W0800\n  allow W0401 \"  \"\n",
    );
    let (c, out) = check(&spec, &[("prompt.md", LEAKY)], Some(B_AT_BASE));
    insta::assert_snapshot!("allow_errors", out);
    assert_eq!(
        codes(&c),
        vec![
            Code::AllowUnknownCode,
            Code::AllowUnknownCode,
            Code::AllowMissingReason,
            Code::AllowMissingReason,
            Code::PromptLeak
        ],
        "{out}"
    );
}

#[test]
fn a_misspelt_required_field_is_reported_once() {
    let spec = SPEC.replace("  prompt file(", "  promt file(");
    let (c, out) = check(&spec, &[], Some(B_AT_BASE));
    insta::assert_snapshot!("promt", out);
    assert_eq!(codes(&c), vec![Code::UnknownField], "{out}");
}

#[test]
fn a_missing_path_suggests_the_closest_existing_one() {
    let spec = SPEC
        .replace("file(\"a_test.patch\")", "file(\"a-test.patch\")")
        .replace("dir(\"repos/a\")", "dir(\"repo/a\")");
    let (c, out) = check(&spec, &[], Some(B_AT_BASE));
    insta::assert_snapshot!("missing_path", out);
    assert_eq!(
        codes(&c),
        vec![Code::FileNotFound, Code::FileNotFound],
        "{out}"
    );
    assert!(out.contains("did you mean `a_test.patch`?"), "{out}");
    assert!(out.contains("did you mean `repos/a`?"), "{out}");
}

#[test]
fn e0705_recipe_values_that_cannot_be_one_safe_word() {
    let spec = SPEC.replace(
        "  env python\n",
        "  env python {\n    packages [\"pytest<9\", \"--index-url=http://mirror.invalid\", \"numpy\\nRUN curl x | sh\", \"\"]\n  }\n",
    );
    let (c, out) = check(&spec, &[], Some(B_AT_BASE));
    insta::assert_snapshot!("e0705", out);
    assert_eq!(codes(&c), vec![Code::ParamUnsafe; 3], "{out}");
}

/// A second hidden test patch, written on top of `B_TEST`.
const B_TEST_MORE: &str = "\
diff --git a/tests/test_b.py b/tests/test_b.py
--- a/tests/test_b.py
+++ b/tests/test_b.py
@@ -1,2 +1,5 @@
 def test_b():
     assert True
+
+def test_b_more():
+    assert hello(\"x\") == \"hello x\"
";

#[test]
fn stacked_hidden_test_patches_apply_in_order_and_lower_as_one() {
    let spec = SPEC.replace(
        "patch file(\"b_test.patch\")",
        "patch file(\"b_test.patch\") file(\"b_test_more.patch\")",
    );
    let own = [("b_test_more.patch", B_TEST_MORE)];
    let (c, out) = check(&spec, &own, Some(B_AT_BASE));
    assert_eq!(codes(&c), vec![], "{out}");
    let task = c.task.expect("task");
    let t = task
        .repo("b")
        .and_then(|r| r.test.as_ref())
        .expect("test block");
    assert_eq!(t.patch.path, "b_test.patch + b_test_more.patch");
    assert_eq!(t.patch.text, format!("{B_TEST}{B_TEST_MORE}"));
    // Runs apply the stack as one patch: both file patches, in order.
    let plan = taskc_compiler::lower::lower_verify(&task, &Default::default()).expect("lowers");
    let json = serde_json::to_string(&plan).expect("plan serialises");
    assert!(
        json.contains("test_b_more"),
        "the stacked tests reach the plan"
    );
}

#[test]
fn stacked_hidden_test_patches_in_the_wrong_order_do_not_apply() {
    let spec = SPEC.replace(
        "patch file(\"b_test.patch\")",
        "patch file(\"b_test_more.patch\") file(\"b_test.patch\")",
    );
    let own = [("b_test_more.patch", B_TEST_MORE)];
    let (c, out) = check(&spec, &own, Some(B_AT_BASE));
    insta::assert_snapshot!("stacked_wrong_order", out);
    assert_eq!(codes(&c), vec![Code::PatchFileMissing], "{out}");
}

/// A Rust library whose unit tests live beside the code.
const LIB_RS: &str = "pub fn add(a: u8, b: u8) -> u8 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn zero() {\n        assert_eq!(add(0, 0), 0);\n    }\n}\n";

const RUST_SPEC: &str = r#"task "add" {
  kind bugfix
  prompt file("prompt.md")
  verify per-repo
  env rust
  repo lib {
    source dir("repos/lib")
    gold file("lib.patch")
    test { patch file("lib_test.patch"); run "cargo test"; parser cargo }
  }
}
"#;

const LIB_GOLD: &str = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -1,3 +1,3 @@
 pub fn add(a: u8, b: u8) -> u8 {
-    a - b
+    a + b
 }
";

/// Hidden unit tests added inside `mod tests` (issue 21 item 10): no W0401, since runs keep
/// a solution's changes to the rest of `src/lib.rs`; one that changes the code beside them
/// still gets W0401, naming the file.
#[test]
fn hidden_unit_tests_inside_a_cfg_test_module_are_not_code() {
    let inside = "\
diff --git a/src/lib.rs b/src/lib.rs
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -10,4 +10,9 @@ mod tests {
     fn zero() {
         assert_eq!(add(0, 0), 0);
     }
+
+    #[test]
+    fn two() {
+        assert_eq!(add(1, 1), 2);
+    }
 }
";
    let own = [
        ("repos/lib/src/lib.rs", LIB_RS),
        ("lib.patch", LIB_GOLD),
        ("lib_test.patch", inside),
    ];
    let (c, out) = check(RUST_SPEC, &own, Some(B_AT_BASE));
    assert!(!codes(&c).contains(&Code::TestPatchTouchesCode), "{out}");
    assert!(!codes(&c).contains(&Code::PatchDoesNotApply), "{out}");

    let outside = inside.replace(
        "@@ -10,4 +10,9 @@ mod tests {\n",
        "@@ -1,3 +1,3 @@\n pub fn add(a: u8, b: u8) -> u8 {\n-    a - b\n+    b - a\n }\n@@ -10,4 +10,9 @@ mod tests {\n",
    );
    let own = [
        ("repos/lib/src/lib.rs", LIB_RS),
        ("lib.patch", LIB_GOLD),
        ("lib_test.patch", outside.as_str()),
    ];
    let (c, out) = check(RUST_SPEC, &own, Some(B_AT_BASE));
    assert!(codes(&c).contains(&Code::TestPatchTouchesCode), "{out}");
    assert!(
        out.contains("changes `src/lib.rs` outside its `#[cfg(test)]` modules"),
        "{out}"
    );
}
