//! One snapshot per semantic diagnostic code (E02xx–E07xx, W0800): a small spec and the
//! files it names, then the diagnostics rendered as plain text (code, severity, message,
//! `file:line:col: label` with the source line and a caret line, help).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;

use check_support::check_and_render;
use taskc_compiler::model::{
    ParamValue, RelaxAction, Role, Rule, Source, TaskKind, VerifyStrategy,
};
use taskc_compiler::Code;

const A_GOLD: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,3 @@
 def greet(name):
-    return \"hi \" + name
+    return f\"hello {name}\"
+
";

const A_TEST: &str = "\
diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1,6 @@
+from src.a import greet
+
+
+def test_greet():
+    assert greet(\"bo\") == \"hello bo\"
+    assert greet(\"al\") == \"hello al\"
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
--- a/tests/test_b.py
+++ b/tests/test_b.py
@@ -1,2 +1,2 @@
 def test_b():
-    assert True
+    assert hello(\"x\") == \"hello x\"
";

/// Files every case has; a case's own files are added (or replace these) and are shown.
const BASE_FILES: &[(&str, &str)] = &[
    ("a.patch", A_GOLD),
    ("a_test.patch", A_TEST),
    ("b.patch", B_GOLD),
    ("b_test.patch", B_TEST),
    (
        "repos/a/src/a.py",
        "def greet(name):\n    return \"hi \" + name\n",
    ),
    ("repos/b/src/b.py", "from a import greet as hi\n"),
    (
        "repos/b/tests/test_b.py",
        "def test_b():\n    assert True\n",
    ),
];

/// A valid two-target spec; cases edit it with `replace`.
const VALID: &str = r#"task "greet" {
  kind bugfix
  prompt "Say hello instead of hi."
  verify joint
  env python
  repo a {
    source dir("repos/a")
    gold file("a.patch")
    test {
      patch file("a_test.patch")
      run "python -m pytest -rA tests"
      parser pytest
    }
  }
  repo b {
    source dir("repos/b")
    uses a
    gold file("b.patch")
    test { patch file("b_test.patch"); run "python -m pytest -rA tests"; parser pytest }
  }
}
"#;

fn files<'a>(own: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut all: Vec<(&str, &str)> = BASE_FILES
        .iter()
        .filter(|(p, _)| !own.iter().any(|(q, _)| q == p))
        .copied()
        .collect();
    all.extend_from_slice(own);
    all
}

/// Check `spec` with the base files plus `own`; snapshot the spec, `own` and the output.
fn case(spec: &str, own: &[(&str, &str)]) -> (taskc_compiler::check::Checked, String) {
    let (checked, _) = check_and_render(spec, &files(own));
    let (_, shown) = check_and_render(spec, own);
    // Re-render with the real diagnostics but only the case's own files shown.
    let diags = check_support::render(&checked);
    let head = shown
        .split("=== diagnostics\n")
        .next()
        .unwrap_or("")
        .to_string();
    (checked, format!("{head}=== diagnostics\n{diags}"))
}

fn codes(c: &taskc_compiler::check::Checked) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

fn edit(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "VALID has no {from:?}");
    VALID.replacen(from, to, 1)
}

macro_rules! snap {
    ($name:literal, $spec:expr, $own:expr, [$($code:ident),*]) => {{
        let (checked, out) = case(&$spec, $own);
        insta::assert_snapshot!($name, out);
        assert_eq!(codes(&checked), vec![$(Code::$code),*], "{out}");
        checked
    }};
}

#[test]
fn valid_spec_has_no_diagnostics_and_the_expected_task() {
    let (checked, out) = case(VALID, &[]);
    assert!(checked.diagnostics.is_empty(), "{out}");
    let task = checked.task.expect("task");
    assert_eq!(task.id, "greet");
    assert_eq!(task.spec_path, "task/spec.task");
    assert_eq!(task.kind, TaskKind::Bugfix);
    assert_eq!(task.verify, VerifyStrategy::Joint);
    assert_eq!(task.prompt.text, "Say hello instead of hi.");
    assert_eq!(task.prompt.file, None);
    assert_eq!(task.env.recipe, "python");
    assert_eq!(
        task.env.params.get("version"),
        Some(&ParamValue::Str("3.11".into()))
    );
    assert_eq!(
        task.env.params.get("packages"),
        Some(&ParamValue::List(vec![]))
    );
    assert_eq!(task.repos.len(), 2);
    let a = &task.repos[0];
    assert_eq!((a.name.as_str(), a.role), ("a", Role::Target));
    let Source::Dir { path, digest } = &a.source else {
        panic!("dir source")
    };
    assert_eq!(path, "repos/a");
    assert_eq!(digest.len(), 64);
    let gold = a.gold.as_ref().expect("gold");
    assert_eq!(gold.path, "a.patch");
    assert_eq!(gold.patch.files[0].path(), "src/a.py");
    assert_eq!(gold.digest.len(), 64);
    let test = a.test.as_ref().expect("test");
    assert_eq!(test.parser, taskc_compiler::parser::LogParser::Pytest);
    assert_eq!(
        test.timeout_secs,
        taskc_compiler::model::DEFAULT_TEST_TIMEOUT_SECS
    );
    assert_eq!(test.patch.patch.files[0].path(), "tests/test_a.py");
    assert_eq!(task.repos[1].uses, vec!["a".to_string()]);
}

#[test]
fn full_spec_reads_every_field() {
    let spec = r##"task "greet" {
  title "Say hello"
  kind feature
  ecosystem "python"
  languages ["python"]
  links ["https://example.org/pr/1"]
  prompt file("prompt.md")
  verify per-repo
  env python { version "3.11"; packages ["pytest==8.0"] }
  repo a {
    source git("https://example.org/a.git")
    base "0123456789ABCDEF0123456789abcdef01234567"
    gold file("./a.patch")
    setup "pip install -e ."
    setup "echo ready"
    test {
      patch file("a_test.patch")
      run "pytest"
      parser pytest
      timeout "10m"
      expect f2p "tests/test_a.py::test_greet"
      expect p2p "tests/test_a.py::test_other"
    }
  }
  repo b {
    source bundle("b.bundle")
    base "89abcdef0123456789abcdef0123456789abcdef"
    uses a
    gold file("b.patch")
    test { patch file("b_test.patch"); run "pytest"; parser pytest; timeout 90 }
  }
  context docs { source dir("repos/a") }
  relax a {
    drop "tests/test_a.py::test_greet_al" { rule unrequested; because "the prompt only names bo" }
    edit "tests/test_a.py" {
      rule implementation-specific
      because "the prompt does not fix the greeting's exact text"
      replace r#"== "hello bo""# with "in (\"hello bo\", \"hello, bo\")"
    }
  }
}
"##;
    let (checked, out) = case(
        spec,
        &[
            ("prompt.md", "Greet people with hello.\n"),
            ("b.bundle", "bundle bytes"),
        ],
    );
    // Neither the remote nor the bundle (not a real one) can be read at base: notes, not findings.
    let codes: Vec<Code> = checked.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::BaseUnreadable], "{out}");
    let task = checked.task.expect("task");
    assert_eq!(task.title.as_deref(), Some("Say hello"));
    assert_eq!(task.kind, TaskKind::Feature);
    assert_eq!(task.languages, vec!["python".to_string()]);
    assert_eq!(task.prompt.file.as_deref(), Some("prompt.md"));
    assert_eq!(
        task.env.params.get("packages"),
        Some(&ParamValue::List(vec!["pytest==8.0".into()]))
    );
    let a = &task.repos[0];
    assert_eq!(
        a.base.as_deref(),
        Some("0123456789abcdef0123456789abcdef01234567")
    );
    assert_eq!(a.gold.as_ref().map(|g| g.path.as_str()), Some("a.patch"));
    assert_eq!(
        a.setup,
        vec!["pip install -e .".to_string(), "echo ready".to_string()]
    );
    let t = a.test.as_ref().expect("test");
    assert_eq!(t.timeout_secs, 600);
    assert_eq!(
        t.expect.f2p,
        vec!["tests/test_a.py::test_greet".to_string()]
    );
    assert_eq!(
        t.expect.p2p,
        vec!["tests/test_a.py::test_other".to_string()]
    );
    assert_eq!(a.relaxations.len(), 2);
    assert_eq!(a.relaxations[0].rule, Rule::Unrequested);
    assert_eq!(
        a.relaxations[1].action,
        RelaxAction::Edit {
            file: "tests/test_a.py".into(),
            replace: "== \"hello bo\"".into(),
            with: "in (\"hello bo\", \"hello, bo\")".into(),
        }
    );
    let Source::Bundle { digest, .. } = &task.repos[1].source else {
        panic!("bundle")
    };
    assert_eq!(digest.len(), 64);
    assert_eq!(
        task.repos[1].test.as_ref().map(|t| t.timeout_secs),
        Some(90)
    );
    assert_eq!(task.repos[2].role, Role::Context);
}

#[test]
fn e0200_unknown_field() {
    snap!(
        "e0200_unknown_field",
        edit("  kind bugfix\n", "  kind bugfix\n  titel \"Greet\"\n"),
        &[],
        [UnknownField]
    );
}

#[test]
fn e0201_duplicate_field() {
    snap!(
        "e0201_duplicate_field",
        edit("  verify joint\n", "  verify joint\n  kind feature\n"),
        &[],
        [DuplicateField]
    );
}

#[test]
fn e0202_missing_field() {
    snap!(
        "e0202_missing_field",
        edit("  prompt \"Say hello instead of hi.\"\n", ""),
        &[],
        [MissingField]
    );
}

#[test]
fn e0203_invalid_value() {
    let spec = edit(
        "      parser pytest\n",
        "      parser pytest\n      timeout 0\n",
    )
    .replace("  kind bugfix\n", "  kind bugfix\n  title [\"Greet\"]\n")
    .replace(
        "parser pytest }",
        "parser pytest; timeout \"ten minutes\" }",
    );
    snap!(
        "e0203_invalid_value",
        spec,
        &[],
        [InvalidValue, InvalidValue, InvalidValue]
    );
}

#[test]
fn e0204_duplicate_name() {
    let spec = edit(
        "  repo b {",
        "  context a { source dir(\"repos/a\") }\n  repo b {",
    );
    snap!("e0204_duplicate_name", spec, &[], [DuplicateName]);
}

#[test]
fn e0205_unknown_repository() {
    let spec = edit("    uses a\n", "    uses aa\n").replace("\n}\n", "\n  relax c { }\n}\n");
    snap!(
        "e0205_unknown_repository",
        spec,
        &[],
        [UnknownRepository, UnknownRepository]
    );
}

#[test]
fn e0206_invalid_name() {
    let spec = edit("task \"greet\"", "task \"Greet Task\"").replace("repo b {", "repo \"b\" {");
    snap!("e0206_invalid_name", spec, &[], [InvalidName, InvalidName]);
}

#[test]
fn e0207_unknown_keyword() {
    let spec = edit("kind bugfix", "kind bugfx").replace("verify joint", "verify jiont");
    snap!(
        "e0207_unknown_keyword",
        spec,
        &[],
        [UnknownKeyword, UnknownKeyword]
    );
}

#[test]
fn e0208_task_count() {
    let spec = format!("{VALID}task \"other\" {{ kind bugfix }}\n");
    snap!("e0208_two_tasks", spec, &[], [TaskCount]);
    snap!(
        "e0208_no_task",
        "// nothing but a comment\n",
        &[],
        [TaskCount]
    );
}

#[test]
fn e0300_base_not_full_sha() {
    let spec = edit(
        "    source dir(\"repos/a\")\n",
        "    source git(\"https://example.org/a.git\")\n    base \"abc123\"\n",
    );
    snap!("e0300_base_not_full_sha", spec, &[], [BaseNotFullSha]);
}

#[test]
fn e0301_file_not_found() {
    snap!(
        "e0301_file_not_found",
        edit("gold file(\"b.patch\")", "gold file(\"gold/b.patch\")"),
        &[],
        [FileNotFound]
    );
}

#[test]
fn e0302_path_escapes() {
    let spec = edit("gold file(\"b.patch\")", "gold file(\"../b.patch\")").replace(
        "source dir(\"repos/a\")",
        "source dir(\"/home/me/repos/a\")",
    );
    snap!("e0302_path_escapes", spec, &[], [PathEscapes, PathEscapes]);
}

#[test]
fn e0303_missing_base() {
    snap!(
        "e0303_missing_base",
        edit("source dir(\"repos/b\")", "source bundle(\"b.bundle\")"),
        &[("b.bundle", "bytes")],
        [MissingBase]
    );
}

#[test]
fn e0304_file_unreadable() {
    let mut loader = taskc_compiler::loader::MemLoader::new();
    for (p, t) in BASE_FILES {
        loader = loader.with(p, t.as_bytes());
    }
    let mut bad = A_GOLD.as_bytes().to_vec();
    bad.extend_from_slice(b"+caf\xe9\n");
    loader = loader.with("a.patch", bad);
    let checked = taskc_compiler::check::check_spec("task/spec.task", VALID.as_bytes(), &loader);
    let out = check_support::render(&checked);
    insta::assert_snapshot!("e0304_file_unreadable", out);
    assert_eq!(codes(&checked), vec![Code::FileUnreadable]);
}

#[test]
fn e0400_invalid_patch() {
    let broken = A_GOLD.replace("@@ -1,2 +1,3 @@", "@@ -1,2 +1,4 @@");
    snap!(
        "e0400_invalid_patch",
        VALID,
        &[("a.patch", &broken)],
        [InvalidPatch]
    );
}

#[test]
fn w0401_test_patch_touches_code() {
    let test = format!("{B_TEST}{}", B_GOLD.replace("hello", "howdy"));
    snap!(
        "w0401_test_patch_touches_code",
        VALID,
        &[("b_test.patch", &test)],
        [TestPatchTouchesCode]
    );
}

#[test]
fn w0402_gold_touches_only_tests() {
    snap!(
        "w0402_gold_touches_only_tests",
        edit("gold file(\"b.patch\")", "gold file(\"b_test.patch\")"),
        &[],
        [GoldTouchesOnlyTests]
    );
}

#[test]
fn e0403_empty_patch() {
    snap!(
        "e0403_empty_patch",
        VALID,
        &[("b.patch", "\n")],
        [EmptyPatch]
    );
}

/// VALID with repo b turned into a context repository.
fn single_target(verify: &str) -> String {
    let start = VALID.find("  repo b {").unwrap_or(0);
    format!(
        "{}  context b {{ source dir(\"repos/b\") }}\n}}\n",
        &VALID[..start]
    )
    .replace("verify joint", verify)
}

#[test]
fn e0500_too_few_targets() {
    snap!(
        "e0500_too_few_targets",
        single_target("verify joint"),
        &[],
        [TooFewTargets]
    );
}

#[test]
fn w0501_single_target() {
    snap!(
        "w0501_single_target",
        single_target("verify per-repo"),
        &[],
        [SingleTarget]
    );
}

#[test]
fn e0502_uses_cycle() {
    let spec = edit(
        "    source dir(\"repos/a\")\n",
        "    source dir(\"repos/a\")\n    uses c\n",
    )
    .replace(
        "\n}\n",
        "\n  context c {\n    source dir(\"repos/a\")\n    uses b\n  }\n}\n",
    );
    snap!("e0502_uses_cycle", spec, &[], [UsesCycle]);
}

#[test]
fn e0503_context_scored() {
    let spec = edit("\n}\n", "\n  context docs {\n    source dir(\"repos/a\")\n    gold file(\"a.patch\")\n  }\n  relax docs { }\n}\n");
    snap!(
        "e0503_context_scored",
        spec,
        &[],
        [ContextScored, ContextScored]
    );
}

#[test]
fn e0504_target_incomplete() {
    let spec = edit("    test { patch file(\"b_test.patch\"); run \"python -m pytest -rA tests\"; parser pytest }\n", "");
    snap!("e0504_target_incomplete", spec, &[], [TargetIncomplete]);
}

#[test]
fn e0505_self_use() {
    snap!(
        "e0505_self_use",
        edit("    uses a\n", "    uses a b\n"),
        &[],
        [SelfUse]
    );
}

fn with_relax(body: &str) -> String {
    edit("\n}\n", &format!("\n  relax a {{\n{body}  }}\n}}\n"))
}

#[test]
fn e0600_drop_unknown_file() {
    let spec = with_relax(
        "    drop \"tests/test_b.py::test_b\" { rule unrequested; because \"not asked\" }\n",
    );
    snap!("e0600_drop_unknown_file", spec, &[], [DropUnknownFile]);
}

#[test]
fn e0601_edit_text_not_found() {
    let spec = with_relax("    edit \"tests/test_a.py\" {\n      rule implementation-specific\n      because \"exact text is not fixed\"\n      replace r#\"assert greet(\"bo\") == \"hi bo\"\"# with \"assert True\"\n    }\n");
    snap!("e0601_edit_text_not_found", spec, &[], [EditTextNotFound]);
}

#[test]
fn e0602_edit_text_ambiguous() {
    let spec = with_relax("    edit \"tests/test_a.py\" {\n      rule implementation-specific\n      because \"exact text is not fixed\"\n      replace \"hello\" with \"hi\"\n    }\n");
    snap!("e0602_edit_text_ambiguous", spec, &[], [EditTextAmbiguous]);
}

#[test]
fn e0602_edit_text_spanning_lines_is_unique() {
    let spec = with_relax("    edit \"tests/test_a.py\" {\n      rule implementation-specific\n      because \"exact text is not fixed\"\n      replace \"hello bo\\\"\\n    assert\" with \"x\"\n    }\n");
    let (checked, out) = case(&spec, &[]);
    assert!(checked.diagnostics.is_empty(), "{out}");
}

#[test]
fn e0603_e0604_relax_missing_rule_and_reason() {
    let spec = with_relax("    drop \"tests/test_a.py::test_greet\" { }\n    drop \"tests/test_a.py::test_x\" { rule unrequested; because \"\" }\n");
    snap!(
        "e0603_e0604_relax_missing_rule_and_reason",
        spec,
        &[],
        [RelaxMissingRule, RelaxMissingReason, RelaxMissingReason]
    );
}

#[test]
fn e0605_edit_unknown_file() {
    let spec = with_relax("    edit \"tests/test_greet.py\" { rule unrequested; because \"x\"; replace \"a\" with \"b\" }\n");
    snap!("e0605_edit_unknown_file", spec, &[], [EditUnknownFile]);
}

#[test]
fn e0606_expect_dropped() {
    let spec = with_relax(
        "    drop \"tests/test_a.py::test_greet\" { rule unrequested; because \"not asked\" }\n",
    )
    .replace(
        "      parser pytest\n",
        "      parser pytest\n      expect f2p \"tests/test_a.py::test_greet\"\n",
    );
    snap!("e0606_expect_dropped", spec, &[], [ExpectDropped]);
}

#[test]
fn e0700_unknown_recipe() {
    snap!(
        "e0700_unknown_recipe",
        edit("env python", "env pyhton"),
        &[],
        [UnknownRecipe]
    );
}

#[test]
fn e0701_unknown_param() {
    snap!(
        "e0701_unknown_param",
        edit("env python", "env python { verison \"3.11\" }"),
        &[],
        [UnknownParam]
    );
}

#[test]
fn e0702_param_type() {
    snap!(
        "e0702_param_type",
        edit(
            "env python",
            "env python {\n    version 3\n    packages [\"requests\", 2]\n  }"
        ),
        &[],
        [ParamType, ParamType]
    );
}

const DOCKERFILE_ENV: &str =
    "env dockerfile {\n    dockerfile file(\"env/Dockerfile\")\n    context dir(\"env\")\n  }";

#[test]
fn dockerfile_recipe_reads_its_file_and_hashes_its_context() {
    let own = [
        (
            "env/Dockerfile",
            "FROM taskc/base:bookworm\nCOPY files/a /a\n",
        ),
        ("env/files/a", "1\n"),
    ];
    let (checked, out) = case(&edit("env python", DOCKERFILE_ENV), &own);
    assert!(checked.diagnostics.is_empty(), "{out}");
    let task = checked.task.expect("task");
    assert_eq!(task.env.recipe, "dockerfile");
    match task.env.params.get("dockerfile") {
        Some(ParamValue::File { path, text, .. }) => {
            assert_eq!(path, "env/Dockerfile");
            assert!(text.starts_with("FROM taskc/base:bookworm"));
        }
        other => panic!("{other:?}"),
    }
    let opts = taskc_compiler::lower::LowerOptions::default();
    let plan = taskc_compiler::lower::lower_verify(&task, &opts).expect("lower");
    let env = &plan.images.environment;
    assert_eq!(
        env.dockerfile,
        "FROM taskc/base:bookworm\nCOPY files/a /a\n"
    );
    assert_eq!(env.context.as_ref().map(|c| c.path.as_str()), Some("env"));
    // A changed byte in the build context is a different image.
    let own2 = [own[0], ("env/files/a", "2\n")];
    let (checked2, _) = case(&edit("env python", DOCKERFILE_ENV), &own2);
    let plan2 =
        taskc_compiler::lower::lower_verify(&checked2.task.expect("task"), &opts).expect("lower");
    assert_ne!(plan2.images.environment.id, env.id);
    assert_eq!(plan2.images.environment.dockerfile, env.dockerfile);
}

#[test]
fn dockerfile_recipe_diagnostics() {
    snap!(
        "dockerfile_recipe_diagnostics",
        edit(
            "env python",
            "env dockerfile {\n    dockerfile \"env/Dockerfile\"\n    context dir(\"nowhere\")\n  }"
        ),
        &[],
        [ParamType, FileNotFound]
    );
    snap!(
        "dockerfile_recipe_missing_file",
        edit("env python", DOCKERFILE_ENV),
        &[("env/other", "x")],
        [FileNotFound]
    );
}

#[test]
fn e0703_missing_param() {
    snap!(
        "e0703_missing_param",
        edit("env python", "env generic"),
        &[],
        [MissingParam]
    );
}

#[test]
fn e0704_unknown_parser() {
    snap!(
        "e0704_unknown_parser",
        edit("      parser pytest\n", "      parser pytset\n"),
        &[],
        [UnknownParser]
    );
}

#[test]
fn w0800_prompt_leak() {
    let gold = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1,2 +1,6 @@
 def greet(name):
-    return \"hi \" + name
+    return f\"hello {format_name(name)}\"
+
+
+def format_name(name):
+    return name.title()
";
    let prompt = "Greet people with hello, and capitalise their names\n(add a `format_name` helper). The greet function must return a string.\n";
    let spec = edit(
        "prompt \"Say hello instead of hi.\"",
        "prompt file(\"prompt.md\")",
    );
    snap!(
        "w0800_prompt_leak",
        spec,
        &[("a.patch", gold), ("prompt.md", prompt)],
        [PromptLeak]
    );
}

#[test]
fn w0800_no_warning_on_english_words_or_known_names() {
    let prompt =
        "Say `hello` instead of hi, greet everyone (the greet function) and return a string.\n";
    let spec = edit(
        "prompt \"Say hello instead of hi.\"",
        "prompt file(\"prompt.md\")",
    );
    let (checked, out) = case(&spec, &[("prompt.md", prompt)]);
    assert!(checked.diagnostics.is_empty(), "{out}");
}

#[test]
fn errors_are_all_reported_at_once() {
    let spec = edit("kind bugfix", "kind bugfx")
        .replace("parser pytest }", "parser pytset }")
        .replace("env python", "env pyhton")
        .replace("    uses a\n", "    uses a b\n");
    let (checked, out) = case(&spec, &[]);
    assert_eq!(
        codes(&checked),
        vec![
            Code::UnknownKeyword,
            Code::UnknownRecipe,
            Code::SelfUse,
            Code::UnknownParser
        ],
        "{out}"
    );
    assert!(checked.task.is_none());
}

#[test]
fn syntax_errors_do_not_cascade_into_missing_fields() {
    let spec = edit("  kind bugfix\n", "  kind \"bugfix\n");
    let (checked, out) = case(&spec, &[]);
    assert!(
        checked
            .diagnostics
            .iter()
            .all(|d| d.code != Code::MissingField),
        "{out}"
    );
    assert!(checked.diagnostics.has_errors());
}

#[test]
fn undecodable_spec_is_one_diagnostic_with_lossy_text() {
    let loader = taskc_compiler::loader::MemLoader::new();
    let checked = taskc_compiler::check::check_spec("x.task", b"task \"a\xff\" {}", &loader);
    assert_eq!(codes(&checked), vec![Code::InvalidUtf8]);
    assert!(checked
        .sources
        .get(taskc_compiler::SourceId(0))
        .text
        .contains('\u{fffd}'));
}

#[test]
fn w0800_inline_prompt_labels_the_word_in_the_spec() {
    let gold = A_GOLD.replace(
        "+    return f\"hello {name}\"",
        "+    return f\"hello {nameCase(name)}\"",
    );
    let spec = edit(
        "  prompt \"Say hello instead of hi.\"\n",
        "  prompt \"\"\"\n    Say hello instead of hi,\n    and use \\\"\"\" nameCase.\n    \"\"\"\n",
    );
    let (checked, out) = case(&spec, &[("a.patch", &gold)]);
    assert_eq!(codes(&checked), vec![Code::PromptLeak], "{out}");
    let d = &checked.diagnostics.0[0];
    let spec_text = &checked.sources.get(d.primary.source).text;
    assert_eq!(&spec_text[d.primary.span.range()], "nameCase", "{out}");
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// Deleting, duplicating or truncating lines of a valid spec never panics, and a
        /// result without errors always has a task.
        #[test]
        fn mutated_specs_never_panic(ops in proptest::collection::vec((0usize..40, 0u8..3), 0..6)) {
            let mut lines: Vec<String> = VALID.lines().map(str::to_string).collect();
            for (at, op) in ops {
                if lines.is_empty() { break; }
                let i = at % lines.len();
                match op {
                    0 => { lines.remove(i); }
                    1 => { let l = lines[i].clone(); lines.insert(i, l); }
                    _ => { let l = &lines[i]; let cut = l.len() / 2; let cut = (0..=cut).rev().find(|c| l.is_char_boundary(*c)).unwrap_or(0); lines[i] = l[..cut].to_string(); }
                }
            }
            let spec = lines.join("\n");
            let (checked, _) = case(&spec, &[]);
            prop_assert!(checked.task.is_some() || checked.diagnostics.has_errors());
        }

        /// Mangled patch files never panic the checker.
        #[test]
        fn mutated_patches_never_panic(cut in 0usize..200, junk in "[ +\\-@a-z\\n]{0,20}") {
            let cut = cut.min(A_TEST.len());
            let patch = format!("{}{}", &A_TEST[..cut], junk);
            let (checked, _) = case(VALID, &[("a_test.patch", &patch)]);
            prop_assert!(checked.task.is_some() || checked.diagnostics.has_errors());
        }
    }
}

/// A loader whose `repos/` folder is a symbolic link leaving the spec's folder.
struct SymlinkOut(taskc_compiler::loader::MemLoader);

impl taskc_compiler::loader::Loader for SymlinkOut {
    fn read(&self, path: &str) -> Result<Vec<u8>, taskc_compiler::loader::LoadError> {
        self.0.read(path)
    }
    fn kind(
        &self,
        path: &str,
    ) -> Result<taskc_compiler::loader::EntryKind, taskc_compiler::loader::LoadError> {
        if path.starts_with("repos/b") {
            return Err(taskc_compiler::loader::LoadError::Escapes);
        }
        self.0.kind(path)
    }
    fn dir_digest(&self, path: &str) -> Result<String, taskc_compiler::loader::LoadError> {
        self.0.dir_digest(path)
    }
    fn base_tree(
        &self,
        source: &taskc_compiler::loader::RepoSource<'_>,
        base: Option<&str>,
    ) -> taskc_compiler::loader::BaseTree {
        self.0.base_tree(source, base)
    }
}

#[test]
fn e0302_symlink_leaving_the_folder() {
    let mut mem = taskc_compiler::loader::MemLoader::new();
    for (p, t) in BASE_FILES {
        mem = mem.with(p, t.as_bytes());
    }
    let checked =
        taskc_compiler::check::check_spec("task/spec.task", VALID.as_bytes(), &SymlinkOut(mem));
    let out = check_support::render(&checked);
    insta::assert_snapshot!("e0302_symlink_leaving_the_folder", out);
    assert_eq!(codes(&checked), vec![Code::PathEscapes]);
}

/// The `test` block of `a` with parser `parser` and a `select` template.
fn with_select(parser: &str, template: &str) -> String {
    edit(
        "      parser pytest\n",
        &format!("      parser {parser}\n      select {template:?}\n"),
    )
}

#[test]
fn select_template_is_read_on_a_parser_taskc_cannot_narrow() {
    let spec = with_select("jest-json", "node scripts/only.js {ids} --json");
    let (checked, out) = case(&spec, &[]);
    assert!(checked.diagnostics.is_empty(), "{out}");
    let task = checked.task.expect("task");
    let test = task.repos[0].test.as_ref().expect("test");
    assert_eq!(
        test.select.as_deref(),
        Some("node scripts/only.js {ids} --json")
    );
    assert_eq!(task.repos[1].test.as_ref().expect("test").select, None);
}

#[test]
fn e0710_select_without_ids() {
    snap!(
        "e0710_select_without_ids",
        with_select("jest-json", "node scripts/only.js --json"),
        &[],
        [SelectWithoutIds]
    );
}

#[test]
fn e0710_select_with_ids_twice() {
    snap!(
        "e0710_select_with_ids_twice",
        with_select("cargo", "cargo test -- {ids} --exact {ids}"),
        &[],
        [SelectWithoutIds]
    );
}

#[test]
fn e0711_select_not_needed() {
    snap!(
        "e0711_select_not_needed",
        with_select("pytest", "python -m pytest -rA {ids}"),
        &[],
        [SelectNotNeeded]
    );
}
