//! The specs under `specs/` that test taskc itself: every `specs/invalid/*.task` produces the
//! diagnostic its `// expect: CODE` header names (exit 1 for an error, 0 for a warning), and
//! `specs/bundle-sources` — cookie-split with bundle sources pinned by `base` — checks clean,
//! exports only the base (one commit, the gold patch still applies, no later history) and
//! verifies sound with the oracle of `examples/cookie-split`. Runs the real binary.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

fn taskc(args: &[&str]) -> Output {
    Command::new(TASKC)
        .args(args)
        .current_dir(common::root())
        .output()
        .unwrap()
}

#[test]
fn every_invalid_spec_produces_the_code_its_header_expects() {
    let dir = common::root().join("specs/invalid");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "task"))
        .collect();
    specs.sort();
    assert_eq!(
        specs.len(),
        20,
        "specs/invalid/README.md lists twenty specs"
    );
    for spec in specs {
        let text = std::fs::read_to_string(&spec).unwrap();
        let expected = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{}: no `// expect: CODE` header", spec.display()))
            .trim()
            .to_string();
        let rel = format!(
            "specs/invalid/{}",
            spec.file_name().unwrap().to_string_lossy()
        );
        let out = taskc(&["check", "--format", "json", &rel]);
        let codes: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["code"].as_str().unwrap().to_string()
            })
            .collect();
        assert!(
            codes.contains(&expected),
            "{rel}: expected {expected}, got {codes:?}"
        );
        let exit = if expected.starts_with('E') { 1 } else { 0 };
        assert_eq!(out.status.code(), Some(exit), "{rel}: {out:?}");
    }
}

#[test]
fn bundle_sources_export_only_the_base_and_verify_like_cookie_split() {
    let spec = "specs/bundle-sources/bundle-sources.task";
    let check = taskc(&["check", spec]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");

    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("workspace");
    let cache = tmp.path().join("cache");
    let exported = taskc(&[
        "workspace",
        "--cache",
        cache.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        spec,
    ]);
    assert!(exported.status.success(), "{exported:?}");
    for repo in ["proxy", "gateway"] {
        let dir = out.join(repo);
        assert_eq!(
            common::git(&dir, &["rev-list", "--count", "HEAD"]),
            "1",
            "{repo}"
        );
        let gold = common::root().join(format!("specs/bundle-sources/gold/{repo}.patch"));
        common::git(&dir, &["apply", "--check", gold.to_str().unwrap()]);
    }

    let verified = taskc(&[
        "verify",
        "--backend",
        "local",
        "--cache",
        cache.to_str().unwrap(),
        "--no-lock",
        "--format",
        "json",
        spec,
    ]);
    assert_eq!(verified.status.code(), Some(0), "{verified:?}");
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&verified.stdout).trim()).unwrap();
    assert_eq!(v["sound"], true, "{v}");
    let lock =
        std::fs::read_to_string(common::root().join("examples/cookie-split/cookie-split.lock"))
            .unwrap();
    let lock: toml::Value = toml::from_str(&lock).unwrap();
    for repo in ["proxy", "gateway"] {
        for set in ["f2p", "p2p"] {
            let derived: Vec<&str> = v["verification"]["oracles"][repo][set]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            let locked: Vec<&str> = lock["repos"][repo][set]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap())
                .collect();
            assert_eq!(derived, locked, "{repo} {set}");
        }
    }
}
