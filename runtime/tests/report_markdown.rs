//! The Markdown summary over the hand-built grades.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

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

/// A model name, a failure message and a flagged path carrying raw HTML, a link, pipes and
/// line breaks are shown as text in both the Markdown and the HTML report.
#[test]
fn quoted_text_is_escaped_in_markdown_and_html() {
    use taskc_runtime::grade::{Flag, FlagRule};
    use taskc_runtime::predictions::Duplicate;
    use taskc_runtime::report::html;

    let hostile = "<img src=x onerror=alert(1)>|[x](javascript:1)\n# owned";
    let mut grades = fixtures::all_grades();
    let mut g = grades.remove(0);
    g.model = hostile.to_string();
    g.failures = vec![format!("git said: {hostile}")];
    g.flags = vec![Flag {
        repo: "lib".into(),
        file: "tests/<b>conftest</b>.py".into(),
        rule: FlagRule::Surface {
            glob: "conftest.py".into(),
        },
        reverted: true,
    }];
    let mut r = Report::new(vec![g], vec![], None);
    r.duplicates = vec![Duplicate {
        task: "t".into(),
        model: hostile.into(),
        dropped: 1,
        identical: true,
    }];
    let md = markdown::render(&r);
    for bad in ["<img", "<b>", "|[x](javascript", "\n# owned"] {
        assert!(!md.contains(bad), "markdown passes `{bad}` through:\n{md}");
    }
    assert!(md.contains("&lt;img src=x onerror=alert(1)&gt;\\|\\[x\\](javascript:1) # owned"));
    let page = html::render(&r).expect("renders");
    for bad in ["<img", "<b>conftest"] {
        assert!(!page.contains(bad), "html passes `{bad}` through");
    }
    assert!(
        page.contains("&lt;b&gt;conftest&lt;"),
        "the flagged file is shown as text"
    );
    assert!(page.contains("test surface"), "with its rule");
}
