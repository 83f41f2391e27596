//! End to end (real `taskc` binary, local backend, the host's python3/pytest and go): a
//! generated producer/consumer joint task (`scripts/gen_targeted_task.py --awkward`) whose
//! F2P tests have awkward ids — pytest parametrised ids with spaces, brackets, quotes,
//! backslashes, tabs, newlines and unicode; Go subtests with spaces, a `#01` duplicate and
//! regexp metacharacters — verifies sound, targeted and `--full` alike, with exactly the
//! F2P ids the generator wrote; every narrowed run reports only tests of its target's
//! oracle selection, and targeted cells decide the proper subsets. A TAP runner taskc
//! cannot narrow is narrowed by the spec's `select "… {ids} …"` template (test names with
//! spaces, quotes, brackets and shell bait such as `$(echo injected)` reach it as one
//! argument each), and without a template runs its proper subsets in full, with a note.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The generator's arguments for two repositories of 30 tests, 14 of them F2P, with
/// awkward ids.
const AWKWARD: &[&str] = &[
    "--repos",
    "2",
    "--tests",
    "30",
    "--f2p",
    "14",
    "--cost-ms",
    "0",
    "--awkward",
];

/// The joint task `scripts/gen_targeted_task.py` writes with `args` (and `--lang lang`)
/// under `dir`: its folder.
fn generate(dir: &Path, lang: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(format!("task-{lang}"));
    let st = Command::new("python3")
        .arg(common::root().join("scripts/gen_targeted_task.py"))
        .arg(&out)
        .args(args)
        .args(["--lang", lang])
        .status()
        .expect("python3 runs the generator");
    assert!(st.success());
    out
}

fn taskc(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the taskc binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `taskc verify --format json` with its own cache: the JSON object it prints.
fn verify(task: &Path, cache: &Path, extra: &[&str]) -> Value {
    let cache = cache.to_string_lossy().into_owned();
    let mut args = vec![
        "verify",
        "targeted-gen.task",
        "--backend",
        "local",
        "--no-lock",
        "--format",
        "json",
        "--cache",
        &cache,
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = taskc(task, &args);
    assert_eq!(code, 0, "verify {extra:?}: {out}\n{err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// The generated task's F2P ids (`f2p.json`) and its default and `--full` verifications
/// (each with its own cache under `dir`): both sound, both with exactly those F2P ids, and
/// the same oracles.
fn verified_both_ways(dir: &Path, task: &Path) -> (Value, Value, Value) {
    let f2p: Value =
        serde_json::from_str(&std::fs::read_to_string(task.join("f2p.json")).expect("f2p"))
            .expect("json");
    let targeted = verify(task, &dir.join("cache-t"), &[]);
    let full = verify(task, &dir.join("cache-f"), &["--full"]);
    for v in [&targeted, &full] {
        assert_eq!(v["sound"], Value::Bool(true), "{v}");
        for r in ["r0", "r1"] {
            assert_eq!(
                strings(&v["verification"]["oracles"][r]["f2p"]),
                strings(&f2p[r]),
                "{r}: {v}"
            );
        }
    }
    assert_eq!(
        targeted["verification"]["oracles"],
        full["verification"]["oracles"]
    );
    (f2p, targeted, full)
}

/// `min_exact`: how many narrowed runs must report exactly their target's F2P tests.
fn check(lang: &str, extra: &[&str], min_exact: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let args: Vec<&str> = AWKWARD.iter().chain(extra).copied().collect();
    let task = generate(dir.path(), lang, &args);
    let (f2p, targeted, _) = verified_both_ways(dir.path(), &task);
    // r1's proper subset with r0 at gold is decided by a narrowed run; the one with r1 at
    // gold is already failed by r0's base run, so r1's cell there is not run.
    let cells_of = |kind: &str| {
        targeted["verification"]["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .flat_map(|r| r["cells"].as_object().into_iter().flat_map(|c| c.values()))
            .filter(|c| c["basis"]["kind"] == kind)
            .count()
    };
    assert!(cells_of("narrowed") >= 1, "{targeted}");
    assert!(cells_of("not-run") >= 1, "{targeted}");
    // The narrowed runs (results under ids that are not in the plan) report only F2P tests.
    let (code, plan, err) = taskc(&task, &["plan", "targeted-gen.task"]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&plan).expect("plan json");
    let v = &plan["verify"];
    let planned: BTreeSet<String> = v["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(
            v["targeted"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| &t["run"]),
        )
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect();
    assert!(!planned.is_empty(), "{plan}");
    let (mut narrowed, mut exact) = (0, 0);
    for e in std::fs::read_dir(dir.path().join("cache-t/results/local")).expect("results") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("result");
        let r: Value = serde_json::from_str(&text).expect("result json");
        if planned.contains(r["run"].as_str().expect("run id")) {
            continue;
        }
        narrowed += 1;
        for (repo, tests) in r["repos"].as_object().expect("repos") {
            let ids: BTreeSet<String> = tests["tests"]
                .as_object()
                .expect("tests")
                .keys()
                .cloned()
                .collect();
            assert!(!ids.is_empty(), "{text}");
            let allowed = strings(&f2p[repo]);
            assert!(
                ids.is_subset(&allowed),
                "{repo}: {ids:?} not in {allowed:?}"
            );
            // Runs that do not stop early (the `uses` checks; every template run) report
            // every selected test, each exactly as named.
            exact += usize::from(ids == allowed);
        }
    }
    // Under a template the `uses` checks may run in full: a missing test there is no
    // evidence, so a narrowed `uses` check is risked only on slack, which the proper
    // subset's narrowed cell has the first claim on (never more runs than `--full`).
    let min_narrowed = if extra.contains(&"--template") { 1 } else { 2 };
    assert!(narrowed >= min_narrowed, "{narrowed} narrowed runs");
    assert!(
        exact >= min_exact.min(narrowed),
        "{exact} of {narrowed} narrowed runs reported their whole selection"
    );
}

#[test]
fn pytest_parametrised_ids_verify_targeted_like_full() {
    check("python", &[], 2);
}

#[test]
fn go_subtests_verify_targeted_like_full() {
    check("go", &[], 2);
}

#[test]
fn a_select_template_narrows_a_tap_runner_with_awkward_names() {
    // Every template run reports its whole selection (none stops early).
    check("tap", &["--template"], usize::MAX);
}

#[test]
fn without_a_template_the_proper_subsets_run_in_full_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let task = generate(dir.path(), "tap", AWKWARD);
    let cache = dir.path().join("cache").to_string_lossy().into_owned();
    let (code, out, err) = taskc(
        &task,
        &[
            "verify",
            "targeted-gen.task",
            "--backend",
            "local",
            "--no-lock",
            "--color",
            "never",
            "--cache",
            &cache,
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("note: `r1`'s proper subsets ran its full suite: a TAP producer has no common way to select tests; a `select \"… {ids} …\"` template in its test block would narrow it"),
        "{out}"
    );
    assert!(
        !out.contains("a proper subset ran only the target's F2P tests"),
        "no cell is narrowed:\n{out}"
    );
}

/// Issue 22: F2P ids that exist only with gold (a parametrize list, a Go table of subtests
/// the consumer's gold patch extends; `gen_targeted_task.py --gold-params`, the pypa
/// shape). The narrowed run of the consumer's proper subset does not collect them: not
/// passing, recorded in the truth table, no full re-run — and default verify executes no
/// more runs than `--full`, with the same oracle and verdict.
fn gold_only_ids(lang: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = generate(
        dir.path(),
        lang,
        &[
            "--repos",
            "2",
            "--tests",
            "12",
            "--f2p",
            "5",
            "--cost-ms",
            "0",
            "--gold-params",
        ],
    );
    let (f2p, targeted, full) = verified_both_ways(dir.path(), &out);
    assert_eq!(
        targeted["verification"]["problems"],
        full["verification"]["problems"]
    );
    let runs = |v: &Value| v["runs"]["executed"].as_u64().expect("runs.executed");
    assert!(
        runs(&targeted) <= runs(&full),
        "default executed {} runs, --full {}",
        runs(&targeted),
        runs(&full)
    );
    // Base and gold of both targets (4), r1 with only r0 at gold (narrowed, decided by the
    // two ids it does not collect), r0's two `uses` checks; r1 with only r1 at gold is
    // already failed by r0's base run.
    assert_eq!(runs(&targeted), 7, "{targeted}");
    let row = targeted["verification"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["gold"] == serde_json::json!(["r0"]))
        .expect("the row with only r0 at gold")
        .clone();
    let cell = &row["cells"]["r1"];
    assert_eq!(cell["basis"]["kind"], "narrowed", "{row}");
    assert_eq!(cell["pass"], Value::Bool(false), "{row}");
    let gold_only: BTreeSet<String> = strings(&f2p["r1"])
        .into_iter()
        .filter(|id| id.contains("gold_param") || id.contains("GoldParam"))
        .collect();
    assert_eq!(gold_only.len(), 2, "{f2p}");
    assert_eq!(strings(&cell["basis"]["not_collected"]), gold_only, "{row}");
}

#[test]
fn pytest_ids_only_gold_has_are_not_collected_without_an_extra_run() {
    gold_only_ids("python");
}

#[test]
fn go_subtests_only_gold_has_are_not_collected_without_an_extra_run() {
    gold_only_ids("go");
}
