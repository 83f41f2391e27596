//! `taskc import wideswe` on a case whose test line is built from values its
//! `run_profile.sh` computes when it runs (`make test TESTS="${TESTS[*]}"
//! TEST_PHP_ARGS="-q -d extension=$extra_so"`, WideSWE's cases 116–118;
//! tests/fixtures/wideswe-unresolved). The line is never taken; the refusal (E1104) names it
//! and the values (before: only "no test command … was found").
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::import_fixture;

#[test]
fn a_test_line_built_at_run_time_is_named_in_the_refusal() {
    let i = import_fixture("wideswe-unresolved", &[]);
    let stderr = &i.stderr;
    assert_eq!(i.code, Some(1), "{stderr}");
    let flat = i.flat();
    assert!(
        flat.contains("no test command for `core` was found in it; its test line `make test TESTS=\"${TESTS[*]}\" TEST_PHP_ARGS=\"-q -d extension=$extra_so\"` is built from values the script computes when it runs (`${TESTS[*]}`, `$extra_so`)"),
        "{stderr}"
    );
}
