//! `taskc import wideswe` on cases whose tests run through a package script (`corepack yarn
//! --cwd packages/web test-unit …`, WideSWE's cases 29–31; tests/fixtures/wideswe-package-script).
//! When the case's own command hands the script jest's own options (`--runInBand`), the
//! script is taken to run jest: the `jest-json` parser reads it (its `--json` reaches jest
//! through the package manager) and a W1108 says so (before: E1104, no runner). When nothing
//! in the case says which runner the script runs, the profile stays refused, the refusal
//! naming the script (before: "`corepack` runs no test runner").
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

#[test]
fn a_package_script_handed_jests_options_is_read_as_jest() {
    let i = import_fixture("wideswe-package-script", &[]);
    let stderr = &i.stderr;
    let spec = i.spec("demo_pkgjest_4c5d6e7f8a9b");
    assert_eq!(
        run_of(&spec, "core"),
        r#"run "corepack yarn --cwd packages/web test-unit src/flyout.test.tsx --runInBand --json""#,
        "{stderr}"
    );
    assert!(spec.contains("parser jest-json"), "{spec}");
    let notes = i.notes(|n| n.contains("through the package script `test-unit`"));
    assert_eq!(notes.len(), 1, "{stderr}");
}

#[test]
fn a_package_script_nothing_says_is_jest_stays_refused() {
    let i = import_fixture("wideswe-package-script", &[]);
    let stderr = &i.stderr;
    assert_eq!(i.code, Some(1), "{stderr}");
    assert!(stderr.contains("E1104"), "{stderr}");
    let flat = i.flat();
    assert!(
        flat.contains("it runs the package script `test-unit` of the repository's package.json, and nothing in the case says which test runner that script runs"),
        "{stderr}"
    );
    assert!(
        !i.dir.path().join("out/demo_pkgnone_5d6e7f8a9b0c").exists(),
        "a refused case writes nothing"
    );
}
