//! `taskc import wideswe` on a Rust case whose harness.yaml routes crates.io packages to
//! repositories of the workspace (`agent_cargo_workspace_patches`, WideSWE's case 53): the
//! spec's first patched repository writes `/work/.cargo/config.toml` with the
//! `[patch.crates-io]` entries in a `setup` step, and every entry the spec does not reproduce
//! exactly (a locked manifest or version) or cannot write (no such repository) is a W1108
//! note. Before, the mapping was not read at all: the consumer built against crates.io.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::import_fixture;

const CASE: &str = "demo_gears_patch_6f7a8b9c0d1e";

#[test]
fn cargo_workspace_patches_become_a_setup_step_and_notes() {
    let i = import_fixture("wideswe-cargo-patch", &[]);
    let stderr = i.stderr.clone();
    assert_eq!(i.code, Some(0), "{stderr}");
    let spec = i.spec(CASE);

    let setups: Vec<&str> = spec
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(".cargo/config.toml"))
        .collect();
    let notes = i.notes(|n| n.contains("agent_cargo_workspace_patches") || n.contains("crates.io"));
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
