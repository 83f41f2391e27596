//! `taskc import wideswe` on cases whose test is a plain Python script, its exit status the
//! only result (WideSWE's case 60; tests/fixtures/wideswe-exit-status). A profile whose
//! `command` runs the script as WideSWE runs it is imported with `parser exit-status` and a
//! note saying what that parser reads (before: refused, "no parser of taskc reads an exit
//! status"); a profile whose `run_profile.sh` runs the script with arguments the command
//! lacks stays refused (E1104), naming that line.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

#[test]
fn a_plain_script_run_as_the_profile_says_is_scored_by_its_exit_status() {
    let i = import_fixture("wideswe-exit-status", &[]);
    let stderr = &i.stderr;
    let spec = i.spec("demo_exit_2a3b4c5d6e7f");
    assert_eq!(
        run_of(&spec, "core"),
        r#"run "python3 core/tests/headers_contract.py sends_the_agent""#,
        "{stderr}"
    );
    assert!(spec.contains("parser exit-status"), "{spec}");
    assert_eq!(
        i.notes(|n| n.contains("parser exit-status")).len(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_plain_script_run_otherwise_by_run_profile_is_refused_naming_the_line() {
    let i = import_fixture("wideswe-exit-status", &[]);
    let stderr = &i.stderr;
    assert_eq!(i.code, Some(1), "{stderr}");
    let flat = i.flat();
    assert!(
        flat.contains("but environment/run_profile.sh runs it as `PYTHONPATH=\"$PWD/build\" timeout 30s python3 core/tests/headers_contract.py \"$name\""),
        "{stderr}"
    );
    assert!(
        !i.dir.path().join("out/demo_exitargs_3b4c5d6e7f8a").exists(),
        "a refused case writes nothing"
    );
}
