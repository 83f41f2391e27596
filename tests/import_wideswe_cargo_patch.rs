//! `taskc import wideswe` on a Rust case whose harness.yaml routes crates.io packages to
//! repositories of the workspace (`agent_cargo_workspace_patches`, WideSWE's case 53): the
//! spec's first patched repository writes `/work/.cargo/config.toml` with the
//! `[patch.crates-io]` entries in a `setup` step, and every entry the spec does not reproduce
//! exactly (a locked manifest or version) or cannot write (no such repository) is a W1108
//! note. Before, the mapping was not read at all: the consumer built against crates.io.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const CASE: &str = "demo_gears_patch_6f7a8b9c0d1e";

#[test]
fn cargo_workspace_patches_become_a_setup_step_and_notes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-cargo-patch");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["import", "--color", "never", "wideswe"])
        .arg(&root)
        .args(["--out", "out"])
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let spec_path = dir
        .path()
        .join("out")
        .join(CASE)
        .join(format!("{CASE}.task"));
    let spec = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", spec_path.display()));

    let setups: Vec<&str> = spec
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(".cargo/config.toml"))
        .collect();
    let notes: Vec<String> = stderr
        .split("W1108 (import-note)")
        .skip(1)
        .map(|n| {
            n.lines()
                .take_while(|l| !l.contains('╭'))
                .map(|l| l.trim().trim_start_matches(['⚠', '│']).trim())
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|n| n.contains("agent_cargo_workspace_patches") || n.contains("crates.io"))
        .collect();
    insta::assert_snapshot!(format!(
        "---- setup ----\n{}\n---- notes ----\n{}",
        setups.join("\n"),
        notes.join("\n")
    ));
    // Written once, in the first repository, before its crates are fetched.
    let gears = spec
        .split("repo gears {")
        .nth(1)
        .and_then(|b| b.split("\n  }").next())
        .unwrap_or_default();
    let cfg = gears.find(".cargo/config.toml").unwrap_or(usize::MAX);
    let fetch = gears.find("cargo fetch").unwrap_or(0);
    assert!(cfg < fetch, "{gears}");
    assert_eq!(setups.len(), 1, "{spec}");
}
