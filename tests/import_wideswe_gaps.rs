//! `taskc import wideswe` on a checkout the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-gaps) holding the shapes whose test commands the importer could
//! not read before (issue 24, WideSWE cases 5, 18, 52, 61 and 62): a Python interpreter held in
//! a variable (`"$venv/bin/python" -m pytest`, `"${python_cmd[@]}" -m pytest` with every
//! assignment an interpreter), test arguments reaching `go test -json "$@"` of a one-line
//! `bash -c '…' -- "$@"` through two functions, a `docker run -w` folder below the
//! repository (also the profile's `workdir`: one `cd`), and a runner script written by a
//! heredoc that a compose service runs. Each became E1104 ("no test command … was found") or
//! ran at the wrong folder.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

const CASE: &str = "demo_gaps_4d5e6f7a8b9c";

struct Imported {
    _dir: tempfile::TempDir,
    spec: String,
    stderr: String,
}

fn import() -> Imported {
    let i = import_fixture("wideswe-gaps", &[]);
    // The plain-script case is refused, so the batch exits 1.
    assert_eq!(i.code, Some(1), "{}", i.stderr);
    Imported {
        spec: i.spec(CASE),
        stderr: i.stderr.clone(),
        _dir: i.dir,
    }
}

#[test]
fn the_test_commands_behind_variables_functions_and_workdirs_are_read() {
    let i = import();
    let runs: Vec<String> = ["lib", "api", "spec", "pkg", "ui", "gox"]
        .iter()
        .map(|r| format!("{r}: {}", run_of(&i.spec, r)))
        .collect();
    // Each resolution is a W1108 note naming what was resolved, never silent.
    let flat = i
        .stderr
        .replace(['│', '·'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        flat.matches("the importer resolved").count(),
        4,
        "{}",
        i.stderr
    );
    for what in [
        "`lib` the importer resolved `\"$venv/bin/python\"` (a virtual environment's Python) as `python`",
        "`api` the importer resolved `\"${python_cmd[@]}\"` (set to `python`, `uv run python`, `$venv/bin/python` in the script) as `python`",
        "`ui` the importer resolved the `docker run -w` folder",
        "`gox` the importer resolved the runner script `run-gox-test.sh`",
    ] {
        assert!(flat.contains(what), "no note `{what}` in\n{}", i.stderr);
    }
    insta::assert_snapshot!(runs.join("\n"));
}

#[test]
fn a_script_the_case_dockerfile_copies_into_the_image_is_read() {
    let i = import();
    let task = i
        ._dir
        .path()
        .join("out/demo_baked_6f7a8b9c0d1e/demo_baked_6f7a8b9c0d1e.task");
    let spec = std::fs::read_to_string(&task)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", task.display(), i.stderr));
    assert_eq!(
        run_of(&spec, "core"),
        r#"run "./vendor/bin/pest --colors=never tests/Feature/BakedTest.php --log-junit php://stdout""#
    );
    let flat = i
        .stderr
        .replace(['│', '·'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for what in [
        "test profile `core-hidden` runs `/opt/ecosync/run-demo-profile.sh`, which",
        "copies from `environment/run_demo_profile_inside.sh`",
    ] {
        assert!(flat.contains(what), "no `{what}` in\n{}", i.stderr);
    }
}

#[test]
fn a_plain_test_script_is_refused_by_name() {
    let i = import();
    let flat = i
        .stderr
        .replace(['│', '·'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("whose test of `core` is the plain Python script `core/tests/headers_contract.py`: its exit status is its only result, which the `exit-status` parser reads, but the script runs it with values built at run time"),
        "{}",
        i.stderr
    );
    assert!(
        !i._dir.path().join("out/demo_script_5e6f7a8b9c0d").exists(),
        "a refused case writes nothing"
    );
}
