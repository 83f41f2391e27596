//! The invalid-spec corpus (`tests/corpus/`): every entry is checked by the real binary and
//! its source and rendered diagnostics are snapshotted together; every diagnostic code
//! (except the lock-file ones) must be produced by some entry.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use taskc_compiler::Code;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn taskc(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(cwd)
        .env_remove("NO_COLOR")
        .output()
        .expect("run taskc")
}

/// The corpus entries: `e0200-unknown-field.task`, `w0401-….task`, `multi-….task`.
fn entries() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .expect("read corpus")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".task") && n != "valid.task")
        .collect();
    names.sort();
    names
}

/// Source text for a snapshot: invalid UTF-8 shown lossily, NUL bytes as `\0`.
fn shown(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).replace('\0', "\\0")
}

/// The codes lock files bring; no spec-only corpus entry can produce them.
const LOCK_CODES: &[Code] = &[Code::StaleLock, Code::InvalidLock];
/// `taskc import` codes are produced by tests/import_wideswe.rs and tests/import_swebench.rs.
fn is_import_code(c: &Code) -> bool {
    c.as_str()[1..].starts_with("11") || c.as_str()[1..].starts_with("14")
}
/// `taskc export harbor` / `collect --from harbor` codes are about locks and job folders:
/// tests/export_harbor.rs (E1200, E1201, E1202, E1205). E1930 is the exported grader's, in a
/// Harbor trial (`export::test_user`'s unit tests).
fn is_export_code(c: &Code) -> bool {
    c.as_str()[1..].starts_with("12") || *c == Code::HarborTestUser
}
/// `taskc collect`'s codes are about workspaces, not specs: tests/collect_hermetic.rs.
/// Named images resolve at run time, on the engine (`verify`): tests/image_map_docker.rs;
/// base images pinned by digest against a registry: tests/base_digest_registry.rs (E1800).
const RUNTIME_IMAGE_CODES: &[Code] = &[
    Code::ImageUnresolved,
    Code::BaseTagMoved,
    Code::BasePinUnavailable,
];
const COLLECT_CODES: &[Code] = &[
    Code::CollectUnreadable,
    Code::WorkspaceRecordMissing,
    Code::WorkspaceRecordInvalid,
    Code::CollectRepoMissing,
    Code::CollectBaseMissing,
    Code::CollectGitFailed,
    Code::CollectNotUtf8,
];

#[test]
fn corpus_has_enough_entries() {
    assert!(entries().len() >= 30, "{} entries", entries().len());
}

#[test]
fn every_entry_renders_its_diagnostics() {
    for name in entries() {
        let bytes = std::fs::read(corpus().join(&name)).expect("read entry");
        let out = taskc(&corpus(), &["check", "--color", "never", &name]);
        let code = out.status.code().unwrap_or(-1);
        let stem = name.trim_end_matches(".task");
        insta::assert_snapshot!(
            stem,
            format!(
                "---- {name} ----\n{}\n---- taskc check --color never {name}  (exit {code}) ----\n{}",
                shown(&bytes),
                String::from_utf8_lossy(&out.stderr)
            )
        );
    }
}

/// Codes by spec, from `--format json` over the whole corpus folder.
fn codes_by_file() -> BTreeMap<String, BTreeSet<String>> {
    let out = taskc(&corpus(), &["check", "--format", "json", "."]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut by_file: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON object per line");
        let file = v["spec"].as_str().expect("spec").to_string();
        let code = v["code"].as_str().expect("code").to_string();
        by_file.entry(file).or_default().insert(code);
    }
    by_file
}

#[test]
fn every_entry_produces_the_code_it_is_named_for() {
    let by_file = codes_by_file();
    for name in entries() {
        let Some(code) = name.split('-').next().filter(|c| {
            c.len() == 5 && c.starts_with(['e', 'w']) && c[1..].bytes().all(|b| b.is_ascii_digit())
        }) else {
            continue;
        };
        let code = code.to_uppercase();
        let got = by_file.get(&name).cloned().unwrap_or_default();
        assert!(
            got.contains(&code),
            "{name} should produce {code}, produced {got:?}"
        );
    }
}

#[test]
fn every_code_is_produced_by_some_entry() {
    let mut produced: BTreeSet<String> = codes_by_file().into_values().flatten().collect();
    // E0103 needs a file over 8 MiB: generated, not committed (see `too_large_file`).
    produced.insert(Code::FileTooLarge.as_str().to_string());
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| {
            !LOCK_CODES.contains(c)
                && !COLLECT_CODES.contains(c)
                && !RUNTIME_IMAGE_CODES.contains(c)
                && !is_import_code(c)
                && !is_export_code(c)
        })
        .map(|c| c.as_str())
        .filter(|c| !produced.contains(*c))
        .collect();
    assert!(missing.is_empty(), "no corpus entry produces {missing:?}");
}

#[test]
fn too_large_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("task \"big\" {\n");
    while text.len() <= 8 * 1024 * 1024 {
        text.push_str("  // padding padding padding padding padding padding padding padding\n");
    }
    text.push_str("}\n");
    std::fs::write(dir.path().join("e0103-file-too-large.task"), &text).expect("write");
    let out = taskc(
        dir.path(),
        &["check", "--color", "never", "e0103-file-too-large.task"],
    );
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(
        "e0103-file-too-large",
        format!(
            "---- e0103-file-too-large.task: {} bytes of comments ----\n---- taskc check --color never e0103-file-too-large.task  (exit 1) ----\n{}",
            text.len(),
            String::from_utf8_lossy(&out.stderr)
        )
    );
}
