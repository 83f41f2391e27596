//! The verification plan of every example under `examples/`, checked for real (the folder
//! is read into a `MemLoader`, so dir digests hash content with mode 100644).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use plan_support::{example_names, load_example};
use taskc_compiler::lower::{lower_verify, LowerOptions};

#[test]
fn every_example_plan_snapshot() {
    let names = example_names();
    assert!(names.len() >= 3, "examples: {names:?}");
    for name in names {
        let plan = lower_verify(&load_example(&name), &LowerOptions::default()).unwrap();
        insta::assert_snapshot!(format!("example_{name}"), plan.to_json_pretty());
    }
}
