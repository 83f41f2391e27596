//! Lock files: the TOML layout, round trips, staleness and its diagnostics.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use std::collections::BTreeMap;

use plan_support::cookie_split;
use taskc_compiler::lock::*;
use taskc_compiler::lower::LowerOptions;
use taskc_compiler::model::Rule;
use taskc_compiler::plan::Verdict;
use taskc_compiler::span::SourceId;
use taskc_compiler::Diagnostic;

fn sample() -> Lock {
    let task = cookie_split();
    let inputs = lock_inputs(&task, &LowerOptions::default()).unwrap();
    let mut lock = Lock::new(&task.id, inputs);
    lock.repos.insert(
        "proxy".into(),
        RepoLock {
            f2p: vec!["tests/test_proxy.py::test_split".into()],
            p2p: vec![
                "tests/test_proxy.py::test_small".into(),
                "tests/test_proxy.py::test_empty".into(),
            ],
            dropped: Vec::new(),
            skipped: vec!["tests/test_proxy.py::test_needs_network".into()],
            skipped_unnamed: 2,
        },
    );
    lock.repos.insert(
        "gateway".into(),
        RepoLock {
            f2p: vec!["tests/test_gateway.py::test_split".into()],
            p2p: Vec::new(),
            dropped: vec![DroppedLock {
                test: "tests/test_gateway.py::test_extra_presets".into(),
                rule: Rule::Unrequested,
            }],
            ..RepoLock::default()
        },
    );
    let cell = |passed, failed| TruthCell {
        passed,
        failed,
        targeted: false,
        not_run: false,
    };
    for (gold, p, g) in [
        (vec![], (2, 1), (0, 1)),
        (vec!["proxy"], (3, 0), (0, 1)),
        (vec!["gateway"], (2, 1), (0, 1)),
        (vec!["gateway", "proxy"], (3, 0), (1, 0)),
    ] {
        let full = gold.len() == 2;
        let mut repos = BTreeMap::new();
        repos.insert("proxy".to_string(), cell(p.0, p.1));
        repos.insert("gateway".to_string(), cell(g.0, g.1));
        lock.truth.push(TruthRow {
            gold: gold.into_iter().map(String::from).collect(),
            expected: Verdict::of(full),
            pass: full,
            ok: true,
            repos,
        });
    }
    // {proxy} alone: gateway's run kept only its F2P tests.
    if let Some(c) = lock.truth[1].repos.get_mut("gateway") {
        c.targeted = true;
    }
    lock.provenance = Provenance {
        backend: "docker".into(),
        taskc: "0.1.0".into(),
        images: [("environment", "img-1"), ("task", "img-2")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        tools: [("proxy", "Python 3.11.2, pytest-8.3.3, pluggy-1.5.0")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    lock
}

#[test]
fn lock_toml_snapshot() {
    insta::assert_snapshot!(sample().to_toml());
}

#[test]
fn lock_round_trips_and_sorts() {
    let lock = sample();
    let text = lock.to_toml();
    let back = parse_lock(&text).unwrap();
    assert_eq!(back.to_toml(), text);
    // to_toml sorted the p2p list.
    assert_eq!(
        back.repos["proxy"].p2p[0],
        "tests/test_proxy.py::test_empty"
    );
    assert_eq!(
        lock_path_for("examples/cookie-split/cookie-split.task"),
        "examples/cookie-split/cookie-split.lock"
    );
}

#[test]
fn a_fresh_lock_is_not_stale() {
    let lock = parse_lock(&sample().to_toml()).unwrap();
    assert!(stale_inputs(&cookie_split(), &lock).unwrap().is_empty());
    // Formatting-only and path-only changes to the spec do not stale it.
    let mut t = cookie_split();
    t.spec_path = "elsewhere/cookie-split.task".into();
    assert!(stale_inputs(&t, &lock).unwrap().is_empty());
}

fn render(d: &Diagnostic, text: &str) -> String {
    let mut out = format!("{} {}: {}\n", d.code, d.severity().as_str(), d.message);
    for l in std::iter::once(&d.primary).chain(&d.secondary) {
        let line_no = text[..l.span.start as usize].matches('\n').count() + 1;
        let line = text.lines().nth(line_no - 1).unwrap_or("");
        out.push_str(&format!(
            "  cookie-split.lock:{line_no}: {}\n    | {line}\n",
            l.text
        ));
    }
    if let Some(h) = &d.help {
        out.push_str(&format!("  help: {h}\n"));
    }
    out
}

#[test]
fn stale_inputs_name_what_changed() {
    let text = sample().to_toml();
    let lock = parse_lock(&text).unwrap();
    let mut t = cookie_split();
    let gold = t.repos[0].gold.as_mut().unwrap();
    gold.text.push_str("+more = 1\n");
    gold.digest = taskc_compiler::plan::sha256_hex(gold.text.as_bytes());
    t.repos[1].relaxations.pop();
    let stale = stale_inputs(&t, &lock).unwrap();
    let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["gold.proxy", "plan", "spec"]);
    let d = stale_lock_diagnostic(
        "cookie-split.lock",
        "cookie-split.task",
        SourceId(1),
        &text,
        &stale,
    )
    .unwrap();
    insta::assert_snapshot!(render(&d, &text));
}

#[test]
fn unreadable_locks_are_e0901_with_a_span() {
    let text = "schema = \"taskc.lock/1\"\ntask = 3\n";
    let err = parse_lock(text).unwrap_err();
    let d = invalid_lock_diagnostic("x.lock", "x.task", SourceId(0), &err);
    assert_eq!(d.code.as_str(), "E0901");
    assert!(d.primary.span.start > 0, "{d:?}");
    let old = parse_lock("schema = \"taskc.lock/0\"\ntask = \"x\"\n[inputs]\nspec=\"\"\nprompt=\"\"\nrecipe=\"\"\nplan=\"\"\n[repos]\n");
    assert!(matches!(old, Err(LockError::Schema { .. })), "{old:?}");
}

#[test]
fn a_lock_with_line_numbered_doc_test_ids_is_stale() {
    // Locks written before cargo doc-test ids lost `(line N)` name tests no parser reports
    // any more: such a lock is stale (re-verify), never silently scored against.
    let mut lock = sample();
    lock.repos.get_mut("proxy").unwrap().p2p.extend([
        "src/lib.rs - Sender<T>::send (line 238)".to_string(),
        "src/lib.rs - Queue<T>::push (line 42) - compile fail".to_string(),
    ]);
    let lock = parse_lock(&lock.to_toml()).unwrap();
    let stale = stale_inputs(&cookie_split(), &lock).unwrap();
    let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["oracle.proxy"]);
    for id in [
        "src/lib.rs - add (line 9)",
        "src/lib.rs - (line 3)",
        "tests/a.rs - f (line 1) - compile",
    ] {
        assert!(is_line_numbered_doc_test(id), "{id}");
    }
    for id in [
        "src/lib.rs - add",
        "src/lib.rs - add #2",
        "tests/test_x.py::test_a[(line 3)]",
        "src/lib.rs::tests::x (line 3)",
    ] {
        assert!(!is_line_numbered_doc_test(id), "{id}");
    }
}
