//! `taskc import wideswe` on cases whose runner script (copied into the image by the case's
//! Dockerfile) runs phpunit once per test path in a `for` loop over a function's arguments
//! (WideSWE's cases 48 and 49; tests/fixtures/wideswe-runner-loop). A loop over distinct
//! literal paths, none inside another, is unrolled into one run per path, each printing the
//! JUnit report the parser reads, the list failing when a run fails (before: refused, E1104);
//! a loop whose runs would report the same tests (a folder and a file inside it) stays
//! refused, the note saying why.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

#[test]
fn a_runner_run_per_element_of_a_literal_list_is_one_run_per_element() {
    let i = import_fixture("wideswe-runner-loop", &[]);
    let stderr = &i.stderr;
    let spec = i.spec("demo_loop_7a8b9c0d1e2f");
    assert_eq!(
        run_of(&spec, "core"),
        r##"run r#"taskc_failed=0; ./vendor/bin/phpunit --colors=never tests/Feature/LoopOneTest.php --log-junit php://stdout || taskc_failed=1; ./vendor/bin/phpunit --colors=never tests/Feature/LoopTwoTest.php --log-junit php://stdout || taskc_failed=1; [ "$taskc_failed" -eq 0 ]"#"##,
        "{stderr}"
    );
    assert!(spec.contains("parser phpunit-junit"), "{spec}");
    let unrolled = i
        .notes(|n| n.contains("unrolled it into 2 runs"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no note saying the loop was unrolled in\n{stderr}"));
    insta::assert_snapshot!(unrolled);
}

#[test]
fn a_loop_whose_runs_would_report_the_same_tests_is_refused_naming_why() {
    let i = import_fixture("wideswe-runner-loop", &[]);
    let stderr = &i.stderr;
    assert_eq!(i.code, Some(1), "{stderr}");
    assert!(
        !i.dir
            .path()
            .join("out/demo_overlap_1b2c3d4e5f6a/demo_overlap_1b2c3d4e5f6a.task")
            .exists(),
        "{stderr}"
    );
    let refused = i
        .notes(|n| n.contains("does not unroll"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no note naming the loop in\n{stderr}"));
    insta::assert_snapshot!(refused);
    assert!(stderr.contains("E1104"), "{stderr}");
}
