//! `taskc import wideswe`: the generated task folder for a synthetic case in WideSWE's layout
//! (snapshot), and every bad-input path: each a diagnostic with a code, the case and the file.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const CASE: &str = "demo_greet_app_0a1b2c3d4e5f";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/wideswe/cases/demo")
        .join(CASE)
}

/// The fixture case copied to `dir/<name>`, its placeholders filled with fixed values.
fn stage(dir: &Path, name: &str) -> PathBuf {
    let case = dir.join(name);
    common::copy_dir(&fixture(), &case);
    for f in ["task.yaml", "repos.yaml"] {
        let p = case.join(f);
        let text = std::fs::read_to_string(&p)
            .expect("read")
            .replace("@REPOS@", "https://example.invalid/demo")
            .replace("@GREET_BASE@", &"a".repeat(40))
            .replace("@APP_BASE@", &"b".repeat(40));
        std::fs::write(&p, text).expect("write");
    }
    case
}

fn taskc(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run taskc")
}

/// Exit code, stdout and stderr of `taskc import wideswe <cases> --out out`, run in `dir`.
fn import(dir: &Path, cases: &[&str], extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["import", "--color", "never", "wideswe"];
    args.extend_from_slice(cases);
    args.extend_from_slice(&["--out", "out"]);
    args.extend_from_slice(extra);
    let out = taskc(dir, &args);
    let text = format!(
        "---- taskc {} (exit {}) ----\n---- stdout ----\n{}---- stderr ----\n{}",
        args.join(" "),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn imports_the_synthetic_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    stage(dir.path(), "case");
    let (code, log) = import(
        dir.path(),
        &["case"],
        &["--base-image", "taskc/base:bookworm"],
    );
    assert_eq!(code, Some(0), "{log}");
    let out = dir.path().join("out").join(CASE);
    let mut shown = log;
    for f in [
        format!("{CASE}.task"),
        format!("{CASE}.oracle.toml"),
        "environment/Dockerfile".to_string(),
    ] {
        shown.push_str(&format!(
            "---- out/{CASE}/{f} ----\n{}",
            read(&out.join(&f))
        ));
    }
    insta::assert_snapshot!("wideswe-demo", shown);
    // The patches and the prompt are copied byte for byte.
    let case = dir.path().join("case");
    assert_eq!(
        read(&out.join("gold/greet.patch")),
        read(&case.join("gold/patches/greet.patch"))
    );
    assert_eq!(
        read(&out.join("tests/app.patch")),
        read(&case.join("hidden/patches/app-hidden-tests.patch"))
    );
    assert_eq!(read(&out.join("prompt.md")), read(&case.join("prompt.md")));
    // The generated spec checks clean with the real checker.
    check_clean(&out);
    // Formatting it changes nothing: the importer prints through the formatter.
    let fmt = taskc(&out, &["fmt", "--check", &format!("{CASE}.task")]);
    assert_eq!(
        fmt.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&fmt.stdout)
    );
}

#[test]
fn out_is_not_overwritten_without_force() {
    let dir = tempfile::tempdir().expect("tempdir");
    stage(dir.path(), "case");
    let (code, _) = import(dir.path(), &["case"], &[]);
    assert_eq!(code, Some(0));
    let spec = dir
        .path()
        .join("out")
        .join(CASE)
        .join(format!("{CASE}.task"));
    std::fs::write(&spec, "// a curator's edit\n").expect("write");
    let (code, log) = import(dir.path(), &["case"], &[]);
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("E1106"), "{log}");
    assert_eq!(
        read(&spec),
        "// a curator's edit\n",
        "the folder must be left alone"
    );
    let (code, log) = import(dir.path(), &["case"], &["--force"]);
    assert_eq!(code, Some(0), "{log}");
    assert!(read(&spec).starts_with("// Imported from WideSWE"));
    // Nothing half-written is left beside it.
    let stray: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .expect("ls")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// A broken copy of the case: `edit` changes one file; the diagnostic is snapshotted.
fn broken(name: &str, edit: impl FnOnce(&Path)) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let case = stage(dir.path(), "case");
    edit(&case);
    let (code, log) = import(dir.path(), &["case"], &[]);
    assert_eq!(code, Some(1), "{name}: {log}");
    assert!(
        !dir.path().join("out").join(CASE).exists(),
        "{name}: nothing may be written"
    );
    insta::assert_snapshot!(name, log);
    log
}

fn replace(case: &Path, file: &str, from: &str, to: &str) {
    let p = case.join(file);
    let text = read(&p);
    assert!(text.contains(from), "{file} lacks {from:?}");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn missing_file() {
    let log = broken("wideswe-missing-harness", |c| {
        std::fs::remove_file(c.join("harness.yaml")).expect("rm")
    });
    assert!(log.contains("E1100"));
}

#[test]
fn malformed_yaml_has_line_and_column() {
    let log = broken("wideswe-malformed-yaml", |c| {
        replace(c, "repos.yaml", "    role: linked\n", "    role: [linked\n")
    });
    assert!(
        log.contains("E1101") && log.contains("repos.yaml:"),
        "{log}"
    );
}

#[test]
fn malformed_json_manifest() {
    let log = broken("wideswe-malformed-json", |c| {
        replace(
            c,
            "oracles/scoring_manifest.json",
            "\"repos\": [",
            "\"repos\": [[",
        )
    });
    assert!(
        log.contains("E1101") && log.contains("scoring_manifest.json:"),
        "{log}"
    );
}

#[test]
fn unknown_role() {
    let log = broken("wideswe-unknown-role", |c| {
        replace(c, "task.yaml", "role: linked", "role: sidekick")
    });
    assert!(log.contains("E1103"));
}

#[test]
fn missing_field() {
    let log = broken("wideswe-missing-field", |c| {
        replace(c, "task.yaml", "  gold_patch: gold/patches/app.patch\n", "")
    });
    assert!(log.contains("E1102"));
}

#[test]
fn unreadable_profile() {
    let log = broken("wideswe-unreadable-profile", |c| {
        replace(
            c,
            "environment/test_profiles.yaml",
            "command: python -m pytest tests --junitxml /workspace/.ecosyncbench/test-reports/greet-hidden.xml",
            "command: make check",
        )
    });
    assert!(log.contains("E1104"));
}

#[test]
fn patch_that_does_not_parse() {
    let log = broken("wideswe-bad-patch", |c| {
        std::fs::write(c.join("gold/patches/greet.patch"), "this is not a diff\n").expect("write")
    });
    assert!(log.contains("E1105") || log.contains("E1107"), "{log}");
}

#[test]
fn a_stacked_patch_creating_a_file_again_is_refused() {
    let log = broken("wideswe-stacked-same-file", |c| {
        let extra = read(&c.join("hidden/patches/greet-hidden-tests.patch"));
        std::fs::write(c.join("hidden/patches/greet-align.patch"), extra).expect("write");
        replace(
            c,
            "harness.yaml",
            "- repo: app\n",
            "- repo: greet\n  patch: hidden/patches/greet-align.patch\n  test_profile: greet-hidden\n- repo: app\n",
        );
    });
    assert!(log.contains("E1105"));
}

#[test]
fn no_dockerfile() {
    let log = broken("wideswe-no-dockerfile", |c| {
        std::fs::remove_file(c.join("environment/case_env/Dockerfile.case-base")).expect("rm")
    });
    assert!(log.contains("E1109"));
}

#[test]
fn a_batch_goes_on_past_a_bad_case() {
    let dir = tempfile::tempdir().expect("tempdir");
    stage(dir.path(), "good");
    let bad = stage(dir.path(), "bad");
    std::fs::remove_file(bad.join("task.yaml")).expect("rm");
    let (code, log) = import(dir.path(), &["bad", "good"], &[]);
    assert_eq!(code, Some(1), "{log}");
    assert!(dir
        .path()
        .join("out")
        .join(CASE)
        .join(format!("{CASE}.task"))
        .is_file());
    let table = log
        .split("---- stderr ----")
        .next()
        .unwrap_or("")
        .to_string();
    insta::assert_snapshot!("wideswe-batch", table);
}

/// `taskc check` of the imported spec in `out` exits 0; its stderr.
fn check_clean(out: &Path) -> String {
    let check = taskc(out, &["check", "--color", "never", &format!("{CASE}.task")]);
    let stderr = String::from_utf8_lossy(&check.stderr).into_owned();
    assert_eq!(check.status.code(), Some(0), "{stderr}");
    stderr
}

/// The case staged with `edit` applied, imported; (exit code, log, the generated spec).
fn import_variant(edit: impl FnOnce(&Path)) -> (tempfile::TempDir, Option<i32>, String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let case = stage(dir.path(), "case");
    edit(&case);
    let (code, log) = import(dir.path(), &["case"], &[]);
    let spec = dir
        .path()
        .join("out")
        .join(CASE)
        .join(format!("{CASE}.task"));
    let spec = std::fs::read_to_string(spec).unwrap_or_default();
    (dir, code, log, spec)
}

/// WideSWE's agent layer (what every real case ships as `Dockerfile.case-base`): it copies
/// from a build context only WideSWE's harness supplies.
const AGENT_LAYER: &str = "FROM ecosyncbench/base/python:3.12-uv\nLABEL org.ecosyncbench.layer=case-base\nCOPY --from=task_ctx /repo_envs.tsv /opt/ecosync/repo-envs.tsv\nWORKDIR /workspace\n";

/// A `run_profile.sh` in the shape of WideSWE's: one function running `docker run … bash -c
/// '…'`, installs chosen by `if` branches that name the repository, called from the profile
/// arms of `case "$profile"`.
const RUN_PROFILE: &str = r#"#!/usr/bin/env bash
set -euo pipefail
profile="${1:?profile required}"
run_pytest() {
  local repo_dir="$1" install_local_greet="$2" install_mode="$3"
  shift 3
  docker run --rm \
    -e ECOSYNC_INSTALL_LOCAL_GREET="$install_local_greet" \
    -e ECOSYNC_INSTALL_MODE="$install_mode" \
    -w "/workspace/$repo_dir" \
    ecosyncbench/base/python:3.12-uv \
    bash -c 'set -euo pipefail
      uv venv "$VIRTUAL_ENV"
      if [[ "$ECOSYNC_INSTALL_LOCAL_GREET" == "1" ]]; then
        uv pip install --python "$VIRTUAL_ENV/bin/python" -e /workspace/repos/demo/greet
      fi
      if [[ "$ECOSYNC_INSTALL_MODE" == "greet" ]]; then
        uv pip install --python "$VIRTUAL_ENV/bin/python" \
          -e . \
          "pytest<9" \
          "coverage[toml]>=7.2.0" \
          pretend
      elif [[ "$ECOSYNC_INSTALL_MODE" == "app" ]]; then
        uv pip install --python "$VIRTUAL_ENV/bin/python" -e . --group test "pytest<9"
      fi
      "$VIRTUAL_ENV/bin/python" -m pytest "$@"' bash "$@"
}
case "$profile" in
  greet-hidden)
    run_pytest "repos/demo/greet" "0" "greet" tests
    ;;
  app-hidden)
    run_pytest "repos/demo/app" "1" "app" tests
    ;;
esac
"#;

/// The case with WideSWE's agent layer as its Dockerfile and `script` as `run_profile.sh`.
fn with_agent_layer(c: &Path, script: &str) {
    std::fs::write(c.join("environment/run_profile.sh"), script).expect("write");
    std::fs::write(
        c.join("environment/case_env/Dockerfile.case-base"),
        AGENT_LAYER,
    )
    .expect("write");
}

#[test]
fn install_steps_of_run_profile_become_packages_and_setup() {
    let (_dir, code, log, spec) = import_variant(|c| {
        with_agent_layer(c, RUN_PROFILE);
    });
    assert_eq!(code, Some(0), "{log}");
    // The requirements with their specifiers are the python recipe's; each repository
    // installs its own folder, editable, with its dependency group.
    assert!(spec.contains("env python {"), "{spec}");
    assert!(spec.contains("pytest \"pytest<9\""), "{spec}");
    assert!(
        spec.contains(r#"packages ["coverage[toml]>=7.2.0", "pretend", "pip>=25.1"]"#),
        "{spec}"
    );
    assert!(
        spec.contains(r#"setup "python -m pip install -e . --group test""#),
        "{spec}"
    );
    assert!(!spec.contains("env dockerfile"), "{spec}");
    insta::assert_snapshot!(
        "wideswe-install-steps",
        format!("{log}---- spec ----\n{spec}")
    );
}

#[test]
fn an_install_step_that_cannot_be_mapped_is_a_warning_on_the_script() {
    let (_dir, code, log, spec) = import_variant(|c| {
        let script = RUN_PROFILE.replace(
            "          pretend\n",
            "          pretend\n        pip install --extra-index-url https://download.invalid/whl torch\n",
        );
        with_agent_layer(c, &script);
    });
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("W1108") && log.contains("environment/run_profile.sh:23:"),
        "{log}"
    );
    assert!(log.contains("index-url`"), "{log}");
    // `torch` itself is still a requirement; the index is what is lost.
    assert!(spec.contains("\"torch\""), "{spec}");
}

#[test]
fn an_agent_layer_over_another_image_is_refused() {
    let log = broken("wideswe-agent-layer-other-image", |c| {
        std::fs::write(
            c.join("environment/case_env/Dockerfile.case-base"),
            AGENT_LAYER,
        )
        .expect("write");
        let p = c.join("environment/test_profiles.yaml");
        let text = read(&p).replace(
            "image: ecosyncbench/base/python:3.12-uv",
            "image: ecosyncbench/deps/pytorch-python:3.12",
        );
        std::fs::write(&p, text).expect("write");
    });
    assert!(log.contains("E1109"), "{log}");
}

/// `greet`'s hidden tests with a second, stacked patch `patch` (WideSWE's contract alignment).
fn with_stacked_greet_patch(c: &Path, patch: &str) {
    std::fs::write(c.join("hidden/patches/greet-align.patch"), patch).expect("write");
    replace(
        c,
        "harness.yaml",
        "- repo: app\n",
        "- repo: greet\n  patch: hidden/patches/greet-align.patch\n  test_profile: greet-hidden\n  origin: contract_aligned_hidden_test\n  semantic_changes: Checks the shout without its exact text.\n- repo: app\n",
    );
}

#[test]
fn a_stacked_patch_rewriting_added_lines_becomes_a_relax_edit() {
    let (dir, code, log, spec) = import_variant(|c| {
        with_stacked_greet_patch(
            c,
            "diff --git a/tests/test_greet.py b/tests/test_greet.py\nindex 4bc7da9..6d1e2a0 100644\n--- a/tests/test_greet.py\n+++ b/tests/test_greet.py\n@@ -7,3 +7,4 @@ def test_hello():\n \n def test_shout():\n-    assert greet.shout(\"Ada\") == \"HELLO, ADA!\"\n+    assert greet.shout(\"Ada\").startswith(\"HELLO\")\n+    assert greet.shout(\"Ada\").endswith(\"!\")\n",
        )
    });
    assert_eq!(code, Some(0), "{log}");
    assert!(spec.contains("relax greet {"), "{spec}");
    assert!(spec.contains("edit \"tests/test_greet.py\""), "{spec}");
    assert!(spec.contains("rule implementation-specific"), "{spec}");
    assert!(
        spec.contains("because \"Checks the shout without its exact text.\""),
        "{spec}"
    );
    let out = dir.path().join("out").join(CASE);
    assert!(!out.join("tests/greet-2.patch").exists());
    // The real checker accepts the edit (its text occurs once in the added lines).
    check_clean(&out);
    insta::assert_snapshot!("wideswe-stacked-edit", spec);
}

#[test]
fn a_stacked_patch_on_other_lines_stays_stacked() {
    let (dir, code, log, spec) = import_variant(|c| {
        with_stacked_greet_patch(
            c,
            "diff --git a/tests/test_more.py b/tests/test_more.py\nnew file mode 100644\nindex 0000000..1b2c3d4\n--- /dev/null\n+++ b/tests/test_more.py\n@@ -0,0 +1,2 @@\n+def test_more():\n+    assert True\n",
        )
    });
    assert_eq!(code, Some(0), "{log}");
    assert!(
        spec.contains(r#"patch file("tests/greet.patch") file("tests/greet-2.patch")"#),
        "{spec}"
    );
    // Its free text is kept where check shows it.
    assert!(
        spec.contains("note \"Checks the shout without its exact text.\""),
        "{spec}"
    );
    let out = dir.path().join("out").join(CASE);
    assert_eq!(
        read(&out.join("tests/greet-2.patch")),
        read(&dir.path().join("case/hidden/patches/greet-align.patch"))
    );
}

#[test]
fn check_shows_the_imported_free_text_relaxations() {
    let (dir, code, log, _) = import_variant(|_| {});
    assert_eq!(code, Some(0), "{log}");
    let out = dir.path().join("out").join(CASE);
    let stderr = check_clean(&out);
    assert!(
        stderr.contains("N0607") && stderr.contains("Checks the loud banner"),
        "{stderr}"
    );
}

#[test]
fn a_profile_running_the_wrapper_script_takes_its_in_container_command() {
    // WideSWE profiles whose `command` is `./environment/run_profile.sh <profile>`.
    let script = "#!/usr/bin/env bash\nset -euo pipefail\nprofile=\"${1:?profile required}\"\nrun_greet() {\n  docker run --rm img bash -lc 'python -c \"import pytest\" >/dev/null'\n  docker run --rm -w /workspace/repos/demo/greet img bash -lc '\n    python -m pip install --no-build-isolation -e .\n    python -m pytest tests --junitxml=/workspace/.ecosyncbench/test-reports/greet.xml\n  '\n}\ncase \"$profile\" in\n  greet-hidden)\n    run_greet\n    ;;\nesac\n";
    let (_dir, code, log, spec) = import_variant(|c| {
        std::fs::write(c.join("environment/run_profile.sh"), script).expect("write");
        replace(
            c,
            "environment/test_profiles.yaml",
            "command: python -m pytest tests --junitxml /workspace/.ecosyncbench/test-reports/greet-hidden.xml",
            "command: ./environment/run_profile.sh greet-hidden",
        );
    });
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("runs `environment/run_profile.sh`"), "{log}");
    assert!(
        spec.contains(r#"run "python -m pytest -rA tests""#),
        "{spec}"
    );
    assert!(
        spec.contains(r#"setup "python -m pip install --no-build-isolation -e .""#),
        "{spec}"
    );
}

#[test]
fn profiles_without_an_image_run_in_what_the_agent_layer_starts_from() {
    let (_dir, code, log, spec) = import_variant(|c| {
        with_agent_layer(c, RUN_PROFILE);
        let p = c.join("environment/test_profiles.yaml");
        let text = read(&p).replace("    image: ecosyncbench/base/python:3.12-uv\n", "");
        std::fs::write(&p, text).expect("write");
    });
    assert_eq!(code, Some(0), "{log}");
    assert!(spec.contains("env python {"), "{spec}");
}
