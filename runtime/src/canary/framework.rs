//! Which test framework a test step runs, which of its hidden test files can carry canaries,
//! and the canary tests written in that framework's idiom.

use taskc_compiler::parser::CanaryFramework;
use taskc_compiler::plan::TestStep;

/// A framework taskc can write canary tests for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framework {
    /// Functions appended to a hidden `test_*.py` / `*_test.py` module.
    Pytest,
    /// A new `_test.go` file next to a hidden one, in its package.
    GoTest,
    /// `node:test` tests appended to a hidden test file (CommonJS or ES module).
    NodeTest,
    /// `test(…)`/`expect(…)` globals appended to a hidden test file (jest, vitest with
    /// `globals: true`).
    Jest,
    /// `#[test]` functions appended to a hidden `.rs` file.
    Cargo,
    /// `test…` methods written into the test class of a hidden `*Test.php` file (phpunit 9).
    Phpunit,
    /// New `.phpt` files next to a hidden one (php's run-tests.php).
    Phpt,
    /// `test` commands written into a hidden `.test` file, before its `cleanupTests`
    /// (tcl's tcltest).
    Tcltest,
    /// A `describe` block of two `it`s appended to a hidden mocha spec file (`canary/mocha.rs`).
    Mocha,
    /// A `Minitest::Test` subclass appended to a hidden `*_test.rb` / `test_*.rb` (`canary/ruby.rs`).
    Minitest,
    /// An `RSpec.describe` block appended to a hidden `*_spec.rb` (`canary/ruby.rs`).
    Rspec,
    /// A `unittest.TestCase` subclass appended to a hidden `test*.py` (`canary/unittest.rs`).
    Unittest,
    /// Two JUnit 4 `@Test` methods written into the class of a hidden `*Test.java`, run by
    /// maven's surefire (`canary/junit.rs`).
    Junit4,
}

impl Framework {
    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Pytest => "pytest",
            Framework::GoTest => "go test",
            Framework::NodeTest => "node:test",
            Framework::Jest => "jest",
            Framework::Cargo => "cargo test",
            Framework::Phpunit => "phpunit",
            Framework::Phpt => "phpt",
            Framework::Tcltest => "tcltest",
            Framework::Mocha => "mocha",
            Framework::Minitest => "minitest",
            Framework::Rspec => "rspec",
            Framework::Unittest => "unittest",
            Framework::Junit4 => "junit4",
        }
    }

    /// The framework of `test`, as its parser's descriptor decides (for parsers several
    /// frameworks share, from its command); `Err` says why canaries cannot be placed.
    pub fn of(test: &TestStep) -> Result<Framework, String> {
        let canaries = test.parser.descriptor().canaries;
        // A parser without canaries says so as `none — <why>` (verify's canary lines).
        let framework = canaries
            .framework(&test.command)
            .map_err(|why| match canaries {
                taskc_compiler::parser::Canaries::None { .. } => format!("none — {why}"),
                _ => why.to_string(),
            })?;
        Ok(match framework {
            CanaryFramework::Pytest => Framework::Pytest,
            CanaryFramework::GoTest => Framework::GoTest,
            CanaryFramework::NodeTest => Framework::NodeTest,
            CanaryFramework::Jest => Framework::Jest,
            CanaryFramework::Cargo => Framework::Cargo,
            CanaryFramework::Phpunit => Framework::Phpunit,
            CanaryFramework::Phpt => Framework::Phpt,
            CanaryFramework::Tcltest => Framework::Tcltest,
            CanaryFramework::Mocha => Framework::Mocha,
            CanaryFramework::Minitest => Framework::Minitest,
            CanaryFramework::Rspec => Framework::Rspec,
            CanaryFramework::Unittest => Framework::Unittest,
            CanaryFramework::Junit4 => Framework::Junit4,
        })
    }

    /// Why canaries would not be run by `command` even when placed: it selects tests by
    /// name (a pytest node id, `-k`, `go test -run`, a name pattern, a cargo filter), so a
    /// canary missing from its log would prove nothing. `None` when it runs whole files.
    pub fn selection(self, command: &str) -> Option<String> {
        let words: Vec<&str> = command.split_whitespace().collect();
        let has = |w: &str| {
            words
                .iter()
                .any(|t| *t == w || t.starts_with(&format!("{w}=")))
        };
        let why = |what: &str| {
            Some(format!(
                "the test command selects tests by name ({what}): canaries placed in the hidden test files would not run"
            ))
        };
        match self {
            Framework::Pytest if words.iter().any(|t| t.contains("::")) => why("a pytest node id"),
            Framework::Pytest
                if words.iter().skip_while(|t| !t.contains("pytest")).any(|t| {
                    *t == "-k" || *t == "-m" || t.starts_with("-k=") || t.starts_with("-m=")
                }) =>
            {
                why("`-k`/`-m`")
            }
            Framework::GoTest if has("-run") || has("--run") => why("`-run`"),
            Framework::NodeTest if has("--test-name-pattern") || has("--test-only") => {
                why("`--test-name-pattern`")
            }
            Framework::Jest if has("-t") || has("--testNamePattern") => why("`-t`"),
            Framework::Phpunit => super::php::selection(&words).and_then(why),
            Framework::Tcltest => super::tcl::selection(command).and_then(why),
            Framework::Cargo => {
                let after = words
                    .iter()
                    .skip_while(|t| **t != "test" && **t != "run")
                    .skip(1)
                    .take_while(|t| **t != "--");
                let mut skip_value = false;
                for t in after {
                    if skip_value {
                        skip_value = false;
                        continue;
                    }
                    if t.starts_with('-') {
                        // Options that take a value.
                        skip_value = matches!(
                            *t,
                            "-p" | "--package"
                                | "--test"
                                | "--features"
                                | "-F"
                                | "--target"
                                | "-j"
                                | "--jobs"
                                | "--manifest-path"
                                | "--profile"
                                | "-E"
                        );
                        continue;
                    }
                    return why("a cargo test filter");
                }
                None
            }
            Framework::Mocha => super::mocha::selection(command),
            Framework::Minitest | Framework::Rspec => super::ruby::selection(self, command),
            Framework::Unittest => super::unittest::selection(command),
            Framework::Junit4 => super::junit::selection(command),
            _ => None,
        }
    }

    /// `command` made to run every test target even when one fails — the failing canary
    /// would otherwise stop `cargo test` at the first test binary and the others would
    /// never run (`--no-fail-fast` after `cargo test` / `cargo nextest run`); `None` when it
    /// needs no change (another framework, or already there).
    pub fn runs_everything(self, command: &str) -> Option<String> {
        if self == Framework::Junit4 {
            return super::junit::runs_everything(command);
        }
        if self != Framework::Cargo || command.contains("--no-fail-fast") {
            return None;
        }
        // Each word with the byte offset just past it.
        let mut words: Vec<(&str, usize)> = Vec::new();
        let mut start = None;
        for (i, c) in command
            .char_indices()
            .chain(std::iter::once((command.len(), ' ')))
        {
            match (
                c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'),
                start,
            ) {
                (true, Some(s)) => {
                    words.push((&command[s..i], i));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        let is_cargo = |w: &str| w == "cargo" || w.ends_with("/cargo");
        let mut out = command.to_string();
        // From the end, so the offsets of earlier words stay right.
        for i in (0..words.len()).rev() {
            if !is_cargo(words[i].0) {
                continue;
            }
            let mut j = i + 1;
            if words.get(j).is_some_and(|w| w.0.starts_with('+')) {
                j += 1;
            }
            let at = match (words.get(j).map(|w| w.0), words.get(j + 1)) {
                (Some("test"), _) => words[j].1,
                (Some("nextest"), Some(("run", end))) => *end,
                _ => continue,
            };
            out.insert_str(at, " --no-fail-fast");
        }
        (out != command).then_some(out)
    }

    /// Test names the command leaves out exactly (tcltest's `-skip a b`): a canary must
    /// not take one.
    pub fn reserved(self, command: &str) -> Vec<String> {
        match self {
            Framework::Tcltest => super::tcl::skipped(command),
            _ => Vec::new(),
        }
    }

    /// Whether `path` (a file the hidden test patch leaves in place) is a test file this
    /// framework runs, so canaries written into it are run too.
    pub fn carries(self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        let in_dir = |d: &str| path.split('/').rev().skip(1).any(|s| s == d);
        match self {
            Framework::Pytest => {
                name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
            }
            Framework::GoTest => name.ends_with("_test.go"),
            Framework::NodeTest => {
                let js = [".js", ".mjs", ".cjs"].iter().any(|e| name.ends_with(e));
                let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
                js && (stem.ends_with(".test")
                    || stem.ends_with("-test")
                    || stem.ends_with("_test")
                    || stem.starts_with("test-")
                    || stem == "test"
                    || in_dir("test"))
            }
            Framework::Jest => {
                let code = [".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts"]
                    .iter()
                    .any(|e| name.ends_with(e));
                code && (name.contains(".test.") || name.contains(".spec.") || in_dir("__tests__"))
            }
            Framework::Cargo => {
                // Compiled into a test target `cargo test` runs: not a build script, not
                // benches/examples/fuzz targets, and under `tests/` only cargo's own test
                // targets (`tests/x.rs`, `tests/x/main.rs`) — a file deeper in `tests/` is a
                // fixture (trybuild's `tests/ui/*.rs`) or a module some target may not use.
                let parts: Vec<&str> = path.split('/').collect();
                let under_tests = parts.iter().rposition(|p| *p == "tests");
                name.ends_with(".rs")
                    && name != "build.rs"
                    && !parts
                        .iter()
                        .any(|p| matches!(*p, "benches" | "examples" | "fuzz"))
                    && match under_tests.map(|i| &parts[i + 1..]) {
                        None => true,
                        Some([_file]) => true,
                        Some([_dir, main]) => *main == "main.rs",
                        Some(_) => false,
                    }
            }
            // phpunit discovers `*Test.php` in the folders it is given.
            Framework::Phpunit => name.ends_with("Test.php"),
            Framework::Phpt => name.ends_with(".phpt"),
            Framework::Tcltest => name.ends_with(".test"),
            Framework::Mocha => super::mocha::carries(path),
            Framework::Minitest | Framework::Rspec => super::ruby::carries(self, path),
            Framework::Unittest => super::unittest::carries(path),
            Framework::Junit4 => super::junit::carries(path),
        }
    }
}

/// The text written for one canary pair: `pass` must pass, `fail` must fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairText {
    /// Appended to the file (Go: the whole new file, after its `package` line).
    pub text: String,
    /// For node:test, the ES-module variant (the script picks one by the file's syntax).
    pub esm: Option<String>,
}

/// The placeholder of a pytest canary for a name the module itself imports or defines
/// (the insertion program chooses one; `__name__` when it cannot).
pub const PYTEST_SUBJECT: &str = "__TASKC_SUBJECT__";

/// One pytest canary named `name`: compares `a` with `b` (equal: it must pass) through a
/// name of the module (so its body refers to the module like the file's own tests do).
pub fn pytest_canary(name: &str, a: u32, b: u32) -> String {
    format!(
        "def {name}():\n    subject = repr({PYTEST_SUBJECT})\n    assert len(subject) + {a} == len(subject) + {b}\n"
    )
}

/// Write a canary pair named `pass`/`fail`; `a != b` are the numbers the failing one
/// compares, with the framework's own assertion (so a no-op assertion is caught).
/// `fail_first` puts the failing one first where the order is the file's (pytest).
/// For the frameworks whose tests live in a class or `describe` block (`group.rs`), `tag`
/// is the block's name and `pass`/`fail` are its members' names.
pub fn pair(
    fw: Framework,
    pass: &str,
    fail: &str,
    (a, b): (u32, u32),
    tag: &str,
    fail_first: bool,
) -> PairText {
    match fw {
        Framework::Pytest => {
            let p = pytest_canary(pass, a, a);
            let f = pytest_canary(fail, a, b);
            let (x, y) = if fail_first { (f, p) } else { (p, f) };
            PairText {
                text: format!("\n\n{x}\n\n{y}"),
                esm: None,
            }
        }
        Framework::GoTest => PairText {
            text: format!(
                "import \"testing\"\n\nfunc {pass}(t *testing.T) {{\n\tif {a} != {a} {{\n\t\tt.Fatal(\"{a}\")\n\t}}\n}}\n\n\
                 func {fail}(t *testing.T) {{\n\tif {a} != {b} {{\n\t\tt.Fatalf(\"%d != %d\", {a}, {b})\n\t}}\n}}\n"
            ),
            esm: None,
        },
        Framework::NodeTest => PairText {
            text: format!(
                "\n;(function () {{\n  const {{ test }} = require('node:test');\n  const assert = require('node:assert');\n  \
                 test('{pass}', () => {{ assert.strictEqual({a}, {a}); }});\n  \
                 test('{fail}', () => {{ assert.strictEqual({a}, {b}); }});\n}})();\n"
            ),
            esm: Some(format!(
                "\nimport {{ test as t{tag} }} from 'node:test';\nimport a{tag} from 'node:assert';\n\
                 t{tag}('{pass}', () => {{ a{tag}.strictEqual({a}, {a}); }});\n\
                 t{tag}('{fail}', () => {{ a{tag}.strictEqual({a}, {b}); }});\n"
            )),
        },
        Framework::Jest => PairText {
            text: format!(
                "\ntest('{pass}', () => {{ expect({a}).toBe({a}); }});\ntest('{fail}', () => {{ expect({a}).toBe({b}); }});\n"
            ),
            esm: None,
        },
        Framework::Cargo => PairText {
            text: format!(
                "\n#[test]\nfn {pass}() {{\n    assert_eq!({a}u32, {a}u32);\n}}\n\n#[test]\nfn {fail}() {{\n    assert_eq!({a}u32, {b}u32);\n}}\n"
            ),
            esm: None,
        },
        Framework::Phpunit => PairText {
            text: super::php::phpunit_pair(pass, fail, (a, b), fail_first),
            esm: None,
        },
        Framework::Phpt => PairText {
            text: super::php::phpt_pair(pass, fail, (a, b)),
            esm: None,
        },
        Framework::Tcltest => PairText {
            text: super::tcl::pair(pass, fail, (a, b), fail_first),
            esm: None,
        },
        Framework::Junit4 => PairText {
            text: super::junit::pair(pass, fail, (a, b), fail_first),
            esm: None,
        },
        Framework::Mocha | Framework::Minitest | Framework::Rspec | Framework::Unittest => {
            PairText {
                text: super::group::pair(fw, tag, pass, fail, (a, b), fail_first),
                esm: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(parser: &str, command: &str) -> TestStep {
        TestStep {
            repo: "r".into(),
            workdir: "/work/r".into(),
            command: command.into(),
            parser: parser.parse().unwrap(),
            timeout_secs: 60,
            dropped: Vec::new(),
            select_template: None,
            select: None,
        }
    }

    #[test]
    fn frameworks_from_parser_and_command() {
        assert_eq!(
            Framework::of(&step("pytest", "python3 -m pytest")),
            Ok(Framework::Pytest)
        );
        assert_eq!(
            Framework::of(&step("tap", "node --test --test-reporter=tap")),
            Ok(Framework::NodeTest)
        );
        assert!(Framework::of(&step("tap", "prove -v t/")).is_err());
        assert_eq!(
            Framework::of(&step("junit-xml", "pytest --junitxml=/dev/stdout -q")),
            Ok(Framework::Pytest)
        );
        assert!(Framework::of(&step("junit-xml", "mvn test")).is_err());
        assert_eq!(
            Framework::of(&step("surefire", "mvn -B -o test")),
            Ok(Framework::Junit4)
        );
        assert_eq!(
            Framework::of(&step("surefire", "./mvnw -q test")),
            Ok(Framework::Junit4)
        );
        let why = Framework::of(&step("surefire", "make test")).unwrap_err();
        assert!(why.contains("runs no `mvn`"), "{why}");
        let why = Framework::of(&step("gradle", "gradle test")).unwrap_err();
        assert!(
            why.starts_with("none — ") && why.contains("gradle"),
            "{why}"
        );
    }

    #[test]
    fn commands_that_select_tests_by_name_get_no_canaries() {
        let p = Framework::Pytest;
        assert!(p.selection("python3 -m pytest -rA tests").is_none());
        assert!(p.selection("pytest tests/test_a.py::test_x").is_some());
        assert!(p.selection("pytest -k cookie tests").is_some());
        assert!(p
            .selection("python3 -m pytest -m 'not slow' tests")
            .is_some());
        assert!(Framework::GoTest.selection("go test -json ./...").is_none());
        assert!(Framework::GoTest
            .selection("go test -json -run TestX ./...")
            .is_some());
        assert!(Framework::Cargo
            .selection("cargo test -p core --features x")
            .is_none());
        assert!(Framework::Cargo.selection("cargo test parse_").is_some());
        assert!(Framework::Cargo
            .selection("cargo test -- --nocapture")
            .is_none());
        assert!(Framework::NodeTest
            .selection("node --test --test-name-pattern=retry")
            .is_some());
    }

    #[test]
    fn cargo_runs_every_test_target() {
        let c = Framework::Cargo;
        assert_eq!(
            c.runs_everything("cargo test").as_deref(),
            Some("cargo test --no-fail-fast")
        );
        assert_eq!(
            c.runs_everything("cd x && cargo +1.85 test --workspace -- --nocapture")
                .as_deref(),
            Some("cd x && cargo +1.85 test --no-fail-fast --workspace -- --nocapture")
        );
        assert_eq!(
            c.runs_everything("cargo nextest run --workspace")
                .as_deref(),
            Some("cargo nextest run --no-fail-fast --workspace")
        );
        assert_eq!(
            c.runs_everything("cargo build && /usr/bin/cargo test;cargo test -p b")
                .as_deref(),
            Some(
                "cargo build && /usr/bin/cargo test --no-fail-fast;cargo test --no-fail-fast -p b"
            )
        );
        assert_eq!(c.runs_everything("cargo test --no-fail-fast"), None);
        assert_eq!(c.runs_everything("make test"), None);
        assert_eq!(Framework::GoTest.runs_everything("go test ./..."), None);
    }

    #[test]
    fn test_files_per_framework() {
        assert!(Framework::Pytest.carries("tests/test_x.py"));
        assert!(Framework::Pytest.carries("pkg/x_test.py"));
        assert!(!Framework::Pytest.carries("tests/conftest.py"));
        assert!(Framework::GoTest.carries("retry_after_test.go"));
        assert!(!Framework::GoTest.carries("retry.go"));
        assert!(Framework::NodeTest.carries("test/retry.test.js"));
        assert!(Framework::NodeTest.carries("test/helpers.js"));
        assert!(!Framework::NodeTest.carries("lib/retry.js"));
        assert!(Framework::Jest.carries("src/jar.spec.ts"));
        assert!(!Framework::Jest.carries("src/jar.ts"));
        assert!(Framework::Cargo.carries("tests/cli.rs"));
        assert!(Framework::Cargo.carries("crates/core/tests/cli/main.rs"));
        assert!(Framework::Cargo.carries("src/parse/mod.rs"));
        assert!(!Framework::Cargo.carries("build.rs"));
        assert!(!Framework::Cargo.carries("tests/ui/missing_field.rs"));
        assert!(!Framework::Cargo.carries("tests/common/helpers.rs"));
        assert!(!Framework::Cargo.carries("examples/demo.rs"));
        assert!(!Framework::Cargo.carries("benches/speed.rs"));
    }
}
