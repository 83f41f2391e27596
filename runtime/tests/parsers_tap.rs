//! The tap parser on a real `node --test --test-reporter=tap` log (node 20) and
//! hand-written tape / TAP 14 logs in tests/fixtures/logs/tap/.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::parsers::{parse, LogParser};

fn snapshot(fixture: &str, case: &str) {
    let path = format!(
        "{}/tests/fixtures/logs/tap/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let log = std::fs::read(&path).expect("fixture exists");
    let parsed = parse(LogParser::Tap, &log).expect("tap is a known parser");
    insta::with_settings!({
        input_file => &path,
        description => case,
        omit_expression => true,
        snapshot_suffix => fixture.trim_end_matches(".log"),
    }, {
        insta::assert_snapshot!(parsed.to_string());
    });
}

#[test]
fn node_test() {
    snapshot(
        "node-test.log",
        "real node --test: nested describe blocks as parent::child, escaped `\\#` in a name, SKIP, \
         TODO, a file whose process exited, multi-line YAML errors, a printed fake `ok 99` \
         (node turns it into a comment), the same name twice",
    );
}

#[test]
fn node_test_cut() {
    snapshot(
        "node-test-cut.log",
        "the same log cut inside a suite: subtests without their parent point, no plan -> incomplete",
    );
}

#[test]
fn tape_plan_first() {
    snapshot(
        "tape-plan-first.log",
        "plan first (1..6) and fewer results, YAML holding an `ok 7` line, lowercase todo, \
         escapes, then Bail out! -> incomplete",
    );
}

#[test]
fn two_streams_no_subtest_comments() {
    snapshot(
        "two-streams-no-subtest-comments.log",
        "two TAP streams in one log; subtests without `# Subtest:` comments are named when \
         their parent point arrives; a point without description is named by its number",
    );
}
