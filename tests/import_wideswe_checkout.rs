//! `taskc import wideswe ROOT [CASE…]` on a WideSWE checkout the project writes itself
//! (tests/fixtures/wideswe-checkout: `cases/`, `benchmark/images/`): the image recipes become
//! one multi-stage Dockerfile, parents first; each runner gets a parser (an existing one
//! through a reporter option, with a note); a compose service with a named image is a
//! `service` declaration; the data problems are notes; the
//! per-case report is written as JSON and Markdown. A runner no parser reads is E1400.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const CASE: &str = "demo_lib_web_1a2b3c4d5e6f";

/// The fixture checkout copied to `dir/wideswe`, its placeholders filled with fixed values.
fn stage(dir: &Path) -> PathBuf {
    let root = dir.join("wideswe");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-checkout"),
        &root,
    );
    let case = root.join("cases/demo").join(CASE);
    for f in ["task.yaml", "repos.yaml"] {
        let p = case.join(f);
        let text = read(&p)
            .replace("@REPOS@", "https://example.invalid/demo")
            .replace("@LIB_BASE@", &"a".repeat(40))
            .replace("@WEB_BASE@", &"b".repeat(40))
            .replace("@WEB_PR_BASE@", &"c".repeat(40));
        std::fs::write(&p, text).expect("write");
    }
    root
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `taskc import wideswe <args> --out out`, run in `dir`: (exit code, the log).
fn import(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["import", "--color", "never", "wideswe"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", "out"]);
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(&all)
        .current_dir(dir)
        .output()
        .expect("run taskc");
    let log = format!(
        "---- taskc {} (exit {}) ----\n---- stdout ----\n{}---- stderr ----\n{}",
        all.join(" "),
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), log)
}

#[test]
fn a_checkout_imports_with_its_image_graph_and_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    stage(dir.path());
    let (code, log) = import(
        dir.path(),
        &[
            "wideswe",
            "--base-image",
            "taskc/base:bookworm",
            "--report",
            "report.json",
            "--report",
            "report.md",
        ],
    );
    assert_eq!(code, Some(0), "{log}");
    let out = dir.path().join("out").join(CASE);
    let mut shown = log;
    for f in [
        format!("{CASE}.task"),
        "environment/Dockerfile".to_string(),
        "../../report.md".to_string(),
    ] {
        shown.push_str(&format!(
            "---- out/{CASE}/{f} ----\n{}",
            read(&out.join(&f))
        ));
    }
    insta::assert_snapshot!("wideswe-checkout", shown);

    // The JSON report: one case, its runners, parsers, images and services.
    let json: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("report.json"))).expect("json");
    let case = &json["cases"][0];
    assert_eq!(case["case"], CASE);
    assert_eq!(case["status"], "with notes");
    assert_eq!(case["profiles"][1]["runner"], "vitest");
    assert_eq!(case["profiles"][1]["parser"], "vitest");
    assert!(case["profiles"][1]["needs"].is_null(), "{case}");
    // The profiles' own test containers (`docker_service`, a service named after a profile)
    // are not services beside the tests; a compose service with a named image is declared.
    assert_eq!(case["services"][0], "cache (redis:7-bookworm, declared)");
    assert_eq!(case["services"].as_array().map(Vec::len), Some(1));
    // The deps image as the case's compose file builds it, its build arguments pinned.
    assert_eq!(
        case["images"][1]["name"],
        "ecosyncbench/deps/demo-lib-go:1a2b3c4d5e6f"
    );
    // … as a `service` every target's runs get, its image as the case names it.
    let spec = read(&out.join(format!("{CASE}.task")));
    assert!(spec.contains("service cache {"), "{spec}");
    assert!(spec.contains("services cache"), "{spec}");
    assert_eq!(
        read(&out.join("services/cache/Dockerfile")).lines().last(),
        Some("FROM redis:7-bookworm")
    );
    let dockerfile = read(&out.join("environment/Dockerfile"));
    assert!(
        dockerfile.contains("ARG DEMO_REPO_PATH=repos/demo/lib\n"),
        "{dockerfile}"
    );

    // The generated spec checks clean with the real checker (notes allowed).
    let check = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never", &format!("{CASE}.task")])
        .current_dir(&out)
        .output()
        .expect("run taskc");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_case_is_named_by_id_and_an_unknown_one_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    stage(dir.path());
    let (code, log) = import(dir.path(), &["wideswe", CASE]);
    assert_eq!(code, Some(0), "{log}");
    assert!(dir.path().join("out").join(CASE).is_dir());
    let (code, log) = import(dir.path(), &["wideswe", "demo/nope"]);
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("no case `demo/nope`"), "{log}");
}

#[test]
fn a_dotnet_runner_imports_with_the_trx_parser_and_its_logger() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = stage(dir.path());
    let script = root
        .join("cases/demo")
        .join(CASE)
        .join("environment/run_profile.sh");
    let text = read(&script).replace(
        "npx vitest run test/reverse.test.js",
        "dotnet test Reverse.Tests",
    );
    std::fs::write(&script, text).expect("write");
    let (code, log) = import(dir.path(), &["wideswe", "--report", "report.md"]);
    assert_eq!(code, Some(0), "{log}");
    let md = read(&dir.path().join("report.md"));
    assert!(md.contains("web: dotnet test → dotnet-trx"), "{md}");
    assert!(md.contains("lib: go test → go-test-json"), "{md}");
    let spec = std::fs::read_dir(dir.path().join("out").join(CASE))
        .expect("out")
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "task"))
        .map(|e| read(&e.path()))
        .expect("a spec");
    assert!(spec.contains("parser dotnet-trx"), "{spec}");
    assert!(spec.contains("trx;LogFileName=$TASKC_REPORT"), "{spec}");
}

#[test]
fn without_the_checkout_the_image_recipe_is_the_one_thing_missing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = stage(dir.path());
    let case = root.join("cases/demo").join(CASE);
    let (code, log) = import(
        dir.path(),
        &[case.to_str().expect("utf-8"), "--report", "report.md"],
    );
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("E1109"), "{log}");
    let md = read(&dir.path().join("report.md"));
    assert!(
        md.contains("`ecosyncbench/deps/demo-lib-go:1a2b3c4d5e6f` (no recipe)"),
        "{md}"
    );
    assert!(
        md.contains("`ecosyncbench/deps/demo-lib-go:1a2b3c4d5e6f` cannot be rebuilt"),
        "{md}"
    );
}

/// The second fixture checkout: cases shaped like the real ones the importer once read
/// wrongly (docs/import.md, importer bugs 3, 4, 6, 8–11), copied to `dir/gaps`.
fn stage_gaps(dir: &Path) -> PathBuf {
    let root = dir.join("gaps");
    common::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-checkout-gaps"),
        &root,
    );
    root
}

#[test]
fn the_shapes_the_forty_real_cases_showed_are_read_as_they_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = stage_gaps(dir.path());
    let (code, log) = import(
        dir.path(),
        &[root.to_str().expect("utf-8"), "--report", "report.json"],
    );
    // One case imports (with notes), one is refused: exit 1.
    assert_eq!(code, Some(1), "{log}");
    // The diagnostics as one line of words (the terminal renderer wraps long messages).
    let log = log
        .replace(['│', '·'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let json: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("report.json"))).expect("json");
    let case = |id: &str| {
        json["cases"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["case"] == id))
            .cloned()
            .unwrap_or_else(|| panic!("{id} in {json}"))
    };
    let shapes = case("demo_shapes_9a8b7c6d5e4f");
    assert_eq!(shapes["status"], "with notes", "{shapes}\n{log}");
    let spec = read(
        &dir.path()
            .join("out/demo_shapes_9a8b7c6d5e4f/demo_shapes_9a8b7c6d5e4f.task"),
    );

    // Bug 4: WideSWE runs svc's tests in its profile's `workdir`, a module below the root.
    assert!(
        spec.contains("run \"cd e2e/test && go test -json -count=1 ./integration/ping\""),
        "{spec}"
    );
    // Bug 9: the sharness script at the end of cli's chain is named, not silently unread.
    assert!(
        log.contains("also runs `TEST_JUNIT=1 test/sharness/t0001-ping.sh` after go test"),
        "{log}"
    );
    // Bug 10: the image is the first word; the prose after it is a note.
    assert!(
        log.contains(
            "as the image, and the rest (\"with the module cache warmed under /data\") is not done"
        ),
        "{log}"
    );
    // Bug 11: a compose-built image whose recipe the checkout lacks is named for
    // `[images.map]` (a note), as an image found by name without a recipe is; not E1109.
    assert!(!log.contains("E1109"), "{log}");
    assert!(log.contains("which the checkout does not hold"), "{log}");
    let df = read(
        &dir.path()
            .join("out/demo_shapes_9a8b7c6d5e4f/environment/Dockerfile"),
    );
    assert!(
        df.contains("FROM ecosyncbench/deps/demo-svc-go:9a8b7c6d5e4f"),
        "{df}"
    );
    // Bug 6: what the script starts that cannot be declared is reported, never dropped.
    assert!(
        log.contains("starts a container from the image in `$svc_image`"),
        "{log}"
    );
    assert!(
        log.contains("compose services `kafka`, `zookeeper` of"),
        "{log}"
    );
    let services = shapes["services"].to_string();
    assert!(services.contains("$svc_image"), "{services}");

    let refused = case("demo_refused_1f2e3d4c5b6a");
    assert_eq!(refused["status"], "failed", "{refused}");
    // Bug 3: `pip install pytest pytest-django` is no test command.
    assert!(
        log.contains("no test command for `app` was found in it"),
        "{log}"
    );
    assert!(!log.contains("pip install pytest -rA"), "{log}");
    // Bug 8: `flutter drive` is not `flutter test`: no parser reads it.
    assert!(log.contains("E1400"), "{log}");
    assert!(log.contains("it needs the parser `flutter-drive`"), "{log}");

    // The spec that was written checks clean with the real checker.
    let check = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never", "demo_shapes_9a8b7c6d5e4f.task"])
        .current_dir(dir.path().join("out/demo_shapes_9a8b7c6d5e4f"))
        .output()
        .expect("run taskc");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
