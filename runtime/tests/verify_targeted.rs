//! Soundness does not move: targeted verification (proper subsets narrowed to F2P tests,
//! phases 1–3) gives the same verdict, problems and oracle as full verification, on
//! generated tasks whose test outcomes are arbitrary functions of the gold patches their
//! closure holds — including tasks where a proper subset passes, where only a P2P test
//! tells configurations apart, and where F2P tests are missing at base.
//!
//! The runs are simulated (a test's outcome is a table over its closure's gold subsets), but
//! the narrowing is real: the simulator honours exactly the selection and fail-fast the
//! compiler's `narrow_run` put in the run, and the phases are the runtime's own functions.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../compiler/tests/plan_support/mod.rs"]
mod plan_support;

use std::collections::BTreeMap;

use proptest::prelude::*;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::{Task, VerifyStrategy};
use taskc_compiler::plan::{Run, SelectHow, VerifyPlan};
use taskc_runtime::parsers::Outcome;
use taskc_runtime::results::{RepoTests, RunResult, RESULT_SCHEMA};
use taskc_runtime::verify::{evaluate, evaluate_targeted, phases, truth, Basis, Verification};

/// One generated test: its outcome for each subset (bitmask over the target's closure, in
/// closure order) of gold patches; `None` = not reported.
#[derive(Debug, Clone)]
struct TestModel {
    outcomes: Vec<Option<Outcome>>,
}

#[derive(Debug, Clone)]
struct Model {
    uses: Vec<Vec<usize>>,
    /// Per target: its tests (ids `tests/test_x.py::t<i>[param]`).
    tests: Vec<Vec<TestModel>>,
}

fn closure(uses: &[Vec<usize>], r: usize) -> Vec<usize> {
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![r];
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(uses[n].iter().copied());
        }
    }
    seen.into_iter().collect()
}

fn outcome() -> impl Strategy<Value = Option<Outcome>> {
    prop_oneof![
        6 => Just(Some(Outcome::Passed)),
        3 => Just(Some(Outcome::Failed)),
        1 => Just(Some(Outcome::Error)),
        1 => Just(Some(Outcome::Skipped)),
        1 => Just(None),
    ]
}

/// A test that fails (or is missing) until the whole closure has gold, then passes: the
/// shape of a sound task's F2P test.
fn f2p_like(size: usize) -> impl Strategy<Value = TestModel> {
    let n = 1usize << size;
    proptest::collection::vec(prop_oneof![Just(Some(Outcome::Failed)), Just(None)], n).prop_map(
        move |mut v| {
            v[n - 1] = Some(Outcome::Passed);
            TestModel { outcomes: v }
        },
    )
}

fn any_test(size: usize) -> impl Strategy<Value = TestModel> {
    proptest::collection::vec(outcome(), 1usize << size).prop_map(|outcomes| TestModel { outcomes })
}

fn model() -> impl Strategy<Value = Model> {
    (1usize..=3)
        .prop_flat_map(|n| {
            (0..n)
                .map(|i| proptest::collection::btree_set(0..i.max(1), 0..=i))
                .collect::<Vec<_>>()
                .prop_map(move |sets| {
                    sets.into_iter()
                        .enumerate()
                        .map(|(i, s)| s.into_iter().filter(|&j| j < i).collect::<Vec<_>>())
                        .collect::<Vec<_>>()
                })
        })
        .prop_flat_map(|uses| {
            let per_target: Vec<_> = (0..uses.len())
                .map(|r| {
                    let size = closure(&uses, r).len();
                    (
                        proptest::collection::vec(f2p_like(size), 0..3),
                        proptest::collection::vec(any_test(size), 0..5),
                    )
                        .prop_map(|(mut a, b)| {
                            a.extend(b);
                            a
                        })
                })
                .collect();
            (Just(uses), per_target).prop_map(|(uses, tests)| Model { uses, tests })
        })
}

fn test_id(i: usize) -> String {
    // Parametrised ids with spaces, brackets and quotes: the selection must keep them exact.
    format!("tests/test_x.py::t{i}[a b-\"q\"-[1]]")
}

/// Run `run` against the model, honouring its selection and fail-fast as a runner would.
fn simulate(m: &Model, run: &Run) -> RunResult {
    let target = &run.under_test;
    let r: usize = target[1..].parse().unwrap();
    let cl = closure(&m.uses, r);
    let mask = cl
        .iter()
        .enumerate()
        .filter(|(_, c)| run.gold_applied.contains(&format!("r{c}")))
        .fold(0usize, |acc, (bit, _)| acc | 1 << bit);
    let select = run.test.select.as_ref();
    // A Go `-run` selection may run more than it names (a selected subtest's parent,
    // same-named tests of other packages), and `-failfast` stops at any failure: the
    // simulated go runner runs every test and stops at the first failure of any.
    let superset = select.is_some_and(|s| matches!(s.how, SelectHow::GoRun { .. }));
    // A `select` template taskc cannot vouch for: the simulated one drops every other test
    // it is given (odd indices), as a sloppy template would.
    let sloppy = select.is_some_and(|s| matches!(s.how, SelectHow::Command { .. }));
    let mut tests = BTreeMap::new();
    let mut stopped = false;
    for (i, t) in m.tests[r].iter().enumerate() {
        let id = test_id(i);
        if (select.is_some_and(|s| !s.ids.contains(&id)) && !superset)
            || stopped
            || (sloppy && i % 2 == 1)
        {
            continue;
        }
        if let Some(o) = t.outcomes[mask] {
            tests.insert(id, o);
            if !o.is_pass() && select.is_some_and(|s| s.fail_fast) {
                stopped = true;
            }
        }
    }
    // taskc's pytest plugin says which selected ids the configuration does not collect.
    let not_collected = select
        .filter(|s| s.how == SelectHow::PytestPlugin)
        .map(|s| {
            (0..m.tests[r].len())
                .filter(|i| m.tests[r][*i].outcomes[mask].is_none())
                .map(test_id)
                .filter(|id| s.ids.contains(id))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut not_collected = not_collected;
    // taskc's reading of a Go `-run` run: selected tests nothing can have stopped.
    if let Some(s) = select.filter(|s| matches!(s.how, SelectHow::GoRun { .. })) {
        not_collected = phases::go_not_collected(&s.ids, &tests);
    }
    not_collected.sort();
    let mut repos = BTreeMap::new();
    repos.insert(
        target.clone(),
        RepoTests {
            tests,
            exit_code: Some(0),
            not_collected,
            ..RepoTests::default()
        },
    );
    RunResult {
        schema: RESULT_SCHEMA.into(),
        run: run.id.clone(),
        backend: "simulated".into(),
        failure: None,
        repos,
        wall_ms: 0,
        logs: BTreeMap::new(),
        executed: None,
    }
}

fn execute<'a>(
    m: &Model,
    runs: impl IntoIterator<Item = &'a Run>,
) -> BTreeMap<String, Vec<RunResult>> {
    runs.into_iter()
        .map(|r| (r.id.clone(), vec![simulate(m, r)]))
        .collect()
}

fn targeted(m: &Model, plan: &VerifyPlan) -> (Verification, usize) {
    let first = execute(m, &plan.runs);
    let mut rounds = phases::Targeting::new(plan, &first);
    let mut executed = first.len();
    loop {
        let steps = rounds.next();
        if steps.is_empty() {
            break;
        }
        let results = execute(m, steps.iter().map(|s| s.run()));
        executed += results.len();
        rounds.record(&steps, &results);
    }
    let (results, decisions) = rounds.assemble();
    (
        evaluate_targeted(plan, &results, &BTreeMap::new(), &decisions),
        executed,
    )
}

fn task_of(m: &Model) -> Task {
    plan_support::dag_task(&m.uses, VerifyStrategy::Joint)
}

/// The task with every target's tests on the `go-test-json` parser (narrowed by `-run`).
fn go_task_of(m: &Model) -> Task {
    let mut task = task_of(m);
    for r in &mut task.repos {
        if let Some(t) = r.test.as_mut() {
            t.parser = taskc_compiler::parser::LogParser::GoTestJson;
        }
    }
    task
}

/// The task with every target on a parser taskc cannot narrow, with a `select` template.
fn template_task_of(m: &Model) -> Task {
    let mut task = task_of(m);
    for r in &mut task.repos {
        if let Some(t) = r.test.as_mut() {
            t.parser = taskc_compiler::parser::LogParser::JestJson;
            t.select = Some("node only.js {ids}".to_string());
        }
    }
    task
}

/// Targeted and full verification of `task` under the model agree: oracle, verdict,
/// problems and every row's verdict (only the counts of narrowed cells differ).
fn agree(m: &Model, task: &Task) -> Result<(), TestCaseError> {
    let (t, full) = both_of(m, task);
    prop_assert_eq!(&t.oracles, &full.oracles);
    prop_assert_eq!(
        t.is_sound(),
        full.is_sound(),
        "targeted {:?}\nfull {:?}",
        t.problems,
        full.problems
    );
    prop_assert_eq!(&t.problems, &full.problems);
    let verdicts = |v: &Verification| {
        v.rows
            .iter()
            .map(|r| (r.gold.clone(), r.pass, r.ok))
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(verdicts(&t), verdicts(&full));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn targeted_and_full_verification_agree(m in model()) {
        agree(&m, &task_of(&m))?;
    }

    /// With a runner that runs more than it is asked and stops at any failure (Go's `-run`
    /// with `-failfast`), a selected test missing after a stop is no evidence: the verdict
    /// still moves not at all.
    #[test]
    fn targeted_and_full_agree_with_a_superset_fail_fast_runner(m in model()) {
        agree(&m, &go_task_of(&m))?;
    }

    /// Under a `select` template that does not run every test it names, a missing test is
    /// no evidence either (`uses` checks included).
    #[test]
    fn targeted_and_full_agree_with_a_sloppy_template(m in model()) {
        agree(&m, &template_task_of(&m))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Default verification never executes more runs than `--full` (issue 22): a narrowed
    /// run that may not decide is risked only while the configurations already decided pay
    /// for its full re-run — with taskc's pytest plugin, a fail-fast superset runner (Go)
    /// and a sloppy `select` template alike.
    #[test]
    fn targeted_never_runs_more_than_full(m in model()) {
        for (runner, task) in [("pytest", task_of(&m)), ("go", go_task_of(&m)), ("template", template_task_of(&m))] {
            let (t, f) = run_counts_of(&m, &task);
            prop_assert!(t <= f, "{runner}: targeted executed {t} runs, --full {f}");
        }
    }
}

#[test]
fn a_stop_caused_by_an_unselected_failure_is_no_evidence() {
    // r1's F2P test (test 1) passes with only r0 at gold, so that subset passes: the task
    // is unsound. Test 0 fails everywhere (so it is in no oracle) and runs first: a
    // fail-fast runner that also runs it stops before test 1 is reported.
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![vec![t(&[F, P])], vec![t(&[F, F, F, F]), t(&[F, P, F, P])]],
    };
    agree(&m, &go_task_of(&m)).unwrap();
    let (t, full) = both_of(&m, &go_task_of(&m));
    assert!(!full.is_sound());
    assert!(!t.is_sound(), "{:?}", t.rows);
}

/// `task` verified targeted and in full under the model.
fn both_of(m: &Model, task: &Task) -> (Verification, Verification) {
    let lower = |full| {
        lower_verify(
            task,
            &LowerOptions {
                full,
                ..LowerOptions::default()
            },
        )
        .unwrap()
        .verify()
        .cloned()
        .unwrap()
    };
    let (plan, full_plan) = (lower(false), lower(true));
    let full = evaluate(&full_plan, &execute(m, &full_plan.runs), &BTreeMap::new());
    (targeted(m, &plan).0, full)
}

/// Runs executed targeted and by `--full` on the pytest task of `m`.
fn run_counts(m: &Model) -> (usize, usize) {
    run_counts_of(m, &task_of(m))
}

/// Runs executed targeted and by `--full` on `task` under the model.
fn run_counts_of(m: &Model, task: &Task) -> (usize, usize) {
    let lower = |full| {
        lower_verify(
            task,
            &LowerOptions {
                full,
                ..LowerOptions::default()
            },
        )
        .unwrap()
        .verify()
        .cloned()
        .unwrap()
    };
    let full_plan = lower(true);
    (targeted(m, &lower(false)).1, full_plan.runs.len())
}

/// The named shapes, each checked in both modes.
fn both(m: &Model) -> (Verification, Verification) {
    both_of(m, &task_of(m))
}

fn t(outcomes: &[Option<Outcome>]) -> TestModel {
    TestModel {
        outcomes: outcomes.to_vec(),
    }
}

const P: Option<Outcome> = Some(Outcome::Passed);
const F: Option<Outcome> = Some(Outcome::Failed);
const M: Option<Outcome> = None;

#[test]
fn a_passing_proper_subset_is_unsound_in_both_modes() {
    // r1 uses r0; r1's F2P test passes as soon as r0 has gold (like unsound-partial).
    // closure(r1) = [r0, r1]: bit 0 = r0, bit 1 = r1.
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![vec![t(&[F, P])], vec![t(&[F, P, F, P]), t(&[P, P, P, P])]],
    };
    let (t, full) = both(&m);
    assert!(!full.is_sound());
    assert_eq!(t.problems, full.problems);
    assert!(
        t.problems
            .iter()
            .any(|p| p.contains("with only `r0` at gold")),
        "{:?}",
        t.problems
    );
}

#[test]
fn only_a_p2p_test_distinguishes_a_configuration() {
    // With only r0 at gold, r1's F2P tests pass but a P2P test breaks: the subset still
    // fails, which only the full suite (phase 3) can show.
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![vec![t(&[F, P])], vec![t(&[F, P, F, P]), t(&[P, F, P, P])]],
    };
    let (t, full) = both(&m);
    assert!(full.is_sound(), "{:?}", full.problems);
    assert!(t.is_sound(), "{:?}", t.problems);
    assert_eq!(
        t.rows.iter().map(|r| r.ok).collect::<Vec<_>>(),
        full.rows.iter().map(|r| r.ok).collect::<Vec<_>>()
    );
}

#[test]
fn f2p_tests_missing_at_base_are_f2p_in_both_modes() {
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![vec![t(&[M, P])], vec![t(&[M, M, M, P]), t(&[P, P, P, P])]],
    };
    let (t, full) = both(&m);
    assert!(full.is_sound(), "{:?}", full.problems);
    assert_eq!(t.oracles, full.oracles);
    assert_eq!(t.oracles["r1"].f2p, vec![test_id(0)]);
    // The narrowed cells are marked.
    assert!(t
        .rows
        .iter()
        .flat_map(|r| r.cells.values())
        .any(|c| c.basis.is_narrowed()));
}

/// The real case of issue 22: gold adds parametrize values, so the consumer's F2P ids do not
/// exist without its own gold patch. The narrowed run of the proper subset does not collect
/// them: not passing, recorded, no full re-run; the other proper subset is already failed by
/// the producer's base run and runs nothing. Fewer runs than `--full`, the same verdict.
#[test]
fn f2p_ids_a_configuration_does_not_collect_are_not_passing() {
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![
            vec![t(&[F, P]), t(&[P, P])],
            vec![t(&[M, M, M, P]), t(&[M, M, M, P]), t(&[P, P, P, P])],
        ],
    };
    let (t, full) = both(&m);
    assert!(full.is_sound(), "{:?}", full.problems);
    assert_eq!(t.problems, full.problems);
    assert_eq!(t.oracles, full.oracles);
    let cell = |gold: &[&str], repo: &str| {
        t.rows
            .iter()
            .find(|r| r.gold == gold)
            .and_then(|r| r.cells.get(repo))
            .cloned()
            .unwrap()
    };
    assert_eq!(
        cell(&["r0"], "r1").basis,
        Basis::Narrowed {
            not_collected: vec![test_id(0), test_id(1)]
        }
    );
    assert!(!cell(&["r0"], "r1").pass);
    assert_eq!(cell(&["r1"], "r1").basis, Basis::NotRun);
    let rendered = truth::render(&t.rows, &t.targets);
    assert!(
        rendered.contains("fail 0/2 F2P (2 not collected)"),
        "{rendered}"
    );
    assert!(rendered.contains("not run"), "{rendered}");
    // Base and gold of both (4), the narrowed {r0} cell of r1, r0's two `uses` checks.
    assert_eq!(run_counts(&m), (7, 8));
}

/// The same shape on Go (`go test -run`): gold adds table values, so the consumer's F2P
/// subtests do not exist without its own gold patch. Nothing failed in the narrowed run, so
/// nothing can have stopped them: not collected, not passing, recorded; no full re-run.
#[test]
fn go_subtests_a_configuration_does_not_have_are_not_passing() {
    let m = Model {
        uses: vec![vec![], vec![0]],
        tests: vec![
            vec![t(&[F, P]), t(&[P, P])],
            vec![t(&[M, M, M, P]), t(&[M, M, M, P]), t(&[P, P, P, P])],
        ],
    };
    let task = go_task_of(&m);
    agree(&m, &task).unwrap();
    let (t, full) = both_of(&m, &task);
    assert!(full.is_sound(), "{:?}", full.problems);
    let cell = t
        .rows
        .iter()
        .find(|r| r.gold == ["r0"])
        .and_then(|r| r.cells.get("r1"))
        .cloned()
        .unwrap();
    assert_eq!(
        cell.basis,
        Basis::Narrowed {
            not_collected: vec![test_id(0), test_id(1)]
        }
    );
    assert!(!cell.pass);
    assert_eq!(run_counts_of(&m, &task), (7, 8));
}

/// A selected Go test missing after another test of its package failed may have been
/// stopped by `-failfast`: not counted as not collected. One whose package failed as a
/// whole (did not build) is, whatever else failed.
#[test]
fn go_not_collected_needs_nothing_that_could_stop_it() {
    let ids = vec![
        "ex.com/a/TestNew".to_string(),
        "ex.com/b/TestNew".to_string(),
    ];
    let mut tests = BTreeMap::new();
    assert_eq!(phases::go_not_collected(&ids, &tests), ids);
    tests.insert("ex.com/a/TestOld".to_string(), Outcome::Failed);
    assert!(phases::go_not_collected(&ids, &tests).is_empty());
    tests.insert("ex.com/b".to_string(), Outcome::Error);
    assert_eq!(
        phases::go_not_collected(&ids, &tests),
        vec!["ex.com/b/TestNew".to_string()]
    );
}
