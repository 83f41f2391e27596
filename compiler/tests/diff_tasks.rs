//! The semantic diff: what changed and what it invalidates, as Markdown and JSON.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use plan_support::*;
use taskc_compiler::diff::diff_tasks;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::{RelaxAction, Relaxation, Rule, Task};
use taskc_compiler::plan::sha256_hex;

fn diff(old: &Task, new: &Task) -> taskc_compiler::diff::TaskDiff {
    let o = LowerOptions::default();
    diff_tasks(
        old,
        &lower_verify(old, &o).unwrap(),
        new,
        &lower_verify(new, &o).unwrap(),
    )
}

fn changed() -> Task {
    let mut t = cookie_split();
    t.title = Some("Split large cookies".into());
    // docs moves to a newer base; a new context repository appears.
    t.repos[2].base = Some("1111111111111111111111111111111111111111".into());
    t.repos.push(context("changelog"));
    // proxy's gold patch changes.
    let gold = t.repos[0].gold.as_mut().unwrap();
    gold.text.push_str("+more = 1\n");
    gold.digest = sha256_hex(gold.text.as_bytes());
    // gateway: the drop is removed, another one added, an expectation added.
    let gw = &mut t.repos[1];
    gw.relaxations.remove(0);
    gw.relaxations.push(Relaxation {
        rule: Rule::Unrequested,
        reason: "the prompt does not ask for metrics".into(),
        action: RelaxAction::Drop {
            test: "tests/test_gateway.py::test_metrics".into(),
        },
    });
    gw.test
        .as_mut()
        .unwrap()
        .expect
        .f2p
        .push("tests/test_gateway.py::test_split".into());
    t
}

#[test]
fn diff_markdown_snapshot() {
    insta::assert_snapshot!(diff(&cookie_split(), &changed()).to_markdown());
}

#[test]
fn diff_json_snapshot() {
    insta::assert_snapshot!(diff(&cookie_split(), &changed()).to_json_pretty());
}

#[test]
fn an_unchanged_task_has_an_empty_diff() {
    let mut moved = cookie_split();
    moved.spec_path = "other/place.task".into();
    let d = diff(&cookie_split(), &moved);
    assert!(d.is_empty(), "{d:?}");
    assert!(d.to_markdown().contains("No semantic change"));
}

#[test]
fn a_gateway_only_change_keeps_the_proxy_runs() {
    let mut t = cookie_split();
    let gw = t.repos[1].test.as_mut().unwrap();
    gw.run = "python -m pytest -rA -x tests".into();
    let d = diff(&cookie_split(), &t);
    assert!(d.invalidated.images.is_empty());
    // gateway's 4 runs change; proxy's 4 (2 configurations + 2 `uses` checks) are kept.
    assert_eq!(d.invalidated.runs.len(), 4);
    assert_eq!(d.invalidated.runs_kept, 4);
    assert!(d
        .invalidated
        .runs
        .iter()
        .all(|r| r.under_test == ["gateway"]));
}

#[test]
fn a_new_select_template_is_a_field_change_that_invalidates_its_targets_runs() {
    let jest = |select: Option<&str>| {
        let mut t = cookie_split();
        let gw = t.repos[1].test.as_mut().unwrap();
        gw.parser = taskc_compiler::parser::LogParser::JestJson;
        gw.select = select.map(str::to_string);
        t
    };
    let d = diff(&jest(None), &jest(Some("node only.js {ids}")));
    let changes: Vec<_> = d
        .repo_fields
        .iter()
        .map(|c| {
            (
                c.repo.as_str(),
                c.change.field.as_str(),
                c.change.new.clone(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [(
            "gateway",
            "test.select",
            Some("node only.js {ids}".to_string())
        )]
    );
    assert!(!d.invalidated.runs.is_empty());
    assert!(d
        .invalidated
        .runs
        .iter()
        .all(|r| r.under_test == ["gateway"]));
}
