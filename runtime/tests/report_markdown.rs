//! The Markdown summary over the hand-built grades.

#[path = "score_fixtures.rs"]
mod fixtures;

use taskc_runtime::report::{markdown, Report};

#[test]
fn markdown_report_snapshot() {
    let r = Report::new(
        fixtures::all_grades(),
        vec![],
        Some("2026-01-01T00:00:00Z".into()),
    );
    insta::assert_snapshot!(markdown::render(&r));
}
