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

mod common;
use common::wideswe::{import_fixture, run_of};

#[test]
fn a_runner_chosen_by_a_function_argument_is_the_arms_or_refused() {
    let i = import_fixture("wideswe-branches", &["--report", "report.md"]);
    let stderr = i.stderr.clone();

    // Both arms pass a literal: fw runs phpunit, mcp pest (before: phpunit for both).
    let case = "demo_fw_mcp_7a8b9c0d1e2f";
    let spec = i.spec(case);
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
        !i.dir.path().join("out/demo_fw_ext_8b9c0d1e2f3a").exists(),
        "the ext case was written:\n{stderr}"
    );
    assert!(
        stderr.contains("E1104")
            && stderr.contains("no test command for `ext`")
            && stderr.contains("the function argument `runner`"),
        "{stderr}"
    );
    assert_eq!(i.code, Some(1), "{stderr}");
}
