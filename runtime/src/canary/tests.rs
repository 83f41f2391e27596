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
    assert_eq!(p.canaries.len(), 2);
    assert!(p.canaries.iter().all(|c| c.file == "tests/test_cookies.py"));
    assert_eq!(p.canaries[0].expected, Expected::Pass);
    assert_eq!(p.canaries[1].expected, Expected::Fail);
    assert!(p
        .script
        .contains(">> \"$TASKC_ROOT\"/work/proxy/tests/test_cookies.py"));
    let text = String::from_utf8_lossy(&p.uploads[0].bytes).to_string();
    insta::assert_snapshot!(text, @r"
    def test_df5b86b77b5ca999():
        assert 825664 == 825664


    def test_c7c3bc09ad24518f():
        assert 825664 == 413678
    ");
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
    t.insert(
        format!("tests/test_cookies.py::{}", p.canaries[0].name),
        pass,
    );
    t.insert(
        format!("tests/test_cookies.py::{}", p.canaries[1].name),
        fail,
    );
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
        CanaryCheck::Checked { pairs: 1 }
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
