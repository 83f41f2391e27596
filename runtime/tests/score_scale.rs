//! Grading and reporting at benchmark scale stays fast: 3,000 predictions (3 models × 2
//! modes × 500 tasks) are graded and turned into the JSON, Markdown and HTML reports.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "score_fixtures.rs"]
mod fixtures;

use std::time::Instant;

use fixtures::{graded, prediction, tasks, Behaviour};
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::report::{html, markdown, Report};

#[test]
fn three_thousand_predictions_grade_and_report_quickly() {
    let ts = tasks();
    let start = Instant::now();
    let mut grades = Vec::new();
    for i in 0..500 {
        let mut fx = fixtures::tasks().swap_remove(i % ts.len());
        fx.facts.id = format!("{}-{i:03}", fx.facts.id);
        for model in ["m1", "m2", "m3"] {
            for mode in [ScoreMode::Joint, ScoreMode::Independent] {
                let targets: Vec<&str> = fx.facts.targets.iter().map(String::as_str).collect();
                let behave: Vec<(&str, Behaviour)> = targets
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        (
                            *t,
                            if (i + k) % 3 == 0 {
                                Behaviour::Base
                            } else {
                                Behaviour::AllPass
                            },
                        )
                    })
                    .collect();
                let p = prediction(&fx.facts.id, model, &targets);
                grades.push(graded(&fx, &p, mode, &behave, None));
            }
        }
    }
    let graded_in = start.elapsed();
    let report = Report::new(grades, vec![], None);
    let json = report.to_json_pretty();
    let md = markdown::render(&report);
    let page = html::render(&report).unwrap();
    let total = start.elapsed();
    eprintln!(
        "3000 predictions: graded in {:?}, all reports in {:?} (JSON {} KiB, Markdown {} KiB, HTML {} KiB)",
        graded_in,
        total - graded_in,
        json.len() / 1024,
        md.len() / 1024,
        page.len() / 1024
    );
    assert_eq!(report.rows.len(), 3000);
    assert!(total.as_secs() < 30, "took {total:?}");
}
