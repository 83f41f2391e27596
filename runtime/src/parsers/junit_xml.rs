//! JUnit XML reports: pytest's `--junitxml`, Maven surefire, jest-junit,
//! go-junit-report and the like.
//!
//! Text before, between and after reports is ignored: every `<testsuites>` or
//! `<testsuite>` element in the log is read.
//!
//! **Ids.** For pytest reports (a `<testsuite name="pytest">`, or a `file`
//! attribute ending in `.py`) the dotted `classname` is turned back into a node
//! id: `classname="tests.test_jar.TestJar" name="test_set[a b]"` →
//! `tests/test_jar.py::TestJar::test_set[a b]`. With a `file` attribute
//! (xunit1) the module part is taken from it; otherwise the class part starts at
//! the first component that begins with an upper-case letter (Python's naming
//! convention; a module named in upper case would be misread). For other
//! reports the id is `classname::name` (`com.example.JarTest::setsCookie`), with
//! `file::` in front when the testcase has a `file` attribute, or `name` alone
//! when there is no classname.
//!
//! **Outcomes.** A `<failure>` child → failed, `<error>` → error, `<skipped>`
//! → skipped, except pytest's `<skipped type="pytest.xfail">` → failed (the test
//! body failed, as expected: as the pytest parser counts XFAIL); no such child → passed. Surefire's
//! `<rerunFailure>`/`<flakyFailure>` (a retried test) do not count.
//!
//! **Complete** when every report element that starts also ends; XML broken in
//! the middle or cut off makes the log incomplete (with a warning saying where).
//!
//! **Tampering.** Except in pytest reports (where a test failing in its body and
//! in its teardown is written as two `<testcase>`s but counted once), a
//! `<testsuite>`/`<testsuites>` whose `tests` attribute differs from the number of
//! `<testcase>`s it holds, or whose `failures` + `errors` exceed the failing and
//! erroring testcases it holds, was rewritten: every generator of this list
//! (surefire, gradle, jest-junit, vitest, phpunit, pest, playwright, dotnet's junit
//! logger) writes the counts from the same results as the testcases. (A suite
//! holding no testcase is exempt from the second check: jest-junit counts a test
//! file that failed to load as an error without a testcase.)

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::lines::line_number;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses every JUnit XML report in `log`.
pub fn parse(log: &[u8]) -> ParsedLog {
    parse_flavored(log, Flavor::Generic)
}

/// Whose naming convention the ids follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// `classname::name` (`file::` in front when given), pytest node ids for pytest reports.
    Generic,
    /// phpunit's and pest's `Class\Name::method with data set "x"` (what `--filter` matches).
    Phpunit,
    /// surefire's and gradle's `classname::name`, never pytest ids; a suite's `skipped`
    /// count must match its skipped testcases too.
    Jvm,
    /// bun's `<file>::<describe> > <test>`, from the nested `<testsuite>` names.
    Bun,
}

/// Parses every JUnit XML report in `log`, forming ids the way `flavor` says.
pub(crate) fn parse_flavored(log: &[u8], flavor: Flavor) -> ParsedLog {
    let text = String::from_utf8_lossy(log);
    let mut parsed = ParsedLog::new();
    let mut pos = 0;
    let mut reports = 0;
    while let Some(start) = next_report(&text, pos) {
        reports += 1;
        match read_report(&text[start..], flavor, &mut parsed) {
            Ok(len) => pos = start + len.max(1),
            Err(problem) => {
                parsed.complete = false;
                let at = start + problem.offset;
                parsed.warn(format!(
                    "JUnit XML report broken at line {}: {}; results after it are missing",
                    line_number(text.as_bytes(), at),
                    problem.message
                ));
                break;
            }
        }
    }
    if reports == 0 {
        parsed.complete = false;
        parsed.warn("no JUnit XML report (`<testsuites>` or `<testsuite>`) in the log");
    }
    parsed.finish();
    parsed
}

/// The next `<testsuites` / `<testsuite` tag at or after `from`.
fn next_report(text: &str, from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let found = at + text.get(at..)?.find("<testsuite")?;
        let after = text.as_bytes().get(found + "<testsuite".len()).copied();
        if matches!(
            after,
            Some(b's' | b' ' | b'>' | b'\t' | b'\n' | b'\r' | b'/')
        ) {
            return Some(found);
        }
        at = found + 1;
    }
}

struct Problem {
    offset: usize,
    message: String,
}

/// The testcase being read.
struct Case {
    id: String,
    outcome: Outcome,
}

/// A `<testsuite>`/`<testsuites>` being read: what it declares and what it holds.
struct Suite {
    name: String,
    /// A `<testsuite>` (not the `<testsuites>` wrapper).
    inner: bool,
    declared_tests: Option<usize>,
    declared_bad: Option<usize>,
    declared_skipped: Option<usize>,
    cases: usize,
    bad: usize,
    skipped: usize,
}

/// The state of one report element being read.
struct Report<'p> {
    flavor: Flavor,
    pytest: bool,
    case: Option<Case>,
    suites: Vec<Suite>,
    parsed: &'p mut ParsedLog,
}

/// Reads one report element starting at the beginning of `xml`; returns its
/// length in bytes.
fn read_report(xml: &str, flavor: Flavor, parsed: &mut ParsedLog) -> Result<usize, Problem> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    let mut report = Report {
        flavor,
        pytest: false,
        case: None,
        suites: Vec::new(),
        parsed,
    };
    loop {
        let event = reader.read_event().map_err(|err| Problem {
            offset: usize::try_from(reader.error_position()).unwrap_or(0),
            message: err.to_string(),
        })?;
        let offset = || usize::try_from(reader.buffer_position()).unwrap_or(xml.len());
        match event {
            Event::Start(tag) => {
                depth += 1;
                report.open(&tag);
            }
            Event::Empty(tag) => {
                report.open(&tag);
                report.close(tag.local_name().as_ref());
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                report.close(tag.local_name().as_ref());
                if depth == 0 {
                    return Ok(offset());
                }
            }
            Event::Eof => {
                return Err(Problem {
                    offset: xml.len(),
                    message: "the report is cut off (the log ends inside it)".into(),
                })
            }
            _ => {}
        }
        if depth == 0 {
            // A self-closing `<testsuite/>` is a whole (empty) report.
            return Ok(offset());
        }
    }
}

/// A count attribute (`tests="12"`); absent or not a number → `None`.
fn count(tag: &BytesStart<'_>, key: &[u8]) -> Option<usize> {
    attr(tag, key).and_then(|v| v.trim().parse().ok())
}

impl Report<'_> {
    fn open(&mut self, tag: &BytesStart<'_>) {
        match tag.local_name().as_ref() {
            name @ (b"testsuite" | b"testsuites") => {
                if self.flavor == Flavor::Generic
                    && name == b"testsuite"
                    && attr(tag, b"name").as_deref() == Some("pytest")
                {
                    self.pytest = true;
                }
                let failures = count(tag, b"failures");
                let errors = count(tag, b"errors");
                self.suites.push(Suite {
                    name: attr(tag, b"name").unwrap_or_default(),
                    inner: name == b"testsuite",
                    declared_tests: count(tag, b"tests"),
                    declared_skipped: count(tag, b"skipped"),
                    skipped: 0,
                    declared_bad: match (failures, errors) {
                        (None, None) => None,
                        (f, e) => Some(f.unwrap_or(0) + e.unwrap_or(0)),
                    },
                    cases: 0,
                    bad: 0,
                });
            }
            b"testcase" => {
                self.finish_case();
                let name = attr(tag, b"name").unwrap_or_default();
                let classname = attr(tag, b"classname").unwrap_or_default();
                let file = attr(tag, b"file");
                if self.flavor == Flavor::Generic
                    && file.as_deref().is_some_and(|f| f.ends_with(".py"))
                {
                    self.pytest = true;
                }
                let id = match self.flavor {
                    Flavor::Phpunit => phpunit_id(
                        attr(tag, b"class").as_deref(),
                        &classname,
                        file.as_deref(),
                        &name,
                    ),
                    Flavor::Generic if self.pytest => pytest_id(&classname, file.as_deref(), &name),
                    Flavor::Generic => generic_id(&classname, file.as_deref(), &name),
                    Flavor::Jvm => generic_id(&classname, None, &name),
                    Flavor::Bun => bun_id(&self.suites, file.as_deref(), &name),
                };
                self.case = Some(Case {
                    id,
                    outcome: Outcome::Passed,
                });
            }
            child => {
                let Some(open) = self.case.as_mut() else {
                    return;
                };
                let outcome = match child {
                    b"failure" => Outcome::Failed,
                    b"error" => Outcome::Error,
                    // phpunit: a warning (a broken data provider, a deprecated call
                    // with failOnWarning) means the test did not pass cleanly.
                    b"warning" if self.flavor == Flavor::Phpunit => Outcome::Error,
                    b"skipped" if attr(tag, b"type").as_deref() == Some("pytest.xfail") => {
                        Outcome::Failed
                    }
                    b"skipped" => Outcome::Skipped,
                    _ => return,
                };
                open.outcome = open.outcome.max(outcome);
            }
        }
    }

    fn close(&mut self, name: &[u8]) {
        match name {
            b"testcase" => self.finish_case(),
            b"testsuite" | b"testsuites" => {
                self.finish_case();
                if let Some(suite) = self.suites.pop() {
                    self.check(&suite);
                }
            }
            _ => {}
        }
    }

    fn finish_case(&mut self) {
        if let Some(done) = self.case.take() {
            let bad = matches!(done.outcome, Outcome::Failed | Outcome::Error);
            let skipped = done.outcome == Outcome::Skipped;
            for suite in &mut self.suites {
                suite.cases += 1;
                suite.bad += usize::from(bad);
                suite.skipped += usize::from(skipped);
            }
            self.parsed.record(done.id, done.outcome);
        }
    }

    /// Compares a suite's declared counts with the testcases it held.
    fn check(&mut self, suite: &Suite) {
        if self.pytest {
            return;
        }
        if let Some(declared) = suite.declared_tests {
            if declared != suite.cases {
                self.parsed.tampered(format!(
                    "JUnit suite `{}` declares tests=\"{declared}\" but holds {} testcase(s)",
                    suite.name, suite.cases
                ));
            }
        }
        if let Some(declared) = suite.declared_bad {
            if suite.cases > 0 && declared > suite.bad {
                self.parsed.tampered(format!(
                    "JUnit suite `{}` declares {declared} failure(s) and error(s) but holds {} failing or erroring testcase(s)",
                    suite.name, suite.bad
                ));
            }
        }
        if let (Flavor::Jvm, Some(declared)) = (self.flavor, suite.declared_skipped) {
            if declared != suite.skipped {
                self.parsed.tampered(format!(
                    "JUnit suite `{}` declares skipped=\"{declared}\" but holds {} skipped testcase(s)",
                    suite.name, suite.skipped
                ));
            }
        }
    }
}

fn attr(tag: &BytesStart<'_>, key: &[u8]) -> Option<String> {
    tag.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .map(|a| match a.unescape_value() {
            Ok(value) => value.into_owned(),
            Err(_) => String::from_utf8_lossy(&a.value).into_owned(),
        })
}

/// `tests.test_jar.TestJar` + `test_set` → `tests/test_jar.py::TestJar::test_set`.
fn pytest_id(classname: &str, file: Option<&str>, name: &str) -> String {
    let parts: Vec<&str> = classname.split('.').filter(|p| !p.is_empty()).collect();
    let (path, classes) = match file {
        Some(file) => {
            let module_len = file.trim_end_matches(".py").split(['/', '\\']).count();
            (
                file.replace('\\', "/"),
                parts.get(module_len..).unwrap_or(&[]).to_vec(),
            )
        }
        None => {
            let split = parts
                .iter()
                .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
                .unwrap_or(parts.len());
            (
                format!("{}.py", parts[..split].join("/")),
                parts[split..].to_vec(),
            )
        }
    };
    let mut id = path;
    for class in classes {
        id.push_str("::");
        id.push_str(class);
    }
    id.push_str("::");
    id.push_str(name);
    id
}

/// phpunit/pest: `class="Jar\Tests\PathTest"` + `testX with data set #0` →
/// `Jar\Tests\PathTest::testX with data set #0`; without `class`, the dotted
/// `classname` with `\` for dots; without either, the `file` (pest writes
/// `file="tests/Unit/ExampleTest.php::it works"`, which is used whole when it ends with the name).
fn phpunit_id(class: Option<&str>, classname: &str, file: Option<&str>, name: &str) -> String {
    let class = match class.filter(|c| !c.is_empty()) {
        Some(class) => class.to_string(),
        None => classname.replace('.', "\\"),
    };
    if class.is_empty() {
        if let Some(file) = file.filter(|f| f.ends_with(&format!("::{name}"))) {
            return file.to_string();
        }
        return match file.filter(|f| !f.is_empty()) {
            Some(file) => format!("{file}::{name}"),
            None => name.to_string(),
        };
    }
    format!("{class}::{name}")
}

/// bun: the `<testsuite>` names around the testcase (the file, then its `describe`
/// blocks) → `test/jar.test.ts::cookie jar > set > stores it`; the testcase's `file`
/// attribute stands for the file when no suite names one.
fn bun_id(suites: &[Suite], file: Option<&str>, name: &str) -> String {
    let mut names = suites.iter().filter(|s| s.inner).map(|s| s.name.as_str());
    let mut id = match (names.next(), file.filter(|f| !f.is_empty())) {
        (Some(first), _) => format!("{first}::"),
        (None, Some(file)) => format!("{file}::"),
        (None, None) => String::new(),
    };
    for describe in names {
        id.push_str(describe);
        id.push_str(" > ");
    }
    id.push_str(name);
    id
}

/// `com.example.JarTest` + `setsCookie` → `com.example.JarTest::setsCookie`.
fn generic_id(classname: &str, file: Option<&str>, name: &str) -> String {
    let mut id = String::new();
    if let Some(file) = file.filter(|f| !f.is_empty()) {
        id.push_str(file);
        id.push_str("::");
    }
    if !classname.is_empty() {
        id.push_str(classname);
        id.push_str("::");
    }
    id.push_str(name);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_ids() {
        assert_eq!(
            pytest_id("tests.test_jar.TestJar", None, "t[a b]"),
            "tests/test_jar.py::TestJar::t[a b]"
        );
        assert_eq!(
            pytest_id("tests.test_jar", None, "t"),
            "tests/test_jar.py::t"
        );
        assert_eq!(
            pytest_id(
                "tests.test_jar.TestJar.Inner",
                Some("tests/test_jar.py"),
                "t"
            ),
            "tests/test_jar.py::TestJar::Inner::t"
        );
        assert_eq!(
            generic_id("com.example.JarTest", None, "sets"),
            "com.example.JarTest::sets"
        );
        assert_eq!(generic_id("", None, "sets"), "sets");
    }
}
