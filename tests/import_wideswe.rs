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
    let check = taskc(
        &out,
        &["check", "--color", "never", &format!("{CASE}.task")],
    );
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
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
fn stacked_patches_on_one_file_are_refused() {
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
