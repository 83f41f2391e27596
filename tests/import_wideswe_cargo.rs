//! `taskc import wideswe` on a Rust case the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-cargo), in the two shapes WideSWE's real cargo case (106,
//! `rust_lang_cargo_rustup_983bca136493`) has: `run_profile.sh` fetches each repository's
//! crates (`cargo fetch --locked`) before tests that run offline, and the scoring manifest
//! names every test `cargo::<test path>` whichever repository runs it. The fetch becomes
//! each repository's `setup` (taskc's runs have no network); the `cargo::` prefix is removed
//! from the imported oracle with a note, never read as another repository's name. Each
//! run's test build is a `setup` (`cargo test --no-run` with the run's own selection: WideSWE
//! keeps a target directory between runs), and wheels' profile, on another Rust than the
//! environment (`rust:1.89-bookworm`), gets that toolchain installed and first on its PATH.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const CASE: &str = "demo_gears_wheels_5e6f7a8b9c0d";

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `taskc import wideswe <fixture> --out out` in a fresh folder: the folder, the imported
/// task folder, the exit code and the log.
fn import() -> (tempfile::TempDir, std::path::PathBuf, String, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-cargo");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["import", "--color", "never", "wideswe"])
        .arg(&root)
        .args(["--out", "out"])
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    let log = format!(
        "exit {:?}\n---- stdout ----\n{}---- stderr ----\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{log}");
    let task = dir.path().join("out").join(CASE);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (dir, task, log, stderr)
}

#[test]
fn cargo_fetch_of_run_profile_becomes_each_repositorys_setup() {
    let (_dir, task, _log, _stderr) = import();
    let spec = read(&task.join(format!("{CASE}.task")));
    // Each repository fetches its crates at image build, once, in its own `repo` block.
    for repo in ["gears", "wheels"] {
        let block = spec
            .split(&format!("repo {repo} {{"))
            .nth(1)
            .and_then(|b| b.split("\n  }").next())
            .unwrap_or_else(|| panic!("no `repo {repo}` block in\n{spec}"));
        // (wheels' on its own toolchain: `PATH=… cargo fetch --locked`)
        assert_eq!(
            block.matches("cargo fetch --locked\"").count(),
            1,
            "`repo {repo}` fetches its crates once:\n{block}"
        );
    }
}

#[test]
fn the_cargo_report_prefix_is_removed_from_the_oracle() {
    let (_dir, task, log, stderr) = import();
    // The oracle keeps the test paths, without WideSWE's runner prefix.
    let oracle = read(&task.join(format!("{CASE}.oracle.toml")));
    assert!(
        oracle.contains("f2p = [\"source::unset\"]")
            && oracle.contains("p2p = [\"wheels::typical\"]")
            && oracle.contains("f2p = [\"suite::cli::source_cli\"]"),
        "{oracle}"
    );
    assert!(!oracle.contains("cargo::"), "{oracle}");

    // Said once per repository; a test path whose module shares a repository's name
    // (`wheels::typical` of gears) is not taken for that repository's test.
    assert_eq!(
        stderr
            .matches("carry WideSWE's cargo report prefix `cargo::`")
            .count(),
        2,
        "{log}"
    );
    assert!(!stderr.contains("another repository's name"), "{log}");
}

#[test]
fn a_hidden_patch_keeping_the_gold_index_line_over_other_hunks_is_noted() {
    let (_dir, _task, log, stderr) = import();
    // gears' hidden patch relaxes the gold's test file but keeps its `index` line; wheels'
    // hidden test file is not in its gold patch, and is not compared.
    assert_eq!(
        stderr
            .matches(
                "gears-hidden-tests.patch` keeps the gold patch's `index 0000000..3c4d5e6` line"
            )
            .count(),
        1,
        "{log}"
    );
    assert_eq!(
        stderr.matches("keeps the gold patch's `index").count(),
        1,
        "{log}"
    );
}

/// The `repo` blocks of `spec`, from the first to the end of the last.
fn repo_blocks(spec: &str) -> String {
    let start = spec.find("  repo ").unwrap_or(0);
    let end = spec.rfind("\n  }\n").map_or(spec.len(), |e| e + 5);
    spec[start..end].to_string()
}

#[test]
fn each_run_is_built_at_image_build_and_runs_on_its_profiles_rust() {
    let (_dir, task, log, stderr) = import();
    let spec = read(&task.join(format!("{CASE}.task")));
    // gears (the environment's Rust 1.95): its crates fetched, then its run's own test build.
    // wheels (`rust:1.89-bookworm`, run_profile.sh's `…/toolchains/1.89.0-…`): Rust 1.89.0
    // installed first, and every cargo command of it on that toolchain's bin.
    insta::assert_snapshot!(repo_blocks(&spec));
    let wheels = spec.split("repo wheels {").nth(1).unwrap_or_default();
    assert!(!wheels.contains("cargo +"), "{wheels}");
    assert_eq!(
        stderr
            .matches("WideSWE keeps the cargo target directory of")
            .count(),
        2,
        "{log}"
    );
    assert_eq!(
        stderr
            .matches("WideSWE runs the tests of `wheels` on Rust 1.89")
            .count(),
        1,
        "{log}"
    );
    assert!(!stderr.contains("the tests of `gears` on Rust"), "{log}");
}
