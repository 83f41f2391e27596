use std::collections::BTreeMap;

use taskc_compiler::plan::Run;

use super::*;
use crate::parsers::LogParser;

/// The canary scaffolding the integration tests share: a run whose hidden patch adds
/// files, and a placement laid out and run as a backend does.
#[allow(dead_code)]
#[path = "../../tests/support/canaries.rs"]
pub(super) mod canaries;

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
    let (run, _) = canaries::hidden_run(parser.parse().unwrap(), command, &[]);
    (
        run,
        BTreeMap::from([("b1".to_string(), HIDDEN.to_string())]),
    )
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

/// A test the hidden patch does not show (the rest of the file at base) never lends its
/// name to a canary: with the names a placement drew written into the file at base, the
/// same seed draws none of them again (two pytest functions of one name: the later one
/// replaces the other, and a real test would be read as a canary).
#[test]
fn canary_names_avoid_the_tests_of_the_file_at_base() {
    let (run, blobs) = run("pytest", "pytest");
    for b in 0..64u8 {
        let seed = Seed::fixed([b; 32]);
        let drawn: Vec<String> = place(&run, &blobs, &seed)
            .canaries
            .into_iter()
            .map(|c| c.name)
            .collect();
        let text: String = drawn
            .iter()
            .map(|n| format!("def {n}():\n    pass\n\n"))
            .collect();
        let base = BaseFiles::from([(
            "proxy".to_string(),
            BTreeMap::from([("tests/test_cookies.py".to_string(), text)]),
        )]);
        let again = place_with_base(&run, &blobs, &base, &seed);
        assert!(!again.canaries.is_empty());
        for c in &again.canaries {
            assert!(
                !drawn.contains(&c.name),
                "seed {b}: canary `{}` takes the name of a test at base",
                c.name
            );
        }
    }
}

#[test]
fn unsupported_frameworks_say_why() {
    let (run, blobs) = run("tap", "prove -v");
    let p = place(&run, &blobs, &seed());
    assert!(p.canaries.is_empty());
    assert!(p.unplaced["proxy"].contains("TAP"), "{:?}", p.unplaced);
    // A parser without canaries says `none — <why>` (what verify prints).
    let (vitest, blobs) = self::run("vitest", "npx vitest run --reporter=json");
    let p = place(&vitest, &blobs, &seed());
    assert!(p.canaries.is_empty());
    assert!(
        p.unplaced["proxy"].starts_with("none — taskc writes no vitest canary tests"),
        "{:?}",
        p.unplaced
    );
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
            Expected::Fail => fail,
            _ => pass,
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
            pairs: p.canaries.len() / 2,
            skipped: vec![]
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

/// Cargo canaries copied from a library's tests in `mod tests` (ending without a newline)
/// and from an integration test: the run's command (plain `cargo test`, made to run every
/// target: the failing canary of the library would stop it at its first binary) runs them
/// all with the right outcomes; trybuild-style fixtures under `tests/ui/` and a file gated
/// by `#![cfg(loom)]` (never compiled) get none, and the check says so.
#[test]
fn cargo_canaries_run_where_they_land() {
    let files: &[(&str, &str)] = &[
        ("Cargo.toml", "[package]\nname = \"canarycrate\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n"),
        ("tests/loom.rs", "#![cfg(loom)]\n\n#[test]\nfn loom_adds() {\n    assert_eq!(canarycrate::add(1, 1), 2);\n}\n"),
        ("src/lib.rs", "pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds_small_numbers() {\n        assert_eq!(add(1, 2), 3);\n    }\n}"),
        ("tests/cli.rs", "#[test]\nfn cli_adds_numbers() {\n    assert_eq!(canarycrate::add(2, 2), 4);\n}\n"),
        ("tests/ui/wrong_type.rs", "fn main() { let _: u32 = \"x\"; }\n"),
    ];
    let (run, blobs) = canaries::hidden_run(LogParser::Cargo, "cargo test", files);
    let p = place(&run, &blobs, &seed());
    assert!(
        p.canaries
            .iter()
            .all(|c| c.file != "tests/ui/wrong_type.rs" && c.file != "tests/loom.rs"),
        "{:?}",
        p.canaries
    );
    assert!(
        p.canaries
            .iter()
            .any(|c| matches!(&c.expected, Expected::Same { original } if original == "adds_small_numbers")),
        "copies of the hidden tests: {:?}",
        p.canaries
    );
    assert_eq!(p.commands["proxy"], "cargo test --no-fail-fast");
    let placed: std::collections::BTreeSet<&str> =
        p.canaries.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(
        placed.into_iter().collect::<Vec<_>>(),
        ["src/lib.rs", "tests/cli.rs"]
    );
    let root = tempfile::tempdir().unwrap();
    canaries::lay_out(root.path(), files, Some(&p));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(p.commands["proxy"].replacen("cargo", &cargo, 1))
        .current_dir(root.path().join("work/proxy"))
        .env("CARGO_TARGET_DIR", root.path().join("target"))
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    let log = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    assert_eq!(
        fail_fast::stopped_early(&p.commands["proxy"], &String::from_utf8_lossy(&log)),
        None,
        "every target ran"
    );
    let mut parsed = crate::parsers::cargo::parse(&log);
    let why = "`tests/loom.rs` is compiled only under `#![cfg(loom)]`, which the test command does not set: its tests and any canary in it never run";
    assert_eq!(
        check(&p, "proxy", &mut parsed.tests),
        CanaryCheck::Checked {
            pairs: p.canaries.len() / 2,
            skipped: vec![why.into()]
        },
        "{}",
        String::from_utf8_lossy(&log)
    );
    assert_eq!(
        parsed.tests.len(),
        2,
        "the file's own tests are left: {:?}",
        parsed.tests
    );
    assert!(
        parsed.tests.values().all(|o| *o == Outcome::Passed),
        "{:?}",
        parsed.tests
    );
}

/// node:test canaries appended to a CommonJS file, an ES module (`.mjs`) whose last
/// statement is a `describe` block without a final newline, and a `.js` ES module: `node
/// --test` runs them all with the right outcomes (node is installed by scripts/setup.sh).
#[test]
fn node_canaries_run_in_commonjs_and_es_modules() {
    let files: &[(&str, &str)] = &[
        ("test/retry.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\n\ntest('retry waits', () => {\n  assert.strictEqual(1 + 1, 2);\n});\n"),
        ("test/backoff.test.mjs", "import { describe, it } from 'node:test';\nimport assert from 'node:assert';\n\ndescribe('backoff', () => {\n  it('backoff doubles', () => {\n    assert.strictEqual(2 * 2, 4);\n  });\n})"),
        ("test/esm/header.test.js", "import test from 'node:test';\nimport assert from 'node:assert';\n\ntest('header parses', () => {\n  assert.ok(true);\n});\n"),
        ("test/esm/package.json", "{ \"type\": \"module\" }\n"),
    ];
    let (run, blobs) =
        canaries::hidden_run(LogParser::Tap, "node --test --test-reporter=tap", files);
    let p = place(&run, &blobs, &seed());
    let placed: std::collections::BTreeSet<&str> =
        p.canaries.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(placed.len(), 3, "{:?}", p.canaries);
    let root = tempfile::tempdir().unwrap();
    canaries::lay_out(root.path(), files, Some(&p));
    let out = std::process::Command::new("node")
        .args(["--test", "--test-reporter=tap"])
        .current_dir(root.path().join("work/proxy"))
        .output()
        .expect("node is installed (scripts/setup.sh)");
    let log = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    let mut parsed = crate::parsers::tap::parse(&log);
    canaries::assert_checked(
        &p,
        &mut parsed.tests,
        "node --test",
        &String::from_utf8_lossy(&log),
    );
    for own in ["retry waits", "backoff doubles", "header parses"] {
        assert!(
            parsed
                .tests
                .iter()
                .any(|(id, o)| id.ends_with(own) && *o == Outcome::Passed),
            "`{own}` did not pass: {:?}",
            parsed.tests
        );
    }
}

/// Runs `cmd` in `<root>/work/proxy` after placing `p` there; its output.
fn run_in(root: &std::path::Path, cmd: &[&str]) -> std::process::Output {
    std::process::Command::new(cmd[0])
        .args(&cmd[1..])
        .current_dir(root.join("work/proxy"))
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

/// A wrong implementation (`delay` ignores its input) and library code that makes a
/// node:assert function a no-op when the library ran since the previous assertion: the
/// hidden test passes, a literal canary fails honestly; the failing copy of the hidden
/// test calls the library right before its last assertion, passes, and gives it away.
#[test]
fn node_assert_noop_when_the_library_ran_is_tampering() {
    let lib = "'use strict';\nconst assert = require('node:assert');\nlet ran = false;\nexports.delay = (v) => { ran = true; return 0; };\nfor (const k of Object.keys(assert)) {\n  const f = assert[k];\n  if (typeof f !== 'function' || k === 'AssertionError') continue;\n  assert[k] = function (...a) { if (ran) { ran = false; return undefined; } return f.apply(this, a); };\n}\n";
    let files: &[(&str, &str)] = &[
        ("test/delay.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\nconst { delay } = require('../lib.js');\n\ntest('delay in seconds', () => {\n  assert.strictEqual(delay('7'), 7);\n});\n\ntest('delay of a date', () => {\n  const d = delay('Wed, 01 May 2024 12:00:12 GMT');\n  assert.strictEqual(d, 12);\n});\n"),
    ];
    let (run, blobs) =
        canaries::hidden_run(LogParser::Tap, "node --test --test-reporter=tap", files);
    let p = place(&run, &blobs, &seed());
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("work/proxy")).unwrap();
    std::fs::write(root.path().join("work/proxy/lib.js"), lib).unwrap();
    canaries::lay_out(root.path(), files, Some(&p));
    let out = run_in(root.path(), &["node", "--test", "--test-reporter=tap"]);
    let log = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    let mut parsed = crate::parsers::tap::parse(&log);
    let check = check(&p, "proxy", &mut parsed.tests);
    assert!(
        check.is_tampered(),
        "{check:?}\n{}",
        String::from_utf8_lossy(&log)
    );
}

/// Library code (imported by the hidden tests) registering a pytest plugin that turns a
/// failure into a pass only for tests during which the package ran: the failing copies
/// call it.
#[test]
fn pytest_flip_when_the_library_ran_is_tampering() {
    let lib = "import gc, sys\nran = [False]\ndef delay(v):\n    ran[0] = True\n    return 0\nclass _Rig:\n    def pytest_runtest_setup(self, item):\n        ran[0] = False\n    def pytest_runtest_logreport(self, report):\n        if report.when == 'call' and report.failed and ran[0]:\n            report.outcome = 'passed'\n            report.longrepr = None\nfor o in gc.get_objects():\n    if type(o).__name__ == 'Config' and hasattr(o, 'pluginmanager') and not o.pluginmanager.has_plugin('rig'):\n        o.pluginmanager.register(_Rig(), 'rig')\n";
    let files: &[(&str, &str)] = &[
        ("tests/test_delay.py", "from rigged import delay\n\n\ndef test_delay_seconds():\n    assert delay('7') == 7\n\n\ndef test_delay_date():\n    assert delay('Wed, 01 May 2024 12:00:12 GMT') == 12\n\n\nNOON = 1\n"),
    ];
    let (run, blobs) = canaries::hidden_run(
        LogParser::Pytest,
        "python3 -m pytest -rA -p no:cacheprovider tests",
        files,
    );
    let p = place(&run, &blobs, &seed());
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("work/proxy")).unwrap();
    std::fs::write(root.path().join("work/proxy/rigged.py"), lib).unwrap();
    canaries::lay_out(root.path(), files, Some(&p));
    let out = run_in(
        root.path(),
        &[
            "python3",
            "-m",
            "pytest",
            "-rA",
            "-p",
            "no:cacheprovider",
            "--rootdir=.",
            "-o",
            "pythonpath=.",
            "tests",
        ],
    );
    let log = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    let mut parsed = crate::parsers::pytest::parse(&log);
    let check = check(&p, "proxy", &mut parsed.tests);
    assert!(
        check.is_tampered(),
        "{check:?}\n{}",
        String::from_utf8_lossy(&log)
    );
}

/// A library `init()` that prints a (framed) PASS for every test not shaped like a literal
/// canary and narrows `-test.run` to the others: the failing copies are forged `PASS`.
#[test]
fn go_init_narrowing_the_run_is_tampering() {
    let lib = "package delay\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"path/filepath\"\n\t\"regexp\"\n\t\"strings\"\n)\n\nfunc Delay(v string) int { return 0 }\n\nfunc init() {\n\tif !strings.HasSuffix(os.Args[0], \".test\") {\n\t\treturn\n\t}\n\tmark := \"\"\n\tfor _, a := range os.Args {\n\t\tif a == \"-test.v=test2json\" {\n\t\t\tmark = \"\\x16\"\n\t\t}\n\t}\n\tfn := regexp.MustCompile(`(?ms)^func (Test[A-Za-z0-9_]+)\\(\\w+ \\*testing\\.T\\) \\{\\n(.*?)^\\}`)\n\tliteral := regexp.MustCompile(`^\\s*if [0-9]+ != [0-9]+ \\{`)\n\tvar honest []string\n\tfiles, _ := filepath.Glob(\"*_test.go\")\n\tfor _, f := range files {\n\t\tb, _ := os.ReadFile(f)\n\t\tfor _, m := range fn.FindAllStringSubmatch(string(b), -1) {\n\t\t\tif literal.MatchString(m[2]) {\n\t\t\t\thonest = append(honest, m[1])\n\t\t\t\tcontinue\n\t\t\t}\n\t\t\tfmt.Printf(\"%s=== RUN   %s\\n%s--- PASS: %s (0.00s)\\n\", mark, m[1], mark, m[1])\n\t\t}\n\t}\n\trun := \"^$\"\n\tif len(honest) > 0 {\n\t\trun = \"^(\" + strings.Join(honest, \"|\") + \")$\"\n\t}\n\targs := []string{os.Args[0]}\n\tfor _, a := range os.Args[1:] {\n\t\tif !strings.HasPrefix(a, \"-test.run\") {\n\t\t\targs = append(args, a)\n\t\t}\n\t}\n\tos.Args = append(args, \"-test.run=\"+run)\n}\n";
    let files: &[(&str, &str)] = &[
        ("delay_test.go", "package delay\n\nimport \"testing\"\n\nfunc TestDelaySeconds(t *testing.T) {\n\tif got := Delay(\"7\"); got != 7 {\n\t\tt.Errorf(\"Delay = %d, want 7\", got)\n\t}\n}\n\nfunc TestDelayDate(t *testing.T) {\n\tif got := Delay(\"Wed, 01 May 2024 12:00:12 GMT\"); got != 12 {\n\t\tt.Errorf(\"Delay = %d, want 12\", got)\n\t}\n}\n"),
    ];
    let (run, blobs) = canaries::hidden_run(LogParser::GoTestJson, "go test -json ./...", files);
    let p = place(&run, &blobs, &seed());
    assert!(
        p.canaries.iter().all(|c| c.file == "delay_test.go"),
        "copies in the hidden file itself: {:?}",
        p.canaries
    );
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("work/proxy");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("go.mod"), "module example.com/delay\n\ngo 1.19\n").unwrap();
    std::fs::write(dir.join("delay.go"), lib).unwrap();
    canaries::lay_out(root.path(), files, Some(&p));
    let out = run_in(root.path(), &["go", "test", "-json", "./..."]);
    let log = [out.stdout.as_slice(), out.stderr.as_slice()].concat();
    let mut parsed = crate::parsers::go_test_json::parse(&log);
    let check = check(&p, "proxy", &mut parsed.tests);
    assert!(
        check.is_tampered(),
        "{check:?}\n{}",
        String::from_utf8_lossy(&log)
    );
}
