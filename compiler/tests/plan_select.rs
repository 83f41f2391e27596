//! `select "… {ids} …"` templates in plans: a target whose parser taskc cannot narrow runs
//! its proper subsets through the template when the spec gives one, and its full suite
//! (with a note) when it does not; a narrowed run's command gets every id as one quoted
//! shell word, and the template and the ids are part of the run's id.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use plan_support::*;
use taskc_compiler::lower::{lower_verify, narrow_run, LowerOptions};
use taskc_compiler::parser::LogParser;
use taskc_compiler::plan::{SelectHow, VerifyPlan};

/// cookie-split with `gateway` on `parser`, run by `run`, with `select` template `template`.
fn gateway_on(parser: LogParser, run: &str, template: Option<&str>) -> VerifyPlan {
    let mut task = cookie_split();
    let gateway = task
        .repos
        .iter_mut()
        .find(|r| r.name == "gateway")
        .and_then(|r| r.test.as_mut())
        .expect("gateway's test block");
    gateway.parser = parser;
    gateway.run = run.to_string();
    gateway.select = template.map(str::to_string);
    let plan = lower_verify(&task, &LowerOptions::default()).expect("lowers");
    plan.verify().expect("a verify plan").clone()
}

/// cookie-split with `gateway` on the jest parser, with `select` template `template`.
fn jest_gateway(template: Option<&str>) -> VerifyPlan {
    gateway_on(LogParser::JestJson, "npx jest --json", template)
}

/// The words `shell` (`sh`, `bash`) passes to the program of `command` (a narrowed run's)
/// whose invocation starts with `runner`: the command run with `runner` replaced by
/// `printf '%s\0'`.
fn words_passed(shell: &str, command: &str, runner: &str) -> Vec<String> {
    let out = std::process::Command::new(shell)
        .arg("-c")
        .arg(command.replacen(runner, "printf '%s\\0'", 1))
        .output()
        .expect("run the shell");
    out.stdout
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8(w.to_vec()).expect("utf-8"))
        .collect()
}

/// Ids with spaces, brackets, quotes, a newline and unicode (parametrised tests).
fn awkward_ids() -> Vec<String> {
    [
        "tests/a.test.js › cookies › splits [a b]",
        "tests/a.test.js › cookies › it's \"quoted\"",
        "tests/a.test.js › cookies › new\nline",
        "tests/a.test.js › cookies › ünïcode $(echo injected) `echo x` * ~",
    ]
    .map(str::to_string)
    .to_vec()
}

#[test]
fn a_template_narrows_the_proper_subsets_of_its_target() {
    let vp = jest_gateway(Some("node scripts/jest-only.js --json {ids}"));
    assert!(vp.full_suite.is_empty(), "{:?}", vp.full_suite);
    let targeted: Vec<_> = vp
        .targeted
        .iter()
        .filter(|t| t.run.under_test == "gateway")
        .collect();
    // gateway's closure is {proxy, gateway}: two proper subsets.
    assert_eq!(targeted.len(), 2);
    let t = targeted[0];
    assert_eq!(
        t.run.test.select_template.as_deref(),
        Some("node scripts/jest-only.js --json {ids}")
    );
    let narrowed = narrow_run(&t.run, "gateway", &awkward_ids(), true).expect("narrows");
    let sel = narrowed.test.select.as_ref().expect("a selection");
    let SelectHow::Command { command } = &sel.how else {
        panic!("a template narrows by command: {:?}", sel.how)
    };
    // The shell reads back exactly the ids, one argument each, nothing expanded.
    let words = words_passed("sh", command, "node scripts/jest-only.js --json");
    let mut want = awkward_ids();
    want.sort();
    assert_eq!(words, want);
    insta::assert_snapshot!(serde_json::to_string_pretty(&narrowed.test).expect("json"));
    assert_ne!(narrowed.id, t.run.id);
    let again = narrow_run(&t.run, "gateway", &awkward_ids()[..1], true).expect("narrows");
    assert_ne!(again.id, narrowed.id, "the ids are part of the run id");
}

#[test]
fn the_template_is_part_of_every_run_id_of_its_target() {
    let a = jest_gateway(Some("node a.js {ids}"));
    let b = jest_gateway(Some("node b.js {ids}"));
    let ids = |vp: &VerifyPlan, repo: &str| -> Vec<String> {
        vp.runs
            .iter()
            .chain(vp.targeted.iter().map(|t| &t.run))
            .filter(|r| r.under_test == repo)
            .map(|r| r.id.clone())
            .collect()
    };
    assert_eq!(ids(&a, "proxy"), ids(&b, "proxy"));
    let (ga, gb) = (ids(&a, "gateway"), ids(&b, "gateway"));
    assert!(ga.iter().all(|id| !gb.contains(id)), "{ga:?} {gb:?}");
}

#[test]
fn without_a_template_the_proper_subsets_run_the_full_suite_with_a_note() {
    let vp = jest_gateway(None);
    assert!(vp.targeted.iter().all(|t| t.run.under_test != "gateway"));
    insta::assert_snapshot!(format!("{:#?}", vp.full_suite));
    // The unnarrowable run cannot be narrowed by mistake either.
    let run = vp
        .runs
        .iter()
        .find(|r| r.under_test == "gateway")
        .expect("a gateway run");
    assert!(narrow_run(run, "gateway", &awkward_ids(), true).is_err());
}

#[test]
fn a_runner_with_selection_arguments_is_narrowed_by_them_without_a_template() {
    let run = "npx mocha --reporter json 2>/dev/null; echo done";
    let vp = gateway_on(LogParser::MochaJson, run, None);
    assert!(vp.full_suite.is_empty(), "{:?}", vp.full_suite);
    let t = vp
        .targeted
        .iter()
        .find(|t| t.run.under_test == "gateway")
        .expect("gateway's proper subsets are narrowed");
    let ids: Vec<String> = [
        "test/a.js::cookies splits [a b]",
        "test/a.js::cookies it's \"quoted\" $(echo x) *",
    ]
    .map(str::to_string)
    .to_vec();
    let narrowed = narrow_run(&t.run, "gateway", &ids, true).expect("narrows");
    let sel = narrowed.test.select.as_ref().expect("a selection");
    let SelectHow::Command { command } = &sel.how else {
        panic!("narrowed by a command: {:?}", sel.how)
    };
    assert!(
        !sel.fail_fast,
        "the curator's command decides whether it stops"
    );
    // The arguments land on mocha's invocation, before the rest of the command, and
    // reach it as two words, nothing expanded.
    let words = words_passed("bash", command, "npx mocha");
    assert_eq!(
        words,
        [
            "--reporter",
            "json",
            "--grep",
            r#"^(?:cookies it's "quoted" \$\(echo x\) \*|cookies splits \[a b\])$"#,
            "done\n"
        ]
    );
    // A command that runs mocha twice cannot be narrowed by arguments: full suite, and why.
    let vp = gateway_on(LogParser::MochaJson, "mocha test/a; mocha test/b", None);
    assert!(vp.targeted.iter().all(|t| t.run.under_test != "gateway"));
    let note = vp.full_suite.get("gateway").expect("a note for gateway");
    assert!(note.contains("invokes `mocha`, `_mocha` 2 times"), "{note}");
}
