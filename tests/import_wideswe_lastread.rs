//! `taskc import wideswe` on a checkout the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-lastread), holding the shapes WideSWE cases 87 and 112 showed when
//! the last cases were read on 2026-12-07 (issue 24), each of which the importer got wrong:
//! a helper function defined inside a `bash -lc '…'` script made the test line after it
//! belong to every repository (case 87's cdav-library took the server's phpunit run); a test
//! line reached through two functions was likewise everyone's; a vitest filter ending in `$`
//! was dropped as a report option; a `cd` before two playwright runs was repeated before the
//! second; a run list of two runners kept one parser without a note; and a one-line
//! `bash -c '…'` script that records the run's exit status for its own checks (case 32)
//! was refused as built from shell variables; and a case whose `run_profile.sh` builds a
//! test image per runtime from its Dockerfiles (cases 24–27, 32, 33) got one environment,
//! built from one of them, without a word; and (second round) a relative `cd` after an
//! absolute `cd` into another repository (cases 87, 88) was taken relative to the
//! repository's own checkout, and a test image built from one of WideSWE's own recipes
//! (`benchmark/images/…`, cases 32, 33) got no note, and a quoted jest filter with spaces
//! was taken for prose (case 25).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::wideswe::{import_fixture, run_of};

const CASE: &str = "demo_lib_srv_web_5e6f7a8b9c0d";

#[test]
fn the_shapes_of_cases_32_87_and_112_import_as_written() {
    let i = import_fixture("wideswe-lastread", &["--report", "report.md"]);
    let stderr = i.stderr.clone();
    assert_eq!(i.code, Some(0), "{stderr}");
    let spec = i.spec(CASE);
    let report = i.read("report.md");

    // Case 87: `lib`'s run is its own vitest line (reached through `run_lib_js` →
    // `run_node_vitest`), not `srv`'s phpunit line after the helper `install_srv() { … }`.
    let lib = run_of(&spec, "lib");
    assert!(
        lib.contains("npx vitest run test/lib.test.js") && !lib.contains("phpunit"),
        "{lib}\n{spec}"
    );
    let srv = run_of(&spec, "srv");
    assert!(
        srv.contains("vendor/bin/phpunit") && srv.contains("tests/SrvTest.php"),
        "{srv}"
    );

    // Case 112: the filter's `$` ends a regular expression, not a report path: kept.
    let web = run_of(&spec, "web");
    assert!(
        web.contains(r#"--testNamePattern="^(?!skipped-case$).*""#),
        "the vitest filter was dropped: {web}"
    );
    // The two playwright runs start in `e2e` after one `cd`, not a second one inside it.
    assert_eq!(web.matches("cd e2e").count(), 1, "{web}");
    // The list runs vitest and playwright; the spec's vitest parser reads vitest's report
    // only, which the report says.
    assert!(
        report.contains("runs vitest and also playwright"),
        "no note for the playwright runs:\n{report}"
    );

    // Case 32: `set +e; go test -json ./x > r.json; status=$?; test -s r.json; exit
    // "$status"` runs go test; the rest only checks the run.
    let pkg = run_of(&spec, "pkg");
    assert!(
        pkg.contains("go test -json ./pkg/x") && !pkg.contains("status"),
        "{pkg}"
    );

    // Cases 24–27, 32, 33: es's gradle tests run in WideSWE's java image, which the case's
    // `run_profile.sh` builds from `java.Dockerfile`; the spec's environment is
    // `node.Dockerfile`'s, which the report says.
    let es_kb = report
        .split("## demo_es_kb_6f7a8b9c0d1e")
        .nth(1)
        .unwrap_or_else(|| panic!("no section for the es/kb case:\n{report}"));
    assert!(
        es_kb.contains("several Dockerfiles (`node.Dockerfile`, `java.Dockerfile`)"),
        "no note for the java image:\n{es_kb}"
    );
    // Case 25: a quoted `--testNamePattern` whose regular expression holds words with spaces
    // is one argument, not prose (before: a false note).
    assert!(!es_kb.contains("in prose"), "a false prose note:\n{es_kb}");

    // Cases 87, 88: app's tests run in a copy of app inside `srv/apps/app`, after `cd
    // /workspace/repos/demo/srv` then `cd apps/app`; the spec cannot run there, and must not
    // run `cd apps/app` in app's own checkout: no `cd`, and a note naming the folder. srv's
    // `cd build` after an absolute `cd` into its own checkout stays.
    let case = "demo_srv_app_9c0d1e2f3a4b";
    let spec = i.spec(case);
    let app = run_of(&spec, "app");
    assert!(
        app.contains("vendor/bin/phpunit") && !app.contains("cd "),
        "app's run `cd`s into a folder of its own checkout: {app}"
    );
    let srv = run_of(&spec, "srv");
    assert!(srv.contains("cd build && ../vendor/bin/phpunit"), "{srv}");
    let srv_app = report
        .split(&format!("## {case}"))
        .nth(1)
        .unwrap_or_else(|| panic!("no section for the srv/app case:\n{report}"));
    assert!(
        srv_app.contains("runs `app`'s tests in `/workspace/repos/demo/srv/apps/app`"),
        "no note for app's folder:\n{srv_app}"
    );

    // Cases 32, 33: spec's go tests run in an image `run_profile.sh` builds from WideSWE's
    // recipe `benchmark/images/base/go-1.26-bookworm/Dockerfile`, not from the case's
    // `node.Dockerfile` the spec's environment is built from: the report says so.
    let kb_spec = report
        .split("## demo_kb_spec_0d1e2f3a4b5c")
        .nth(1)
        .unwrap_or_else(|| panic!("no section for the kb/spec case:\n{report}"));
    assert!(
        kb_spec.contains(
            "several Dockerfiles (`node.Dockerfile`, `benchmark/images/base/go-1.26-bookworm/Dockerfile`)"
        ),
        "no note for the go image:\n{kb_spec}"
    );
}
