//! Grading hand-built run results: gold-like all-pass, empty all-fail, an invalid run, a
//! partial fix, a scope miss, a P2P regression and a missing test.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "score_fixtures.rs"]
mod fixtures;

use fixtures::{all_grades, graded, prediction, tasks, Behaviour};
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::grade::{grade, Attribution, ScoredRun, Status, TargetOutcome, Unresolved};
use taskc_runtime::report::Metrics;
use taskc_runtime::results::RunFailure;

fn summary_line(g: &taskc_runtime::grade::PredictionGrade) -> String {
    let targets: Vec<String> = g
        .targets
        .iter()
        .map(|(n, t)| {
            format!(
                "{n}={} f2p {}/{} p2p {}/{}{}{}",
                t.outcome.as_str(),
                t.f2p.passed,
                t.f2p.total,
                t.p2p.passed,
                t.p2p.total,
                if t.missing.is_empty() {
                    String::new()
                } else {
                    format!(" missing {:?}", t.missing)
                },
                if t.edited { "" } else { " untouched" }
            )
        })
        .collect();
    format!(
        "{} {} {}: {}{}{}{}\n    {}",
        g.task,
        g.model,
        taskc_runtime::report::mode_str(g.mode),
        g.status.as_str(),
        g.unresolved
            .map_or(String::new(), |u| format!(" [{}]", u.as_str())),
        g.attribution
            .map_or(String::new(), |a| format!(" [{}]", a.as_str())),
        if g.invalid.is_empty() && g.failures.is_empty() {
            String::new()
        } else {
            let all: Vec<&str> = g
                .invalid
                .iter()
                .chain(&g.failures)
                .map(String::as_str)
                .collect();
            format!(" ({})", all.join("; "))
        },
        targets.join("\n    ")
    )
}

#[test]
fn every_case_graded() {
    let lines: Vec<String> = all_grades().iter().map(summary_line).collect();
    insta::assert_snapshot!(lines.join("\n"));
}

#[test]
fn gold_solves_and_empty_fails_every_task() {
    for g in all_grades() {
        match g.model.as_str() {
            "gold" => assert_eq!(g.status, Status::Solved, "{}", g.task),
            "empty" => {
                assert_eq!(g.status, Status::Unsolved);
                assert_eq!(g.unresolved, Some(Unresolved::None));
                assert_eq!(g.attribution, Some(Attribution::ScopeMiss));
            }
            _ => {}
        }
    }
}

#[test]
fn an_infrastructure_error_makes_the_prediction_invalid_not_failed() {
    let ts = tasks();
    let g = graded(
        &ts[0],
        &prediction("cookie-split", "a", &["proxy", "gateway"]),
        ScoreMode::Joint,
        &[
            ("proxy", Behaviour::AllPass),
            ("gateway", Behaviour::AllPass),
        ],
        Some(("gateway", RunFailure::error("the Docker engine went away"))),
    );
    assert_eq!(g.status, Status::Invalid);
    assert_eq!(g.unresolved, None);
    assert_eq!(g.attribution, None);
    assert_eq!(
        g.invalid,
        vec!["`proxy`, `gateway`: the Docker engine went away"]
    );
    assert!(g.failures.is_empty());
    assert!(g
        .targets
        .values()
        .all(|t| t.outcome == TargetOutcome::Invalid));
}

#[test]
fn failures_the_prediction_can_cause_are_unsolved_never_invalid() {
    let ts = tasks();
    for failure in [
        RunFailure::Timeout { limit_secs: 1800 },
        RunFailure::OutOfMemory,
        RunFailure::RunnerCrashed {
            detail: "the test log ends mid-run (os._exit in a conftest)".into(),
        },
        RunFailure::OutputTooLarge {
            limit_bytes: 64 << 20,
        },
        RunFailure::PatchDoesNotApply {
            repo: "gateway".into(),
            detail: "does not apply".into(),
        },
        RunFailure::Tampered {
            reason: "a canary that must fail passed".into(),
        },
    ] {
        let g = graded(
            &ts[0],
            &prediction("cookie-split", "a", &["proxy", "gateway"]),
            ScoreMode::Independent,
            &[
                ("proxy", Behaviour::AllPass),
                ("gateway", Behaviour::AllPass),
            ],
            Some(("gateway", failure.clone())),
        );
        assert_eq!(g.status, Status::Unsolved, "{failure}");
        assert!(g.valid(), "{failure}: never excluded from valid-only rates");
        assert!(g.invalid.is_empty(), "{failure}");
        assert_eq!(g.failures, vec![format!("`gateway`: {failure}")]);
        assert_eq!(g.targets["proxy"].outcome, TargetOutcome::Pass);
        assert_eq!(g.targets["gateway"].outcome, TargetOutcome::Fail);
        assert_eq!(g.targets["gateway"].f2p.passed, 0, "{failure}");
        assert!(!g.targets["gateway"].f2p_complete(), "{failure}");
        let m = Metrics::of([&g]);
        assert_eq!((m.unsolved, m.invalid), (1, 0), "{failure}");
        assert_eq!(m.failures[failure.kind()], 1, "{failure}");
        assert_eq!(
            m.valid_case_success.den, 1,
            "{failure}: counted among valid"
        );
    }
}

#[test]
fn independent_invalidity_is_per_target() {
    let ts = tasks();
    let g = graded(
        &ts[0],
        &prediction("cookie-split", "a", &["proxy", "gateway"]),
        ScoreMode::Independent,
        &[
            ("proxy", Behaviour::AllPass),
            ("gateway", Behaviour::AllPass),
        ],
        Some(("gateway", RunFailure::error("image missing"))),
    );
    assert_eq!(g.status, Status::Invalid);
    assert_eq!(g.targets["proxy"].outcome, TargetOutcome::Pass);
    assert_eq!(g.targets["gateway"].outcome, TargetOutcome::Invalid);
}

#[test]
fn missing_results_and_missing_oracle_are_invalid() {
    let ts = tasks();
    let fx = &ts[2];
    let pred = prediction("config-merge", "a", &["lib", "app"]);
    let runs = vec![ScoredRun {
        run: "run-1".into(),
        under_test: vec!["lib".into(), "app".into()],
        result: None,
    }];
    let g = grade(&fx.facts, &fx.oracle, &pred, ScoreMode::Joint, &runs);
    assert_eq!(g.status, Status::Invalid);
    assert_eq!(
        g.invalid[0],
        "`lib`, `app`: missing results: run run-1 has no stored result"
    );
    let mut no_lock = fx.oracle.clone();
    no_lock.targets.remove("app");
    let g = grade(&fx.facts, &no_lock, &pred, ScoreMode::Joint, &[]);
    assert_eq!(
        g.invalid,
        vec![
            "`lib`: no scoring run tests `lib`: the plan does not match the task",
            "`app`: no oracle for `app`: run `taskc verify` to write the lock file",
        ]
    );
}
