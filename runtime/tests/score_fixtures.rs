//! Hand-built tasks, oracles, predictions and run results shared by the scoring and report
//! tests (included with `#[path]`; as a test target of its own it holds no test).
#![allow(dead_code)]
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use taskc_compiler::plan::ScoreMode;
use taskc_runtime::grade::{
    grade, PredictionGrade, ScoredRun, TargetOracle, TaskFacts, TaskOracle,
};
use taskc_runtime::parsers::Outcome;
use taskc_runtime::predictions::Prediction;
use taskc_runtime::results::{RepoTests, RunFailure, RunResult, RESULT_SCHEMA};

use Outcome::{Failed, Passed};

/// A task with its oracle.
pub struct Fixture {
    pub facts: TaskFacts,
    pub oracle: TaskOracle,
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn task(
    id: &str,
    kind: &str,
    langs: &[&str],
    targets: &[(&str, &[&str], &[&str])],
    contexts: &[&str],
) -> Fixture {
    Fixture {
        facts: TaskFacts {
            id: id.into(),
            kind: kind.parse().unwrap(),
            languages: strings(langs),
            targets: targets.iter().map(|t| t.0.to_string()).collect(),
            contexts: strings(contexts),
        },
        oracle: TaskOracle {
            targets: targets
                .iter()
                .map(|(name, f2p, p2p)| {
                    (
                        name.to_string(),
                        TargetOracle {
                            f2p: strings(f2p),
                            p2p: strings(p2p),
                        },
                    )
                })
                .collect(),
        },
    }
}

/// Three tasks in the spirit of the examples.
pub fn tasks() -> Vec<Fixture> {
    vec![
        task(
            "cookie-split",
            "bugfix",
            &["python"],
            &[
                (
                    "proxy",
                    &[
                        "tests/test_cookies.py::test_split_large",
                        "tests/test_cookies.py::test_join",
                    ],
                    &["tests/test_cookies.py::test_parse"],
                ),
                (
                    "gateway",
                    &["tests/test_refresh.py::test_refresh_large"],
                    &["tests/test_presets.py::test_default"],
                ),
            ],
            &["docs"],
        ),
        task(
            "sdk-retry",
            "feature",
            &["python", "javascript", "go"],
            &[
                (
                    "sdk-py",
                    &["tests/test_retry.py::test_backoff"],
                    &["tests/test_client.py::test_get"],
                ),
                (
                    "sdk-js",
                    &["test/retry.test.js::retries with backoff"],
                    &["test/client.test.js::get"],
                ),
                ("sdk-go", &["retry::TestBackoff"], &["client::TestGet"]),
            ],
            &[],
        ),
        task(
            "config-merge",
            "bugfix",
            &["python"],
            &[
                (
                    "lib",
                    &["tests/test_merge.py::test_deep_merge"],
                    &["tests/test_merge.py::test_shallow"],
                ),
                ("app", &["tests/test_config.py::test_env_override"], &[]),
            ],
            &[],
        ),
    ]
}

/// How one target behaves in a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Behaviour {
    /// Every F2P and P2P test passes.
    AllPass,
    /// F2P fail, P2P pass (the base behaviour).
    Base,
    /// F2P pass, the first P2P test fails.
    P2pBroken,
    /// F2P pass except the last one, which is not reported at all.
    F2pMissing,
}

fn tests_for(o: &TargetOracle, b: Behaviour) -> BTreeMap<String, Outcome> {
    let mut m = BTreeMap::new();
    for (i, t) in o.f2p.iter().enumerate() {
        match b {
            Behaviour::AllPass | Behaviour::P2pBroken => m.insert(t.clone(), Passed),
            Behaviour::Base => m.insert(t.clone(), Failed),
            Behaviour::F2pMissing if i + 1 == o.f2p.len() => None,
            Behaviour::F2pMissing => m.insert(t.clone(), Passed),
        };
    }
    for (i, t) in o.p2p.iter().enumerate() {
        let out = if b == Behaviour::P2pBroken && i == 0 {
            Failed
        } else {
            Passed
        };
        m.insert(t.clone(), out);
    }
    // Tests outside the oracle are ignored by grading.
    m.insert("tests/test_unrelated.py::test_other".into(), Failed);
    m
}

/// A prediction of `model` editing `edited` (with a tiny diff each).
pub fn prediction(task: &str, model: &str, edited: &[&str]) -> Prediction {
    Prediction {
        task: task.into(),
        model: model.into(),
        patches: edited
            .iter()
            .map(|r| {
                (
                    r.to_string(),
                    format!("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-{model}\n+{r}\n"),
                )
            })
            .collect(),
    }
}

/// Grade `pred` of `fx` in `mode`, the targets behaving as `behave` (missing → `Base`);
/// `failure` makes the run testing that target fail that way.
pub fn graded(
    fx: &Fixture,
    pred: &Prediction,
    mode: ScoreMode,
    behave: &[(&str, Behaviour)],
    failure: Option<(&str, RunFailure)>,
) -> PredictionGrade {
    let how = |t: &str| {
        behave
            .iter()
            .find(|(n, _)| *n == t)
            .map_or(Behaviour::Base, |(_, b)| *b)
    };
    let result = |run: &str, under: &[String]| {
        let why = failure
            .as_ref()
            .filter(|(t, _)| under.iter().any(|u| u == t))
            .map(|(_, w)| w.clone());
        RunResult {
            schema: RESULT_SCHEMA.into(),
            run: pred.result_key(run),
            backend: "local".into(),
            repos: if why.is_some() {
                BTreeMap::new()
            } else {
                under
                    .iter()
                    .map(|t| {
                        (
                            t.clone(),
                            RepoTests {
                                tests: tests_for(&fx.oracle.targets[t], how(t)),
                                exit_code: Some(1),
                                test_ms: 10,
                                duplicates: vec![],
                                canaries: None,
                                ..RepoTests::default()
                            },
                        )
                    })
                    .collect()
            },
            failure: why,
            wall_ms: 100,
            logs: BTreeMap::new(),
            executed: None,
        }
    };
    let runs: Vec<ScoredRun> = match mode {
        ScoreMode::Joint => {
            let run = format!("run-joint-{}", fx.facts.id);
            vec![ScoredRun {
                result: Some(result(&run, &fx.facts.targets)),
                run,
                under_test: fx.facts.targets.clone(),
            }]
        }
        ScoreMode::Independent => fx
            .facts
            .targets
            .iter()
            .map(|t| {
                let run = format!("run-ind-{}-{t}", fx.facts.id);
                let under = vec![t.clone()];
                ScoredRun {
                    result: Some(result(&run, &under)),
                    run,
                    under_test: under,
                }
            })
            .collect(),
    };
    grade(&fx.facts, &fx.oracle, pred, mode, &runs)
}

/// The graded predictions every report test uses: `gold` and `empty` on every task (joint),
/// and `agent` in both modes with a patch that does not apply, an infrastructure error, a
/// partial fix, a scope miss, a P2P
/// regression and a missing test.
pub fn all_grades() -> Vec<PredictionGrade> {
    use Behaviour::*;
    use ScoreMode::*;
    let ts = tasks();
    let (cookie, sdk, config) = (&ts[0], &ts[1], &ts[2]);
    let mut out = Vec::new();
    for fx in &ts {
        let targets: Vec<&str> = fx.facts.targets.iter().map(String::as_str).collect();
        let all: Vec<(&str, Behaviour)> = targets.iter().map(|t| (*t, AllPass)).collect();
        out.push(graded(
            fx,
            &prediction(&fx.facts.id, "gold", &targets),
            Joint,
            &all,
            None,
        ));
        out.push(graded(
            fx,
            &prediction(&fx.facts.id, "gold", &targets),
            Independent,
            &all,
            None,
        ));
        out.push(graded(
            fx,
            &prediction(&fx.facts.id, "empty", &[]),
            Joint,
            &[],
            None,
        ));
    }
    // agent, joint.
    out.push(graded(
        cookie,
        &prediction("cookie-split", "agent", &["proxy", "gateway", "docs"]),
        Joint,
        &[("proxy", AllPass), ("gateway", AllPass)],
        Some((
            "gateway",
            RunFailure::PatchDoesNotApply {
                repo: "gateway".into(),
                detail: "the prediction's patch for `gateway` does not apply".into(),
            },
        )),
    ));
    out.push(graded(
        sdk,
        &prediction("sdk-retry", "agent", &["sdk-py", "sdk-js", "sdk-go"]),
        Joint,
        &[("sdk-py", AllPass), ("sdk-js", AllPass), ("sdk-go", Base)],
        None,
    ));
    out.push(graded(
        config,
        &prediction("config-merge", "agent", &["lib"]),
        Joint,
        &[("lib", AllPass), ("app", Base)],
        Some((
            "app",
            RunFailure::error("the Docker engine stopped answering"),
        )),
    ));
    // agent, independent: cookie-split solved (recovered from a failed joint run),
    // sdk-retry with a missing F2P test in sdk-go, config-merge with a P2P regression.
    out.push(graded(
        cookie,
        &prediction("cookie-split", "agent", &["proxy", "gateway"]),
        Independent,
        &[("proxy", AllPass), ("gateway", AllPass)],
        None,
    ));
    out.push(graded(
        sdk,
        &prediction("sdk-retry", "agent", &["sdk-py", "sdk-js", "sdk-go"]),
        Independent,
        &[
            ("sdk-py", AllPass),
            ("sdk-js", AllPass),
            ("sdk-go", F2pMissing),
        ],
        None,
    ));
    out.push(graded(
        config,
        &prediction("config-merge", "agent", &["lib", "app"]),
        Independent,
        &[("lib", P2pBroken), ("app", AllPass)],
        None,
    ));
    out
}
