//! `taskc import wideswe` on a case whose runner script (copied into its image by the case's
//! Dockerfile) runs phpunit once per test file in a `for` loop over a function's arguments
//! (WideSWE's cases 48 and 49; tests/fixtures/wideswe-runner-loop). The loop is not taken (a
//! spec's `run` is one command read once; phpunit 9 takes one path per run): the case stays
//! refused (E1104), and a W1108 note names the loop and the runner. Before, the refusal only
//! said no test command was found.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::import_fixture;

#[test]
fn a_runner_run_per_element_of_a_loop_is_refused_naming_the_loop() {
    let i = import_fixture("wideswe-runner-loop", &[]);
    let stderr = &i.stderr;
    assert_eq!(i.code, Some(1), "{stderr}");
    // The note's message, its wrapped lines joined (the source excerpt left out).
    let loop_note = i
        .notes(|n| n.contains("once per element of the loop"))
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no note naming the loop in\n{stderr}"));
    insta::assert_snapshot!(loop_note);
    assert!(stderr.contains("E1104"), "{stderr}");
}
