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

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use super::lines::line_number;
use super::parsed_log::{Outcome, ParsedLog};

/// Parses every JUnit XML report in `log`.
pub fn parse(log: &[u8]) -> ParsedLog {
    let text = String::from_utf8_lossy(log);
    let mut parsed = ParsedLog::new();
    let mut pos = 0;
    let mut reports = 0;
    while let Some(start) = next_report(&text, pos) {
        reports += 1;
        match read_report(&text[start..], &mut parsed) {
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

/// Reads one report element starting at the beginning of `xml`; returns its
/// length in bytes.
fn read_report(xml: &str, parsed: &mut ParsedLog) -> Result<usize, Problem> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut depth = 0usize;
    let mut pytest_suite = false;
    let mut case: Option<Case> = None;
    loop {
        let event = reader.read_event().map_err(|err| Problem {
            offset: usize::try_from(reader.error_position()).unwrap_or(0),
            message: err.to_string(),
        })?;
        let offset = || usize::try_from(reader.buffer_position()).unwrap_or(xml.len());
        match event {
            Event::Start(tag) => {
                depth += 1;
                on_open(&tag, &mut pytest_suite, &mut case, parsed);
            }
            Event::Empty(tag) => {
                on_open(&tag, &mut pytest_suite, &mut case, parsed);
                if tag.local_name().as_ref() == b"testcase" {
                    if let Some(done) = case.take() {
                        parsed.record(done.id, done.outcome);
                    }
                }
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                if tag.local_name().as_ref() == b"testcase" {
                    if let Some(done) = case.take() {
                        parsed.record(done.id, done.outcome);
                    }
                }
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

fn on_open(
    tag: &BytesStart<'_>,
    pytest_suite: &mut bool,
    case: &mut Option<Case>,
    parsed: &mut ParsedLog,
) {
    match tag.local_name().as_ref() {
        b"testsuite" => {
            if attr(tag, b"name").as_deref() == Some("pytest") {
                *pytest_suite = true;
            }
        }
        b"testcase" => {
            if let Some(open) = case.take() {
                parsed.record(open.id, open.outcome);
            }
            let name = attr(tag, b"name").unwrap_or_default();
            let classname = attr(tag, b"classname").unwrap_or_default();
            let file = attr(tag, b"file");
            let pytest = *pytest_suite || file.as_deref().is_some_and(|f| f.ends_with(".py"));
            let id = if pytest {
                pytest_id(&classname, file.as_deref(), &name)
            } else {
                generic_id(&classname, file.as_deref(), &name)
            };
            *case = Some(Case {
                id,
                outcome: Outcome::Passed,
            });
        }
        child => {
            let Some(open) = case.as_mut() else { return };
            let outcome = match child {
                b"failure" => Outcome::Failed,
                b"error" => Outcome::Error,
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
