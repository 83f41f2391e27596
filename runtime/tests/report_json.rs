//! The JSON report over the hand-built grades: schema, determinism, metrics, pairing.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "score_fixtures.rs"]
mod fixtures;

use taskc_runtime::predictions::PredictionError;
use taskc_runtime::report::{Report, REPORT_SCHEMA};

fn report() -> Report {
    let skipped = vec![PredictionError {
        line: 7,
        column: Some(12),
        message: "not valid JSON: EOF while parsing a string".into(),
    }];
    Report::new(fixtures::all_grades(), skipped, None)
}

#[test]
fn json_report_snapshot() {
    // The agent's rows only (both modes, with pairing), to keep the snapshot readable.
    let rows = fixtures::all_grades()
        .into_iter()
        .filter(|g| g.model == "agent")
        .collect();
    insta::assert_snapshot!(Report::new(rows, report().skipped, None).to_json_pretty());
}

#[test]
fn json_report_is_deterministic_and_order_independent() {
    let mut reversed = fixtures::all_grades();
    reversed.reverse();
    let a = report().to_json_pretty();
    let b = Report::new(reversed, report().skipped, None).to_json_pretty();
    assert_eq!(a, b);
    assert!(
        !a.contains("generated_at\": \""),
        "no timestamp unless passed in"
    );
    let back: Report = serde_json::from_str(&a).unwrap();
    assert_eq!(back.schema, REPORT_SCHEMA);
    assert_eq!(back, report());
}

#[test]
fn headline_figures() {
    let r = report();
    let labels: Vec<String> = r.summaries.iter().map(|s| s.label()).collect();
    assert_eq!(
        labels,
        vec![
            "agent · independent",
            "agent · joint",
            "empty · joint",
            "gold · independent",
            "gold · joint"
        ]
    );
    let gold = &r.summaries[4].metrics;
    assert_eq!(gold.case_success.percent, Some(100.0));
    assert_eq!(gold.repo_success.percent, Some(100.0));
    let empty = &r.summaries[2].metrics;
    assert_eq!(empty.case_success.percent, Some(0.0));
    assert_eq!(empty.f2p_complete.percent, Some(0.0));
    assert_eq!(empty.p2p_preserved.percent, Some(100.0));
    let agent_joint = &r.summaries[1].metrics;
    assert_eq!((agent_joint.solved, agent_joint.invalid), (0, 1));
    // sdk-retry's 2 resolved of 7 targets: the failed run's 2 targets (a patch that does
    // not apply) and the invalid run's 2 (an infrastructure error) count as unresolved.
    assert_eq!(agent_joint.repo_success.count_text(), "2/7");
    // The patch that does not apply is the prediction's failure: counted among valid.
    assert_eq!(agent_joint.valid_case_success.count_text(), "0/2");
    assert_eq!(agent_joint.failures["patch-does-not-apply"], 1);
    assert_eq!(agent_joint.failures["error"], 1);
    let p = &r.paired;
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].model, "agent");
    assert_eq!(
        (
            p[0].table.both,
            p[0].table.only_joint,
            p[0].table.only_independent,
            p[0].table.neither
        ),
        (0, 0, 1, 2)
    );
    assert_eq!(p[0].invalid_pairs, 1);
    assert_eq!(p[1].model, "gold");
    assert_eq!(p[1].table.both, 3);
}
