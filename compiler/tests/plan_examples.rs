//! The verification plan of every example under `examples/`, checked for real (the folder
//! is read into a `MemLoader`, so dir digests hash content with mode 100644).

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
