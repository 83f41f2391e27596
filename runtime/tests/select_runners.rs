//! Narrowed runs select exactly the tests they name, with the real runners: the host's
//! pytest with taskc's plugin (as the run script activates it: `PYTEST_PLUGINS`,
//! `PYTHONPATH`, `TASKC_SELECT`) and the host's `go test` with the `-run` pattern the
//! compiler builds (in `GOFLAGS`, as the run script passes it). The fixture is the generated
//! task of `scripts/gen_targeted_task.py --awkward`: parametrised pytest ids with spaces,
//! brackets, quotes, backslashes, tabs, newlines and unicode; Go subtests with spaces
//! (rewritten to `_`, a duplicate `#01`) and regexp metacharacters. Each test selects a
//! subset and checks that the parsed log reports exactly that subset.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use taskc_compiler::lower::go_pattern;
use taskc_runtime::exec::script::{PYTEST_PLUGIN, PYTEST_PLUGIN_MARK, PYTEST_UNMATCHED_MARK};
use taskc_runtime::parsers::{self, LogParser, Outcome};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The generated one-repository task in `dir` (`lang`, 30 tests, 14 F2P, awkward ids), its
/// repository with the hidden tests (and, if `gold`, the gold patch) applied, and the F2P
/// ids the generator says the parser reports.
fn fixture(dir: &Path, lang: &str, gold: bool) -> (PathBuf, Vec<String>) {
    let out = dir.join("task");
    let st = Command::new("python3")
        .arg(root().join("scripts/gen_targeted_task.py"))
        .arg(&out)
        .args([
            "--repos",
            "1",
            "--tests",
            "30",
            "--f2p",
            "14",
            "--cost-ms",
            "0",
        ])
        .args(["--awkward", "--lang", lang])
        .status()
        .expect("python3 runs the generator");
    assert!(st.success(), "the generator failed");
    let repo = out.join("repos/r0");
    let mut patches = vec![out.join("tests/r0.patch")];
    if gold {
        patches.push(out.join("gold/r0.patch"));
    }
    for p in patches {
        let st = Command::new("git")
            .arg("apply")
            .arg(&p)
            .current_dir(&repo)
            .status()
            .expect("git runs");
        assert!(st.success(), "git apply {}", p.display());
    }
    let f2p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("f2p.json")).expect("f2p.json"))
            .expect("json");
    let ids = f2p["r0"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect();
    (repo, ids)
}

/// Runs pytest in `repo` with taskc's plugin selecting `ids`; the log and the parsed tests.
fn pytest(
    dir: &Path,
    repo: &Path,
    ids: &[String],
    fail_fast: bool,
) -> (String, std::collections::BTreeMap<String, Outcome>) {
    let harness = dir.join("harness");
    std::fs::create_dir_all(&harness).expect("mkdir");
    std::fs::write(harness.join("taskc_select.py"), PYTEST_PLUGIN).expect("plugin");
    let sel = harness.join("select.json");
    let json = serde_json::json!({"ids": ids, "fail_fast": fail_fast, "keep": []});
    std::fs::write(&sel, json.to_string()).expect("selection");
    let out = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "tests",
        ])
        .current_dir(repo)
        .env("PYTEST_PLUGINS", "taskc_select")
        .env("PYTHONPATH", &harness)
        .env("TASKC_SELECT", &sel)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 -m pytest runs");
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    let parsed = parsers::parse(LogParser::Pytest, log.as_bytes()).expect("the log parses");
    (log, parsed.tests)
}

fn every_other(ids: &[String]) -> Vec<String> {
    ids.iter().step_by(2).cloned().collect()
}

fn keys<V>(m: &std::collections::BTreeMap<String, V>) -> BTreeSet<String> {
    m.keys().cloned().collect()
}

#[test]
fn pytest_plugin_keeps_exactly_the_listed_parametrised_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (repo, f2p) = fixture(dir.path(), "python", true);
    assert!(f2p.iter().any(|i| i.contains("[a b]")) && f2p.iter().any(|i| i.contains(r"\n")));
    for chosen in [
        every_other(&f2p),
        f2p[1..].iter().step_by(2).cloned().collect(),
    ] {
        let (log, tests) = pytest(dir.path(), &repo, &chosen, false);
        let want: BTreeSet<String> = chosen.iter().cloned().collect();
        assert_eq!(keys(&tests), want, "{log}");
        assert!(tests.values().all(|o| o.is_pass()), "{log}");
        assert!(log.contains(PYTEST_PLUGIN_MARK), "{log}");
        assert!(!log.contains(PYTEST_UNMATCHED_MARK), "{log}");
    }
}

#[test]
fn pytest_plugin_stops_at_the_first_selected_failure() {
    let dir = tempfile::tempdir().expect("tempdir");
    // No gold: every F2P test fails.
    let (repo, f2p) = fixture(dir.path(), "python", false);
    let (log, tests) = pytest(dir.path(), &repo, &f2p, true);
    assert_eq!(tests.len(), 1, "{log}");
    assert!(tests.values().all(|o| !o.is_pass()), "{log}");
    assert!(f2p.contains(tests.keys().next().expect("one")), "{log}");
}

#[test]
fn pytest_plugin_says_when_an_id_matches_nothing_in_a_file_that_collected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (repo, f2p) = fixture(dir.path(), "python", true);
    std::fs::write(
        repo.join("tests/test_broken.py"),
        "import no_such_module_anywhere\n\n\ndef test_x():\n    pass\n",
    )
    .expect("write");
    // An id in a file that failed to collect is missing from the full suite too: no mark.
    let broken = vec![f2p[0].clone(), "tests/test_broken.py::test_x".to_string()];
    let (log, _) = pytest(dir.path(), &repo, &broken, false);
    assert!(!log.contains(PYTEST_UNMATCHED_MARK), "{log}");
    // A near miss of a real id (one space more) selects nothing and says so.
    let near = vec![f2p[0].clone(), f2p[0].replace('[', "[ ")];
    std::fs::remove_file(repo.join("tests/test_broken.py")).expect("rm");
    let (log, tests) = pytest(dir.path(), &repo, &near, false);
    assert_eq!(keys(&tests), BTreeSet::from([f2p[0].clone()]), "{log}");
    assert!(log.contains(PYTEST_UNMATCHED_MARK), "{log}");
    // The line lists every such id, as one JSON list after the count.
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix(PYTEST_UNMATCHED_MARK))
        .expect("the not-collected line");
    let (count, list) = line.split_once(' ').expect("count and list");
    let ids: Vec<String> = serde_json::from_str(list).expect("a JSON list");
    assert_eq!((count, ids), ("1", vec![near[1].clone()]), "{log}");
}

/// Issue 22: a selected test whose whole file the configuration does not have (a test
/// file only gold adds) and a parametrize value only gold adds are both listed as not
/// collected; the tests that exist run.
#[test]
fn pytest_plugin_lists_ids_of_a_file_and_a_value_the_configuration_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (repo, f2p) = fixture(dir.path(), "python", true);
    let gone = "tests/test_only_with_gold.py::test_x".to_string();
    let value = format!("{}[only with gold]", f2p[0].split('[').next().expect("id"));
    let (log, tests) = pytest(
        dir.path(),
        &repo,
        &[f2p[0].clone(), gone.clone(), value.clone()],
        false,
    );
    assert_eq!(keys(&tests), BTreeSet::from([f2p[0].clone()]), "{log}");
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix(PYTEST_UNMATCHED_MARK))
        .expect("the not-collected line");
    let (count, list) = line.split_once(' ').expect("count and list");
    let ids: BTreeSet<String> = serde_json::from_str(list).expect("a JSON list");
    assert_eq!((count, ids), ("2", BTreeSet::from([gone, value])), "{log}");
}

/// Runs `go test -json ./...` in `repo` with `-run=<go_pattern(ids)>` in GOFLAGS.
fn go_test(dir: &Path, repo: &Path, ids: &[String]) -> std::collections::BTreeMap<String, Outcome> {
    let flags = format!("-buildvcs=false -run={}", go_pattern(ids));
    let out = Command::new("go")
        .args(["test", "-json", "./..."])
        .current_dir(repo)
        .env("GOFLAGS", &flags)
        .env("GOPROXY", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOCACHE", dir.join("gocache"))
        .env("GOPATH", dir.join("gopath"))
        .output()
        .expect("go runs");
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    let parsed = parsers::parse(LogParser::GoTestJson, log.as_bytes()).expect("the log parses");
    assert!(parsed.complete, "{flags}\n{log}");
    parsed.tests
}

#[test]
fn go_run_patterns_select_exactly_the_named_subtests() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (repo, f2p) = fixture(dir.path(), "go", true);
    let parent = f2p
        .iter()
        .find(|i| i.ends_with("/TestOdd"))
        .expect("TestOdd")
        .clone();
    let subtests: Vec<String> = f2p
        .iter()
        .filter(|i| i.starts_with(&format!("{parent}/")))
        .cloned()
        .collect();
    assert!(subtests.iter().any(|i| i.ends_with("/a_b#01")));
    assert!(subtests.iter().any(|i| i.ends_with("/(a|b)*")));
    // Subtests without their parent: the parent runs (and is reported), no other subtest.
    for chosen in [
        every_other(&subtests),
        subtests[1..].iter().step_by(2).cloned().collect(),
    ] {
        let mut with_top = chosen.clone();
        with_top.push(
            f2p.iter()
                .find(|i| i.ends_with("/TestF2P1"))
                .expect("F2P1")
                .clone(),
        );
        let tests = go_test(dir.path(), &repo, &with_top);
        let mut want: BTreeSet<String> = with_top.iter().cloned().collect();
        want.insert(parent.clone());
        assert_eq!(keys(&tests), want, "pattern {}", go_pattern(&with_top));
        assert!(tests.values().all(|o| o.is_pass()));
    }
    // A selected parent runs all its subtests.
    let tests = go_test(dir.path(), &repo, std::slice::from_ref(&parent));
    let mut want: BTreeSet<String> = subtests.iter().cloned().collect();
    want.insert(parent);
    assert_eq!(keys(&tests), want);
}
