//! `taskc import wideswe` on a checkout the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-branches), in the shape of WideSWE case 75 (issue 24, second
//! round): a function of `run_profile.sh` runs pest or phpunit in an `if [[ "$runner" ==
//! "pest" ]] … else … fi`, `runner` one of its arguments. The importer used to take the last
//! runner line for every profile, so a profile whose arm passes `pest` got phpunit, with no
//! word. The branch is now chosen by the literal the arm passes, and refused (E1104, naming
//! the argument) when the arm passes none.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

fn run_of(spec: &str, repo: &str) -> String {
    spec.split(&format!("repo {repo} {{"))
        .nth(1)
        .and_then(|b| b.lines().map(str::trim).find(|l| l.starts_with("run ")))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no `run` in `repo {repo}` of\n{spec}"))
}

#[test]
fn a_runner_chosen_by_a_function_argument_is_the_arms_or_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wideswe-branches");
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["import", "--color", "never", "wideswe"])
        .arg(&root)
        .args(["--out", "out", "--report", "report.md"])
        .current_dir(dir.path())
        .output()
        .expect("run taskc");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();

    // Both arms pass a literal: fw runs phpunit, mcp pest (before: phpunit for both).
    let case = "demo_fw_mcp_7a8b9c0d1e2f";
    let spec_path = dir
        .path()
        .join("out")
        .join(case)
        .join(format!("{case}.task"));
    let spec = std::fs::read_to_string(&spec_path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{stderr}", spec_path.display()));
    let fw = run_of(&spec, "fw");
    assert!(
        fw.contains("./vendor/bin/phpunit") && fw.contains("tests/FwTest.php"),
        "{fw}"
    );
    let mcp = run_of(&spec, "mcp");
    assert!(
        mcp.contains("./vendor/bin/pest") && mcp.contains("tests/Unit/McpTest.php"),
        "mcp's arm passes `pest`: {mcp}"
    );

    // ext's arm passes `"${EXT_RUNNER:-pest}"`: no runner is chosen for it, and the error
    // names the argument (before: phpunit, silently).
    assert!(
        !dir.path().join("out/demo_fw_ext_8b9c0d1e2f3a").exists(),
        "the ext case was written:\n{stderr}"
    );
    assert!(
        stderr.contains("E1104")
            && stderr.contains("no test command for `ext`")
            && stderr.contains("the function argument `runner`"),
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "{stderr}");
}
