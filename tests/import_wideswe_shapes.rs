//! `taskc import wideswe` on a checkout the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-shapes), holding the shapes that WideSWE cases 4, 18, 20, 21, 43
//! 44 and 74 showed when read on 2026-12-07 (issue 24), each of which the importer got wrong:
//! a case Dockerfile `FROM ${ARG}` named by its default, installs whose output goes to a
//! log, an install of a linked sibling repository, `node scripts/jest.js` run twice in one
//! block, a test helper defined and called inside `bash -lc '…'`, rspec with WideSWE's
//! JUnit formatter on `RUBYLIB`, `go test -json … > report.json`, node-tap without
//! `--reporter=tap`, and a profile command holding a run-time placeholder.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

const CASE: &str = "demo_core_gem_7b8c9d0e1f2a";
const JWT: &str = "demo_jwt_8c9d0e1f2a3b";

struct Imported {
    _dir: tempfile::TempDir,
    spec: String,
    dockerfile: String,
    stderr: String,
    report: String,
}

fn import() -> Imported {
    let i = import_fixture("wideswe-shapes", &["--report", "report.md"]);
    // The placeholder case is refused, so the batch exits 1.
    assert_eq!(i.code, Some(1), "{}", i.stderr);
    Imported {
        spec: i.spec(CASE),
        dockerfile: i.read(&format!("out/{CASE}/environment/Dockerfile")),
        report: i.read("report.md"),
        stderr: i.stderr.clone(),
        _dir: i.dir,
    }
}

#[test]
fn the_shapes_of_cases_4_to_44_import_as_written() {
    let i = import();

    // Case 4: `FROM ${ECOSYNC_BASE_IMAGE}` is the `ARG`'s default, rebuilt from its recipe.
    assert!(
        !i.report.contains("${ECOSYNC_BASE_IMAGE}")
            && !i.dockerfile.contains("${ECOSYNC_BASE_IMAGE}"),
        "{}\n{}",
        i.report,
        i.dockerfile
    );
    assert!(
        i.dockerfile.contains("RUN python -m pip install uv"),
        "the recipe of ecosyncbench/base/python:3.12-uv is a stage:\n{}",
        i.dockerfile
    );
    // Case 4: a redirection is no install argument; `./plugin[extra]` is the linked sibling.
    assert!(
        !i.stderr.contains("the install argument `>"),
        "{}",
        i.stderr
    );
    assert!(
        !i.stderr.contains("which is no repository's folder"),
        "{}",
        i.stderr
    );
    assert!(
        i.spec.contains("uses plugin"),
        "core installs its sibling plugin:\n{}",
        i.spec
    );

    // Case 61: a log redirection ending a command of the list keeps the list's `;`.
    let plugin = run_of(&i.spec, "plugin");
    assert!(
        plugin.contains("; python -m pytest -rA -q tests/test_plugin.py"),
        "{plugin}"
    );

    // Cases 18, 21: `node scripts/jest.js` is jest; both groups of one block run (bug 13).
    let web = run_of(&i.spec, "web");
    assert_eq!(web.matches("node scripts/jest.js").count(), 2, "{web}");
    assert_eq!(web.matches("--json").count(), 2, "{web}");
    assert!(!web.contains(".ecosyncbench"), "{web}");

    // Cases 43, 44: the JUnit formatter's load path and options are WideSWE's own.
    assert_eq!(
        run_of(&i.spec, "gem"),
        r#"run "bundle exec rspec spec/count_spec.rb --format json""#
    );

    // Cases 20, 44: the helper's one call gives its test list; the report file redirection
    // is WideSWE's.
    let svc = run_of(&i.spec, "svc");
    assert!(
        svc.starts_with(r#"run "go test -json -count=1 ./count/... ./plugins"#)
            && !svc.contains('>'),
        "{svc}"
    );

    // Case 74: a test list forwarded through `bash -lc '…' bash "$@"` after a report option
    // built from a variable: every test file stays (before, the option took the first).
    assert_eq!(
        run_of(&i.spec, "board"),
        r#"run "./vendor/bin/pest --colors=never tests/Unit/CountTest.php tests/Feature/BoardTest.php --log-junit php://stdout""#
    );

    // Case 21: node-tap prints TAP when told to.
    let cli = run_of(&i.spec, "cli");
    assert!(
        cli.contains("tap test/count.test.js --reporter=tap"),
        "{cli}"
    );

    // Case 4: a run-time placeholder refuses the profile, naming it.
    assert!(
        i.stderr.contains("E1104") && i.stderr.contains("placeholder `<generated>`"),
        "{}",
        i.stderr
    );
    let runs: Vec<&str> = i
        .spec
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("run ") || l.starts_with("uses ") || l.starts_with("setup "))
        .collect();
    let table: Vec<&str> = i
        .report
        .lines()
        .filter(|l| l.starts_with(&format!("| {CASE}")) || l.starts_with(&format!("| {JWT}")))
        .collect();
    insta::assert_snapshot!(format!("{}\n\n{}", runs.join("\n"), table.join("\n")));
}
