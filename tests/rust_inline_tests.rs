//! Hidden unit tests beside the code, end to end on Docker (issue 21 items 10, 1 and 9):
//! tests/fixtures/rust-inline-tests, whose hidden test patch adds tests to the
//! `#[cfg(test)] mod tests` of `src/lib.rs`, the file the gold patch changes too, on
//! `env rust { toolchain "1.95" }` resolved through the image map to the stand-in
//! `taskc-standin/rust:1.95` (`scripts/standins/build.sh`, built once per engine and
//! left in place, as tests/image_map_docker.rs does for Python).
//!
//! `check` gives no W0401; `verify` is sound with the module's tests in the oracle; then
//! `score`: gold, another fix that adds a doc line (every doc-test moves), one that moves a
//! doc comment, and one that also edits the test module are solved (none has the doc
//! example the gold patch adds, which `verify` leaves out of the oracle); no change, a no-op
//! `assert_eq!` inside the test module (left out: the module is the hidden tests') and no-op
//! assertion macros above it (the canaries catch them) are not. FAILS when the engine does
//! not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{docker_or_skip, root, text, DockerGuard};

const STAND_IN: &str = "taskc-standin/rust:1.95";

fn taskc(guard: &DockerGuard, args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taskc"));
    cmd.args(args).current_dir(cwd).env_remove("NO_COLOR");
    guard.output(&mut cmd)
}

#[test]
fn docker_hidden_unit_tests_beside_the_code_keep_the_solution_and_not_its_test_edits() {
    if !docker_or_skip() {
        return;
    }
    let guard = DockerGuard::new();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("task");
    common::copy_dir(&root().join("tests/fixtures/rust-inline-tests"), &dir);
    let cache = tmp.path().join("cache");
    let cache_s = cache.to_str().unwrap();
    common::ensure_stand_in(STAND_IN);
    std::fs::write(
        dir.join("taskc.toml"),
        format!("[images.map]\n\"rust:1.95-bookworm\" = \"{STAND_IN}\"\n"),
    )
    .unwrap();

    // The hidden patch changes `src/lib.rs` only inside its test module: no W0401.
    let o = taskc(
        &guard,
        &["check", "--color", "never", "rust-inline-tests.task"],
        &dir,
    );
    let shown = text(&o);
    assert!(!shown.contains("W0401"), "{shown}");

    let o = taskc(
        &guard,
        &[
            "verify",
            "--backend",
            "docker",
            "--jobs",
            "2",
            "--color",
            "never",
            "--cache",
            cache_s,
            "rust-inline-tests.task",
        ],
        &dir,
    );
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(0), "gold must verify sound:\n{shown}");
    assert!(!shown.contains("TAMPERED"), "{shown}");
    let lock = std::fs::read_to_string(dir.join("rust-inline-tests.lock")).unwrap();
    let f2p = lock.split("f2p = ").nth(1).unwrap_or("");
    let f2p = f2p.split("p2p = ").next().unwrap_or("");
    assert!(
        f2p.contains("src/lib.rs::tests::a_full_tail_keeps_the_newest_lines"),
        "{lock}"
    );
    for p2p in [
        "src/lib.rs::tests::keeps_lines_in_order",
        "src/lib.rs::tests::a_tail_of_capacity_zero_keeps_nothing",
        "src/lib.rs - Tail::new",
        "src/lib.rs - Tail::record",
        "src/lib.rs - Tail::lines",
    ] {
        assert!(lock.contains(&format!("\"{p2p}\"")), "{p2p} in\n{lock}");
    }
    // The doc example the gold patch adds (`Tail::capacity`) tests the reference's docs, not
    // the task: out of the oracle, with a note; solutions without it are solved below.
    assert!(!lock.contains("Tail::capacity"), "{lock}");
    assert!(
        shown.contains("left out of the oracle, the doc-tests of doc examples the gold patch adds: `src/lib.rs - Tail::capacity`"),
        "{shown}"
    );
    assert!(lock.contains(&format!("base = \"{STAND_IN}\"")), "{lock}");
    assert!(
        lock.contains("base-stands-in-for = \"rust:1.95-bookworm\""),
        "{lock}"
    );

    // Predictions: (model, patch file or literal, expected status).
    let fixture = root().join("tests/fixtures/rust-inline-tests");
    let read = |p: &str| std::fs::read_to_string(fixture.join(p)).unwrap();
    let cases = [
        ("gold", read("patches/gold.patch"), "solved"),
        ("nothing", String::new(), "unsolved"),
        ("doc-line", read("predictions/doc-line.patch"), "solved"),
        ("moved-doc", read("predictions/moved-doc.patch"), "solved"),
        ("same-file", read("predictions/same-file.patch"), "solved"),
        (
            "tamper-module",
            read("predictions/tamper-module.patch"),
            "unsolved",
        ),
        (
            "tamper-above",
            read("predictions/tamper-above.patch"),
            "unsolved",
        ),
    ];
    let lines: Vec<String> = cases
        .iter()
        .map(|(model, patch, _)| {
            serde_json::json!({"task": "rust-inline-tests", "model": model, "patches": {"tail": patch}})
                .to_string()
        })
        .collect();
    let preds = tmp.path().join("predictions.jsonl");
    std::fs::write(&preds, lines.join("\n") + "\n").unwrap();
    let out = tmp.path().join("report");
    let o = taskc(
        &guard,
        &[
            "score",
            "--backend",
            "docker",
            "--jobs",
            "2",
            "--color",
            "never",
            "--cache",
            cache_s,
            "--predictions",
            preds.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "rust-inline-tests.task",
        ],
        &dir,
    );
    let shown = text(&o);
    let _ = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["gc", "--backend", "docker", "--cache", cache_s])
        .current_dir(&dir)
        .output();
    assert_eq!(o.status.code(), Some(0), "{shown}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    for (model, _, status) in &cases {
        let row = rows
            .iter()
            .find(|r| r["model"] == *model)
            .unwrap_or_else(|| panic!("no row for {model}:\n{shown}"));
        assert_eq!(row["status"], *status, "{model}: {row:#}\n{shown}");
    }
    let row = |m: &str| rows.iter().find(|r| r["model"] == m).unwrap().to_string();
    // The module's edits are named in the report, whatever the score.
    for m in ["same-file", "tamper-module"] {
        assert!(row(m).contains("hidden-test-modules"), "{m}: {}", row(m));
    }
    // No-op assertions above the module are a rigged run, not a plain failure.
    assert!(
        row("tamper-above").contains("tampered"),
        "{}",
        row("tamper-above")
    );
}
