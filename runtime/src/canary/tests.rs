use std::collections::BTreeMap;

use taskc_compiler::plan::{Run, Step, TestStep};

use super::*;

const HIDDEN: &str = "\
diff --git a/tests/test_cookies.py b/tests/test_cookies.py
--- a/tests/test_cookies.py
+++ b/tests/test_cookies.py
@@ -1 +1,2 @@
 import x
+def test_new(): pass
diff --git a/tests/conftest.py b/tests/conftest.py
--- a/tests/conftest.py
+++ b/tests/conftest.py
@@ -1 +1,2 @@
 import x
+import y
";

fn run(parser: &str, command: &str) -> (Run, BTreeMap<String, String>) {
    let blobs = BTreeMap::from([("b1".to_string(), HIDDEN.to_string())]);
    let run = Run {
        id: "run-x".into(),
        digest: String::new(),
        image: "img".into(),
        under_test: "proxy".into(),
        gold_applied: vec![],
        prediction: vec![],
        network: false,
        steps: vec![Step::ApplyTests {
            repo: "proxy".into(),
            blob: "b1".into(),
        }],
        test: TestStep {
            repo: "proxy".into(),
            workdir: "/work/proxy".into(),
            command: command.into(),
            parser: parser.into(),
            timeout_secs: 60,
            dropped: vec![],
            select_template: None,
            select: None,
        },
    };
    (run, blobs)
}

fn seed() -> Seed {
    Seed::fixed([7; 32])
}

#[test]
fn pytest_canaries_go_into_test_modules_only() {
    let (run, blobs) = run("pytest", "python3 -m pytest -rA tests");
    let p = place(&run, &blobs, &seed());
    assert!(matches!(p.canaries.len(), 4 | 6), "two or three pairs");
    assert!(p.canaries.iter().all(|c| c.file == "tests/test_cookies.py"));
    for pair in p.canaries.chunks(2) {
        assert_eq!(pair[0].expected, Expected::Pass);
        assert_eq!(pair[1].expected, Expected::Fail);
    }
    // Inserted between the module's definitions by python's parser, else appended.
    // One interpreter per module, whatever the number of canaries.
    assert_eq!(
        p.script.matches("python3 -I -S -c ").count(),
        1,
        "{}",
        p.script
    );
    assert!(
        p.script.contains(
            "sed 's/__TASKC_SUBJECT__/__name__/g' \"$TASKC_ROOT\"/taskc/blobs/canary/1.0.txt;"
        ),
        "{}",
        p.script
    );
    assert!(
        p.script
            .trim_end()
            .ends_with("; } >> \"$TASKC_ROOT\"/work/proxy/tests/test_cookies.py; }"),
        "{}",
        p.script
    );
    // Named like the file's own tests: no hex.
    for c in &p.canaries {
        assert!(c.name.starts_with("test_"), "{}", c.name);
        assert!(
            c.name
                .chars()
                .all(|ch| ch.is_ascii_lowercase() || ch == '_'),
            "{}",
            c.name
        );
    }
    let text = String::from_utf8_lossy(&p.uploads[0].bytes).to_string();
    insta::assert_snapshot!(text);
}

#[test]
fn the_pytest_insertion_keeps_the_module_parsing() {
    // The insertion program, run on a module with a decorator and a class.
    let Ok(py) = std::process::Command::new("python3")
        .arg("--version")
        .output()
    else {
        return;
    };
    assert!(py.status.success());
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("test_m.py");
    let canary = dir.path().join("c.txt");
    let base = "import pytest\n\n\n@pytest.mark.parametrize(\"x\", [1])\ndef test_a(x):\n    assert x\n\n\nclass TestB:\n    def test_b(self):\n        pass\n";
    let second = dir.path().join("d.txt");
    std::fs::write(&canary, framework::pytest_canary("test_c", 1, 1)).unwrap();
    std::fs::write(&second, framework::pytest_canary("test_d", 2, 3)).unwrap();
    // Several modules, one interpreter: each module's path, its number of canaries, then
    // (canary file, place) per canary.
    let insert = |modules: &[&std::path::Path], n: usize| {
        let mut cmd = std::process::Command::new("python3");
        cmd.args(["-I", "-S", "-c", PYTEST_INSERT])
            .arg(framework::PYTEST_SUBJECT);
        for m in modules {
            cmd.arg(m)
                .arg("2")
                .arg(&canary)
                .arg(n.to_string())
                .arg(&second)
                .arg((n + 1).to_string());
        }
        cmd.output().unwrap()
    };
    let mut seen = std::collections::BTreeSet::new();
    for n in 0..2 {
        std::fs::write(&module, base).unwrap();
        let out = insert(&[&module], n);
        assert!(out.status.success(), "{out:?}");
        let text = std::fs::read_to_string(&module).unwrap();
        assert!(text.contains("def test_c():"), "{text}");
        assert!(
            text.contains("def test_d():"),
            "both canaries, one run: {text}"
        );
        assert!(
            text.contains("@pytest.mark.parametrize(\"x\", [1])\ndef test_a(x):"),
            "{text}"
        );
        assert!(text.contains("subject = repr(pytest)"), "{text}");
        seen.insert(text.find("def test_c").unwrap());
        // The module still runs its own tests and the canaries (test_d must fail).
        let run = std::process::Command::new("python3")
            .arg("-c")
            .arg(format!(
                "{text}\ntest_c()\nTestB().test_b()\ntry:\n    test_d()\nexcept AssertionError:\n    pass\nelse:\n    raise SystemExit(3)\n"
            ))
            .output()
            .unwrap();
        if !String::from_utf8_lossy(&run.stderr).contains("No module named 'pytest'") {
            assert!(run.status.success(), "{run:?}");
        }
    }
    // Two modules in one run, one of which does not parse: its canaries are appended, with
    // `__name__`; the other's are inserted.
    let broken = dir.path().join("test_broken.py");
    std::fs::write(&broken, "def broken(:\n").unwrap();
    std::fs::write(&module, base).unwrap();
    let out = insert(&[&broken, &module], 0);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&broken).unwrap();
    assert!(text.starts_with("def broken(:\n"), "{text}");
    assert!(
        text.contains("def test_c():\n    subject = repr(__name__)"),
        "{text}"
    );
    assert!(text.contains("def test_d():"), "{text}");
    let text = std::fs::read_to_string(&module).unwrap();
    assert!(text.contains("subject = repr(pytest)"), "{text}");
    assert!(text.contains("def test_d():"), "{text}");
    assert_eq!(seen.len(), 2, "before test_a and before TestB");
}

#[test]
fn names_differ_per_seed() {
    let (run, blobs) = run("pytest", "pytest");
    let a = place(&run, &blobs, &seed());
    let b = place(&run, &blobs, &Seed::fixed([8; 32]));
    assert_ne!(a.canaries[0].name, b.canaries[0].name);
    assert_ne!(a.canaries[0].name, a.canaries[1].name);
}

#[test]
fn unsupported_frameworks_say_why() {
    let (run, blobs) = run("tap", "prove -v");
    let p = place(&run, &blobs, &seed());
    assert!(p.canaries.is_empty());
    assert!(p.unplaced["proxy"].contains("TAP"), "{:?}", p.unplaced);
}

fn tests_with(
    extra: &[(&str, Outcome)],
    p: &Placement,
    pass: Outcome,
    fail: Outcome,
) -> BTreeMap<String, Outcome> {
    let mut t: BTreeMap<String, Outcome> =
        extra.iter().map(|(id, o)| (id.to_string(), *o)).collect();
    for c in &p.canaries {
        let o = match c.expected {
            Expected::Pass => pass,
            Expected::Fail => fail,
        };
        t.insert(format!("tests/test_cookies.py::{}", c.name), o);
    }
    t
}

#[test]
fn right_outcomes_check_and_are_removed() {
    let (run, blobs) = run("pytest", "pytest");
    let p = place(&run, &blobs, &seed());
    let mut t = tests_with(
        &[("tests/test_cookies.py::test_new", Outcome::Passed)],
        &p,
        Outcome::Passed,
        Outcome::Failed,
    );
    assert_eq!(
        check(&p, "proxy", &mut t),
        CanaryCheck::Checked {
            pairs: p.canaries.len() / 2
        }
    );
    assert_eq!(t.len(), 1, "canary ids removed: {t:?}");
}

#[test]
fn a_failing_canary_reported_passed_is_tampering() {
    let (run, blobs) = run("pytest", "pytest");
    let p = place(&run, &blobs, &seed());
    let mut t = tests_with(
        &[("tests/test_cookies.py::test_new", Outcome::Passed)],
        &p,
        Outcome::Passed,
        Outcome::Passed,
    );
    let c = check(&p, "proxy", &mut t);
    assert!(c.is_tampered(), "{c:?}");
}

#[test]
fn vanished_canaries_next_to_reported_tests_are_tampering() {
    let (run, blobs) = run("pytest", "pytest");
    let p = place(&run, &blobs, &seed());
    let mut t = BTreeMap::from([(
        "tests/test_cookies.py::test_new".to_string(),
        Outcome::Passed,
    )]);
    assert!(check(&p, "proxy", &mut t).is_tampered());
}

#[test]
fn a_file_that_did_not_collect_is_not_run_not_tampered() {
    let (run, blobs) = run("pytest", "pytest");
    let p = place(&run, &blobs, &seed());
    let mut t = BTreeMap::from([("tests/test_cookies.py".to_string(), Outcome::Error)]);
    assert!(matches!(
        check(&p, "proxy", &mut t),
        CanaryCheck::NotRun { .. }
    ));
}

#[test]
fn ids_match_by_name_suffix_only() {
    assert!(is_canary_id("tests/a.py::test_ab", "test_ab"));
    assert!(is_canary_id("example.com/m/TestAB", "TestAB"));
    assert!(is_canary_id("tab", "tab"));
    assert!(!is_canary_id("tests/a.py::test_xtest_ab", "test_ab"));
}
