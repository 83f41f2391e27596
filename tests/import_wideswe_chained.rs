//! `taskc import wideswe` on a case the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-chained) whose profiles run their runner more than once in one
//! command list, as WideSWE's case 108 does (`yarn vitest run a -t …; yarn vitest run b`):
//! issue 24's importer bug 13. Every run gets what its parser reads (`-rA`, `-json`, the
//! reporter option), not only the list's last; a runner that writes a report file writes
//! one per run, joined into `$TASKC_REPORT` when the list ends.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const CASE: &str = "demo_dial_knob_6a7b8c9d0e1f";

/// The imported spec's `run` lines, one per repository, after
/// `taskc import wideswe <fixture> --out out` in a fresh folder.
fn runs() -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-chained");
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
    let spec_path = dir
        .path()
        .join("out")
        .join(CASE)
        .join(format!("{CASE}.task"));
    let spec = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{log}", spec_path.display()));
    spec.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("run "))
        .map(str::to_string)
        .collect()
}

fn run_of(runs: &[String], marker: &str) -> String {
    runs.iter()
        .find(|r| r.contains(marker))
        .cloned()
        .unwrap_or_else(|| panic!("no run with `{marker}` in {runs:#?}"))
}

#[test]
fn every_run_of_a_chained_runner_prints_what_its_parser_reads() {
    let runs = runs();
    // vitest (bug 13 as case 108 shows it): each run writes its own JSON report, and the
    // list joins them into the report file the parser reads, keeping the exit status.
    let dial = run_of(&runs, "round.test.ts");
    assert_eq!(dial.matches("--reporter=json").count(), 2, "{dial}");
    assert!(
        dial.contains(
            r#"--testNamePattern="rounds up" --reporter=json --outputFile="$TASKC_REPORT".1;"#
        ) && dial.contains(r#"step.test.ts --reporter=json --outputFile="$TASKC_REPORT".2; s=$?;"#)
            && dial.ends_with(r##"done > "$TASKC_REPORT"; exit $s"#"##),
        "{dial}"
    );
    // WideSWE's own JUnit report options are gone from both runs.
    assert!(
        !dial.contains("junit") && !dial.contains(".ecosyncbench"),
        "{dial}"
    );

    // pytest: `-rA` in both runs, `--junitxml` dropped.
    let knob = run_of(&runs, "test_turn.py");
    assert_eq!(knob.matches("-rA").count(), 2, "{knob}");
    assert!(!knob.contains("junitxml"), "{knob}");

    // go test: `-json` in both runs.
    let axle = run_of(&runs, "./spin/");
    assert_eq!(axle.matches("go test -json").count(), 2, "{axle}");

    // playwright: the report variable belongs to each run (before, it was set for the
    // `cd` at the head of the list, which no playwright run saw).
    let lamp = run_of(&runs, "glow.spec.ts");
    assert!(
        !lamp.contains(r#"PLAYWRIGHT_JSON_OUTPUT_NAME="$TASKC_REPORT" cd"#),
        "{lamp}"
    );
    assert_eq!(
        lamp.matches("PLAYWRIGHT_JSON_OUTPUT_NAME=").count(),
        2,
        "{lamp}"
    );

    insta::assert_snapshot!(runs.join("\n"));
}
