//! The test-log parsers: a closed word of the language (`parser pytest`), and for each one
//! its [`Descriptor`], the one place that decides every capability taskc needs of a runner —
//! how a run is narrowed to chosen tests, which canary tests it runs, which files form its
//! test surface, how its version reaches the lock, where its results are read from, and
//! whether `taskc export harbor` grades it.
//!
//! [`LogParser::descriptor`] is an exhaustive `match` of struct literals: a new variant does
//! not compile until its descriptor is written, and a descriptor does not compile until
//! every field is decided. The runtime dispatches through the same enum (its parser
//! function, canary framework, tool version and result input), so a parser cannot be
//! half-added (ARCHITECTURE.md, "A new test-log parser").

use serde::{Deserialize, Serialize};
use taskc_stdlib::surface;

use crate::words::words;

/// A test-log parser a `test { parser … }` names; serialised (plans, locks, reports) as its
/// word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogParser {
    /// bun test's JUnit report (`bun test --reporter=junit --reporter-outfile "$TASKC_REPORT"`).
    Bun,
    /// `cargo test` (libtest's plain output) and `cargo nextest`.
    Cargo,
    /// `dart test --reporter json` and `flutter test --machine` (the JSON event protocol).
    DartJson,
    /// `dotnet test --logger "trx;LogFileName=$TASKC_REPORT"` (Visual Studio's TRX report).
    DotnetTrx,
    /// A plain test script scored by its exit status: one test, `exit-status`, passed iff the
    /// command exits 0, the status the harness records (never anything the command prints).
    ExitStatus,
    /// `go test -json`.
    GoTestJson,
    /// gradle's JUnit XML test results (`build/test-results/test/TEST-*.xml`), collected into `$TASKC_REPORT`.
    Gradle,
    /// `jest --json`.
    JestJson,
    /// JUnit XML on the log stream (`pytest --junitxml=/dev/stdout`, `go-junit-report`).
    JunitXml,
    /// minitest's `-v` output.
    Minitest,
    /// mocha's `--reporter json`.
    MochaJson,
    /// php's `run-tests.php` output (`.phpt` tests).
    Phpt,
    /// phpunit's and pest's `--log-junit` report.
    PhpunitJunit,
    /// playwright's JSON reporter (`PLAYWRIGHT_JSON_OUTPUT_NAME="$TASKC_REPORT" playwright test --reporter=json`).
    PlaywrightJson,
    /// pytest's `-rA` summary.
    Pytest,
    /// rspec's `--format json`.
    RspecJson,
    /// Maven surefire's XML reports (`target/surefire-reports/TEST-*.xml`), collected into `$TASKC_REPORT`.
    Surefire,
    /// TAP 13/14 (`node --test`, `prove`, `tap`).
    Tap,
    /// tcl's tcltest (`-verbose ps` output of `tclsh all.tcl`) and redis' `runtest`.
    Tcltest,
    /// Python's unittest `-v` (and Django's test runner at `--verbosity 2`).
    Unittest,
    /// vitest's JSON report (`vitest run --reporter=json --outputFile="$TASKC_REPORT"`).
    Vitest,
}

words!(LogParser {
    Bun => "bun",
    Cargo => "cargo",
    DartJson => "dart-json",
    DotnetTrx => "dotnet-trx",
    ExitStatus => "exit-status",
    GoTestJson => "go-test-json",
    Gradle => "gradle",
    JestJson => "jest-json",
    JunitXml => "junit-xml",
    Minitest => "minitest",
    MochaJson => "mocha-json",
    Phpt => "phpt",
    PhpunitJunit => "phpunit-junit",
    PlaywrightJson => "playwright-json",
    Pytest => "pytest",
    RspecJson => "rspec-json",
    Surefire => "surefire",
    Tap => "tap",
    Tcltest => "tcltest",
    Unittest => "unittest",
    Vitest => "vitest",
});

impl LogParser {
    /// Every parser, in the order of [`LogParser::WORDS`] (sorted by word).
    pub const ALL: &'static [LogParser] = &[
        LogParser::Bun,
        LogParser::Cargo,
        LogParser::DartJson,
        LogParser::DotnetTrx,
        LogParser::ExitStatus,
        LogParser::GoTestJson,
        LogParser::Gradle,
        LogParser::JestJson,
        LogParser::JunitXml,
        LogParser::Minitest,
        LogParser::MochaJson,
        LogParser::Phpt,
        LogParser::PhpunitJunit,
        LogParser::PlaywrightJson,
        LogParser::Pytest,
        LogParser::RspecJson,
        LogParser::Surefire,
        LogParser::Tap,
        LogParser::Tcltest,
        LogParser::Unittest,
        LogParser::Vitest,
    ];

    /// Everything taskc knows about this parser's runner. Each arm is a full struct
    /// literal: adding a field or a variant fails to compile until every parser decides it
    /// (no wildcard arm: clippy's `wildcard_enum_match_arm` is denied here).
    ///
    /// A descriptor that decides every capability compiles:
    ///
    /// ```
    /// use taskc_compiler::parser::{Canaries, Descriptor, Export, Input, Narrowing, ToolVersion};
    /// let _ = Descriptor {
    ///     narrowing: Narrowing::Template { why: "no filter" },
    ///     canaries: Canaries::None { why: "no framework" },
    ///     surface: &["tests/**"],
    ///     version: ToolVersion::NotReported,
    ///     input: Input::Log,
    ///     export: Export::Supported,
    /// };
    /// ```
    ///
    /// The same descriptor with one capability left undecided (here `export`) does not
    /// (E0063, missing field), and there is no `Default` to fill it from:
    ///
    /// ```compile_fail,E0063
    /// use taskc_compiler::parser::{Canaries, Descriptor, Input, Narrowing, ToolVersion};
    /// let _ = Descriptor {
    ///     narrowing: Narrowing::Template { why: "no filter" },
    ///     canaries: Canaries::None { why: "no framework" },
    ///     surface: &["tests/**"],
    ///     version: ToolVersion::NotReported,
    ///     input: Input::Log,
    /// };
    /// ```
    ///
    /// ```compile_fail,E0599
    /// use taskc_compiler::parser::Descriptor;
    /// let _ = Descriptor::default();
    /// ```
    #[deny(clippy::wildcard_enum_match_arm)]
    pub fn descriptor(self) -> Descriptor {
        match self {
            LogParser::Bun => Descriptor {
                narrowing: Narrowing::Arguments(Selector::BunName),
                canaries: Canaries::None {
                    why: "taskc writes no bun canary tests: bun is not packaged in Debian, so none could be proven by a real run here",
                },
                surface: surface::BUN,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "bun.xml" },
                export: Export::Supported,
            },
            LogParser::Cargo => Descriptor {
                narrowing: Narrowing::Template {
                    why: "a cargo test command is narrowed only by its own arguments (a filter after `--`)",
                },
                canaries: Canaries::Always(CanaryFramework::Cargo),
                surface: surface::CARGO,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::DartJson => Descriptor {
                narrowing: Narrowing::Arguments(Selector::DartName),
                canaries: Canaries::None {
                    why: "taskc writes no dart or flutter canary tests: neither is packaged in Debian, so none could be proven by a real run here",
                },
                surface: surface::DART,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::DotnetTrx => Descriptor {
                narrowing: Narrowing::Arguments(Selector::DotnetFilter),
                canaries: Canaries::None {
                    why: "taskc writes no .NET canary tests: a canary needs a test project to build into, and .NET is not packaged in Debian to prove one here",
                },
                surface: surface::DOTNET,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "report.trx" },
                export: Export::Supported,
            },
            LogParser::ExitStatus => Descriptor {
                narrowing: Narrowing::Template {
                    why: "an exit-status run is one test, `exit-status`: it runs whole or not at all",
                },
                canaries: Canaries::None {
                    why: "an exit-status run's one result is its exit status: there is no test beside which to place a canary, so nothing shows that code the command runs did not end it early with status 0 (docs/security.md, \"Exit-status runs\")",
                },
                surface: surface::EXIT_STATUS,
                version: ToolVersion::NotReported,
                input: Input::ExitStatus,
                export: Export::Supported,
            },
            LogParser::GoTestJson => Descriptor {
                narrowing: Narrowing::GoRun,
                canaries: Canaries::Always(CanaryFramework::GoTest),
                surface: surface::GO,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Gradle => Descriptor {
                narrowing: Narrowing::Arguments(Selector::GradleTests),
                canaries: Canaries::None {
                    why: "taskc writes no gradle canary tests: gradle is not packaged in Debian and cannot fetch its plugins \
                          offline, so canaries compiled into its test source set could not be proven by a real run here",
                },
                surface: surface::JVM,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "gradle.xml" },
                export: Export::Supported,
            },
            LogParser::JestJson => Descriptor {
                narrowing: Narrowing::Template {
                    why: "a jest name filter (`--testNamePattern`) would also drop the canaries taskc places \
                          at run time",
                },
                canaries: Canaries::Always(CanaryFramework::Jest),
                surface: surface::NODE,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::JunitXml => Descriptor {
                narrowing: Narrowing::Template {
                    why: "a JUnit XML producer has no common way to select tests",
                },
                canaries: Canaries::ByCommand {
                    rules: &[
                        (&["pytest"], CanaryFramework::Pytest),
                        (&["go", "gotestsum", "go-junit-report"], CanaryFramework::GoTest),
                    ],
                    otherwise: "the `junit-xml` parser's framework is not known from the command (neither pytest nor go): \
                                taskc cannot write canaries for it",
                },
                surface: surface::JUNIT,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Minitest => Descriptor {
                narrowing: Narrowing::Template {
                    why: "minitest selects tests with `-n /pattern/`, which taskc does not write yet: \
                          narrow with a `select` template",
                },
                canaries: Canaries::Always(CanaryFramework::Minitest),
                surface: surface::RUBY,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::MochaJson => Descriptor {
                narrowing: Narrowing::Arguments(Selector::MochaGrep),
                canaries: Canaries::Always(CanaryFramework::Mocha),
                surface: surface::NODE,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Phpt => Descriptor {
                narrowing: Narrowing::Template {
                    why: "run-tests.php runs the `.phpt` files and folders its arguments name, so narrowing \
                          replaces the command's folder argument: write `select \"php run-tests.php -q {ids}\"` \
                          (ids are those file paths)",
                },
                canaries: Canaries::Always(CanaryFramework::Phpt),
                surface: surface::PHPT,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::PhpunitJunit => Descriptor {
                narrowing: Narrowing::Arguments(Selector::PhpunitFilter),
                canaries: Canaries::ByCommand {
                    rules: &[(&["phpunit"], CanaryFramework::Phpunit)],
                    otherwise: "the command does not run `phpunit`: taskc writes canary methods into phpunit's test classes only \
                                (pest's test files are closures, and pest cannot run here to prove canaries written for it)",
                },
                surface: surface::PHPUNIT,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::PlaywrightJson => Descriptor {
                narrowing: Narrowing::Arguments(Selector::PlaywrightGrep),
                canaries: Canaries::None {
                    why: "taskc writes no playwright canary tests: they need a browser project, which cannot run here to prove one",
                },
                surface: surface::PLAYWRIGHT,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "playwright.json" },
                export: Export::Supported,
            },
            LogParser::Pytest => Descriptor {
                narrowing: Narrowing::PytestPlugin,
                canaries: Canaries::Always(CanaryFramework::Pytest),
                surface: surface::PYTEST,
                version: ToolVersion::PytestPlatformLine,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::RspecJson => Descriptor {
                narrowing: Narrowing::Template {
                    why: "rspec selects examples with `-e`, which taskc does not write yet: \
                          narrow with a `select` template",
                },
                canaries: Canaries::Always(CanaryFramework::Rspec),
                surface: surface::RUBY,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Surefire => Descriptor {
                narrowing: Narrowing::Arguments(Selector::SurefireTest),
                canaries: Canaries::ByCommand {
                    rules: &[(&["mvn", "mvnw"], CanaryFramework::Junit4)],
                    otherwise: "the command runs no `mvn`: taskc writes JUnit 4 canary methods into the hidden test classes \
                                that maven compiles and surefire runs, and knows no other build that would compile them",
                },
                surface: surface::JVM,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "surefire.xml" },
                export: Export::Supported,
            },
            LogParser::Tap => Descriptor {
                narrowing: Narrowing::Template {
                    why: "a TAP producer has no common way to select tests",
                },
                canaries: Canaries::ByCommand {
                    rules: &[(&["node"], CanaryFramework::NodeTest)],
                    otherwise: "the `tap` parser's producer is not `node --test` (the command does not run `node`): \
                                taskc cannot write canaries for an unknown TAP producer",
                },
                surface: surface::NODE,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Tcltest => Descriptor {
                narrowing: Narrowing::Arguments(Selector::TclMatch),
                canaries: Canaries::ByCommand {
                    rules: &[(&["tclsh", "tclsh8", "tclsh9", "tcl"], CanaryFramework::Tcltest)],
                    otherwise: "the command runs no `tclsh` (redis' `runtest` has its own harness, `test \"name\" {…}` \
                                inside `start_server` blocks): taskc writes canaries for tcltest's `test` command only",
                },
                surface: surface::TCL,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Unittest => Descriptor {
                narrowing: Narrowing::Template {
                    why: "unittest and Django's runner take dotted test names as arguments, which taskc \
                          does not write yet: narrow with a `select` template",
                },
                canaries: Canaries::ByCommand {
                    rules: &[(&["unittest"], CanaryFramework::Unittest)],
                    otherwise: "the `unittest` parser's runner is not `python -m unittest` (the command does not \
                                name `unittest`: Django's `manage.py test` / `runtests.py`, a script calling \
                                `unittest.main()`): taskc writes canaries only where unittest's own discovery \
                                loads the hidden test modules",
                },
                surface: surface::UNITTEST,
                version: ToolVersion::NotReported,
                input: Input::Log,
                export: Export::Supported,
            },
            LogParser::Vitest => Descriptor {
                narrowing: Narrowing::Arguments(Selector::VitestName),
                canaries: Canaries::None {
                    why: "taskc writes no vitest canary tests: vitest is not packaged in Debian, so none could be proven by a real run here",
                },
                surface: surface::NODE,
                version: ToolVersion::NotReported,
                input: Input::ReportFile { file_name: "vitest.json" },
                export: Export::Supported,
            },
        }
    }

    /// Whether a run of this parser with test command `command` is narrowed by taskc
    /// itself, or why only a `select` template can narrow it.
    pub fn narrowable(self, command: &str) -> Result<(), String> {
        match self.descriptor().narrowing {
            Narrowing::PytestPlugin | Narrowing::GoRun => Ok(()),
            Narrowing::Arguments(selector) => {
                crate::lower::locate_invocation(command, selector).map(|_| ())
            }
            Narrowing::Template { why } => Err(why.to_string()),
        }
    }

    /// Whether taskc narrows this parser's runs through the environment, whatever the
    /// command (a `select` template is then never needed).
    pub fn narrows_through_environment(self) -> bool {
        matches!(
            self.descriptor().narrowing,
            Narrowing::PytestPlugin | Narrowing::GoRun
        )
    }
}

/// Every capability of one parser's runner (see [`LogParser::descriptor`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    /// How a verification run is narrowed to chosen test ids.
    pub narrowing: Narrowing,
    /// Which canary tests taskc writes for it, or why none.
    pub canaries: Canaries,
    /// Its test surface (`taskc_stdlib::surface`): runner hooks, configuration and test
    /// files reverted to base before the hidden tests are applied (with `surface::COMMON`).
    pub surface: &'static [&'static str],
    /// How the runner's version is read for the lock (`tool` of a run's results).
    pub version: ToolVersion,
    /// Where the results are read from.
    pub input: Input,
    /// Whether `taskc export harbor` grades it.
    pub export: Export,
}

/// How taskc narrows a run to chosen test ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrowing {
    /// A pytest plugin keeps exactly the listed node ids (`TASKC_SELECT`).
    PytestPlugin,
    /// `-run` patterns through `GOFLAGS`, one anchored alternative per test path.
    GoRun,
    /// The runner's own documented selection arguments, built from the ids by taskc
    /// (`lower::selector_arguments`) and appended to the one simple command of the test
    /// command that invokes the runner (`lower::insert_arguments`); a command where that
    /// invocation is not found exactly once (or that uses command substitution, subshells
    /// or here-documents) needs a `select` template, and the plan says why.
    Arguments(Selector),
    /// taskc cannot: only a spec's `select "… {ids} …"` template narrows it; `why` is said
    /// in the plan's `full_suite` notes.
    Template { why: &'static str },
}

/// A runner's documented way to select tests by name on its command line (see
/// [`Narrowing::Arguments`]). Each selects *at least* the given ids (a name pattern can
/// match a same-named test elsewhere): a narrowed run is read like a `select` template's,
/// so a selected test missing from it is no evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    /// tcltest: `-match` with a Tcl list of the test names, each a `string match` pattern
    /// escaped to match only itself (`tclsh all.tcl` passes its arguments to `configure`).
    TclMatch,
    /// phpunit and pest: `--filter` with an anchored PCRE of the ids (`Class::method`,
    /// data sets included), which phpunit uses as it is since it is a valid pattern.
    PhpunitFilter,
    /// mocha: `--grep` with an anchored regular expression of the full titles (mocha makes a
    /// `RegExp` of the string and matches it against `fullTitle()`).
    MochaGrep,
    /// vitest: `-t` (`--testNamePattern`) with an anchored regular expression of the full
    /// names (describe blocks and title joined by spaces).
    VitestName,
    /// bun: `-t` (`--test-name-pattern`), the same over bun's full names.
    BunName,
    /// playwright: `-g` (`--grep`), a regular expression over each test's title path
    /// (project, file, describe blocks, title joined by spaces), matched at its end.
    PlaywrightGrep,
    /// dart and flutter: `--name` (`-n`), an anchored regular expression of the full names.
    DartName,
    /// dotnet test: `--filter` with `FullyQualifiedName=` alternatives (`|`), the
    /// filter's special characters escaped with `\`.
    DotnetFilter,
    /// Maven surefire: `-Dtest=Class#m1+m2,Other#m` (methods of one class joined by `+`)
    /// and `-Dsurefire.failIfNoSpecifiedTests=false` (a module without them is no error).
    SurefireTest,
    /// gradle: one `--tests Class.method` per test.
    GradleTests,
}

impl Selector {
    /// The runner's program names (a word's last path component, after `npx`, `yarn`,
    /// `pnpm` or `bunx`) and the sub-command that must follow it, if any.
    pub fn programs(self) -> &'static [(&'static str, Option<&'static str>)] {
        match self {
            Selector::TclMatch => &[("tclsh", None), ("tclsh8.6", None), ("tclsh9.0", None)],
            Selector::PhpunitFilter => &[("phpunit", None), ("pest", None)],
            Selector::MochaGrep => &[("mocha", None), ("_mocha", None)],
            Selector::VitestName => &[("vitest", None)],
            Selector::BunName => &[("bun", Some("test"))],
            Selector::PlaywrightGrep => &[("playwright", Some("test"))],
            Selector::DartName => &[("dart", Some("test")), ("flutter", Some("test"))],
            Selector::DotnetFilter => &[("dotnet", Some("test"))],
            Selector::SurefireTest => &[("mvn", None), ("mvnw", None)],
            Selector::GradleTests => &[("gradle", None), ("gradlew", None)],
        }
    }
}

/// The frameworks taskc writes canary tests for (the runtime's `canary::Framework`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CanaryFramework {
    Pytest,
    GoTest,
    NodeTest,
    Jest,
    Cargo,
    /// phpunit 9's test classes (`*Test.php`).
    Phpunit,
    /// php's run-tests.php (`.phpt` files).
    Phpt,
    /// tcl's tcltest (`test` commands in `*.test` files).
    Tcltest,
    /// mocha's `describe`/`it` (BDD interface) appended to a hidden spec file.
    Mocha,
    /// A `Minitest::Test` subclass appended to a hidden `*_test.rb` / `test_*.rb`.
    Minitest,
    /// An `RSpec.describe` block appended to a hidden `*_spec.rb`.
    Rspec,
    /// A `unittest.TestCase` subclass appended to a hidden `test*.py` (`python -m unittest`).
    Unittest,
    /// Two JUnit 4 `@Test` methods written into the class of a hidden `*Test.java` (maven's
    /// surefire).
    Junit4,
}

/// Which canary tests a parser's runs carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Canaries {
    /// Always this framework.
    Always(CanaryFramework),
    /// The framework of the first rule one of whose words the test command holds (a word:
    /// a run of letters, digits, `-` and `_`); none holds one: `otherwise` says why no
    /// canaries are placed (printed by `verify`).
    ByCommand {
        rules: &'static [(&'static [&'static str], CanaryFramework)],
        otherwise: &'static str,
    },
    /// taskc writes no canaries for this runner; `why` is printed by `verify`.
    None { why: &'static str },
}

impl Canaries {
    /// The framework for test command `command`, or why canaries cannot be placed.
    pub fn framework(self, command: &str) -> Result<CanaryFramework, &'static str> {
        let has = |w: &str| {
            command
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .any(|t| t == w)
        };
        match self {
            Canaries::Always(f) => Ok(f),
            Canaries::ByCommand { rules, otherwise } => rules
                .iter()
                .find(|(words, _)| words.iter().any(|w| has(w)))
                .map(|(_, f)| *f)
                .ok_or(otherwise),
            Canaries::None { why } => Err(why),
        }
    }
}

/// How the runner's version is read for the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolVersion {
    /// pytest's header `platform linux -- Python 3.11.2, pytest-8.3.3, pluggy-1.5.0`: the
    /// part after `-- `.
    PytestPlatformLine,
    /// The runner prints no version taskc reads; the lock records none.
    NotReported,
}

/// Where a parser reads a run's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// The test command's output stream (stdout and stderr together), as the backend
    /// received it.
    Log,
    /// A structured report the runner writes to a file: the run script exports
    /// [`REPORT_ENV`] holding a fresh path in a folder with a per-run random name, the test
    /// command passes it to the runner (`--log-junit "$TASKC_REPORT"`), and the harness
    /// collects the file after the tests ended. The test process can read the variable
    /// and rewrite the file, so a report is trusted no more than the log stream;
    /// `file_name` is the report's name in that folder (its extension tells the runner the
    /// format where it guesses from it).
    ReportFile { file_name: &'static str },
    /// The test command's exit status as the harness records it after the command ended
    /// (root-only, beside the run's other records): what the command prints is never read,
    /// so no output can make a run pass; the exit status itself is the command's to choose.
    ExitStatus,
}

/// The environment variable holding the report path of an [`Input::ReportFile`] parser.
pub const REPORT_ENV: &str = "TASKC_REPORT";

/// Whether `taskc export harbor` grades a parser's runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    Supported,
    Unsupported { why: &'static str },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_word_once_in_order() {
        let words: Vec<&str> = LogParser::ALL.iter().map(|p| p.as_str()).collect();
        assert_eq!(words, LogParser::WORDS);
        assert!(LogParser::WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn every_parser_is_fully_described() {
        for p in LogParser::ALL {
            let d = p.descriptor();
            assert!(!d.surface.is_empty(), "parser `{p}` has no test surface");
            let why = match d.narrowing {
                Narrowing::Template { why } => why,
                _ => "native",
            };
            assert!(
                !why.is_empty(),
                "parser `{p}` says not why it cannot narrow"
            );
            if let Canaries::None { why } | Canaries::ByCommand { otherwise: why, .. } = d.canaries
            {
                assert!(
                    !why.is_empty(),
                    "parser `{p}` says not why it has no canaries"
                );
            }
            if let Input::ReportFile { file_name } = d.input {
                assert!(
                    !file_name.is_empty() && !file_name.contains('/'),
                    "parser `{p}`: a report file name is one path segment"
                );
            }
        }
    }

    #[test]
    fn canary_frameworks_follow_the_command_where_the_parser_is_shared() {
        let tap = LogParser::Tap.descriptor().canaries;
        assert_eq!(tap.framework("node --test"), Ok(CanaryFramework::NodeTest));
        assert!(tap.framework("prove -v t/").is_err());
        let junit = LogParser::JunitXml.descriptor().canaries;
        assert_eq!(
            junit.framework("python3 -m pytest --junitxml=/dev/stdout"),
            Ok(CanaryFramework::Pytest)
        );
        assert_eq!(
            junit.framework("go test ./... | go-junit-report"),
            Ok(CanaryFramework::GoTest)
        );
        assert!(junit.framework("mvn test").is_err());
        let phpunit = LogParser::PhpunitJunit.descriptor().canaries;
        assert_eq!(
            phpunit.framework("vendor/bin/phpunit --log-junit php://stdout tests"),
            Ok(CanaryFramework::Phpunit)
        );
        assert!(phpunit.framework("vendor/bin/pest --log-junit x").is_err());
        let tcl = LogParser::Tcltest.descriptor().canaries;
        assert_eq!(
            tcl.framework("tclsh8.6 tests/all.tcl -verbose ps"),
            Ok(CanaryFramework::Tcltest)
        );
        assert!(tcl.framework("./runtest --single unit/type/list").is_err());
        let unittest = LogParser::Unittest.descriptor().canaries;
        assert_eq!(
            unittest.framework("python3 -m unittest discover -s tests -v"),
            Ok(CanaryFramework::Unittest)
        );
        assert!(unittest
            .framework("python3 tests/runtests.py --verbosity 2")
            .is_err());
        assert!(unittest.framework("python3 manage.py test -v 2").is_err());
    }
}
