//! `go test -json` (test2json events, one JSON object per line).
//!
//! **Ids** are `<package>/<Test>`: `example.com/m/cookie/TestJar`, and for
//! subtests `example.com/m/cookie/TestJar/set_one` (go already replaced spaces
//! in subtest names with `_`).
//!
//! **Outcomes.** A test's `pass` → passed, `fail` → failed, `skip` → skipped.
//! A test that got `run` but no result before its package ended (a panic or a
//! `-timeout` kills the test binary) → error. A package that fails without any
//! failing test (build failure `[build failed]`, setup failure, `TestMain` exit,
//! Go 1.24's `build-fail`) is recorded under the package path itself as error.
//! Lines that are not JSON objects (build output on stderr, shell traces) are
//! ignored.
//!
//! **Complete** when at least one package appears and every package ends with
//! a package-level `pass`, `fail` or `skip` action.
//!
//! **Forged events.** A package that ends `pass` without a single test result,
//! while its test binary printed test2json result events of its own (lines
//! `{"Action":"pass","Test":…}` that `go test -json` wrapped as `output`), is
//! tampering: an honest test binary's results are never output lines (the
//! `go-forged-test2json` attack: library `init()` printing `pass` events for
//! every test, then exiting before any ran).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::lines::lines;
use super::parsed_log::{Outcome, ParsedLog};

/// One test2json event; unknown fields are ignored.
#[derive(Deserialize)]
struct Event {
    #[serde(rename = "Action", default)]
    action: String,
    #[serde(rename = "Package", default)]
    package: String,
    #[serde(rename = "Test", default)]
    test: Option<String>,
    #[serde(rename = "Output", default)]
    output: Option<String>,
    #[serde(rename = "ImportPath", default)]
    import_path: Option<String>,
    #[serde(rename = "FailedBuild", default)]
    failed_build: Option<String>,
}

/// What one package has shown so far.
#[derive(Default)]
struct Package {
    /// Tests that got `run` and no result yet.
    running: BTreeSet<String>,
    /// Some test of it failed or errored.
    any_failure: bool,
    /// A `[build failed]` / `[setup failed]` line or a `FailedBuild` field.
    build_failed: bool,
    /// The package-level pass/fail/skip arrived.
    ended: bool,
    /// Test-level results (pass/fail/skip events) of it.
    results: usize,
    /// Its output lines that are themselves test2json result events of a test.
    forged: usize,
    /// The package-level action was `pass`.
    passed: bool,
}

/// Whether an `output` line is a test2json result event of a test (what a test binary
/// printing forged events writes; `go test -json` wraps it as output).
fn is_result_event(output: &str) -> bool {
    let line = output.trim();
    line.starts_with('{')
        && serde_json::from_str::<Event>(line).is_ok_and(|e| {
            e.test.is_some_and(|t| !t.is_empty())
                && matches!(e.action.as_str(), "pass" | "fail" | "skip")
        })
}

/// `FAIL\t<pkg> [build failed]` (or `[setup failed]`) printed as plain text: the package.
fn plain_build_failure(line: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    let rest = text.strip_prefix("FAIL")?;
    if !(rest.contains("[build failed]") || rest.contains("[setup failed]")) {
        return None;
    }
    rest.split_whitespace()
        .next()
        .filter(|p| !p.starts_with('['))
        .map(str::to_string)
}

/// Parses a `go test -json` log.
pub fn parse(log: &[u8]) -> ParsedLog {
    let mut parsed = ParsedLog::new();
    let mut packages: BTreeMap<String, Package> = BTreeMap::new();
    let mut skipped_lines = 0usize;
    // Before Go 1.24 a package that does not compile is reported only in plain text
    // (`FAIL\t<pkg> [build failed]`), with no JSON event: its tests fail, the log is whole.
    let mut plain_build_failures = 0usize;
    for raw in lines(log) {
        let trimmed = raw.trim_ascii();
        if !trimmed.starts_with(b"{") {
            if let Some(pkg) = plain_build_failure(trimmed) {
                parsed.record(pkg, Outcome::Error);
                plain_build_failures += 1;
            }
            continue;
        }
        let Ok(event) = serde_json::from_slice::<Event>(trimmed) else {
            skipped_lines += 1;
            continue;
        };
        // Go 1.24: `build-output` / `build-fail` carry ImportPath, no Package.
        if event.action == "build-fail" {
            if let Some(path) = &event.import_path {
                let name = path.split(' ').next().unwrap_or(path).to_string();
                packages.entry(name).or_default().build_failed = true;
            }
            continue;
        }
        if event.package.is_empty() {
            continue;
        }
        let package = packages.entry(event.package.clone()).or_default();
        if event.failed_build.is_some() {
            package.build_failed = true;
        }
        match event.test.as_deref().filter(|t| !t.is_empty()) {
            Some(test) => {
                let id = format!("{}/{test}", event.package);
                let outcome = match event.action.as_str() {
                    "run" => {
                        package.running.insert(id);
                        continue;
                    }
                    "pass" => Outcome::Passed,
                    "fail" => Outcome::Failed,
                    "skip" => Outcome::Skipped,
                    _ => continue,
                };
                package.running.remove(&id);
                package.results += 1;
                package.any_failure |= outcome == Outcome::Failed;
                parsed.record(id, outcome);
            }
            None => match event.action.as_str() {
                "output" => {
                    let output = event.output.as_deref().unwrap_or("");
                    if output.contains("[build failed]") || output.contains("[setup failed]") {
                        package.build_failed = true;
                    }
                    if is_result_event(output) {
                        package.forged += 1;
                    }
                }
                "pass" => {
                    package.ended = true;
                    package.passed = true;
                }
                "skip" => package.ended = true,
                "fail" => {
                    package.ended = true;
                    let crashed = std::mem::take(&mut package.running);
                    for id in crashed {
                        parsed.warn(format!(
                            "{id} started but has no result before its package failed: counted as an error"
                        ));
                        parsed.record(id, Outcome::Error);
                        package.any_failure = true;
                    }
                    if !package.any_failure || package.build_failed {
                        parsed.record(event.package.clone(), Outcome::Error);
                    }
                }
                _ => {}
            },
        }
    }
    for (name, package) in &packages {
        if package.passed && package.results == 0 && package.forged > 0 {
            parsed.tampering.push(format!(
                "package {name} passed without reporting any test, yet its test binary printed {} \
                 test2json result event(s) of its own (`{{\"Action\":\"pass\",\"Test\":…}}` as output): forged results",
                package.forged
            ));
        }
        if package.ended {
            continue;
        }
        if package.build_failed {
            // A build failure reported only by `build-fail`.
            parsed.record(name.clone(), Outcome::Error);
            continue;
        }
        parsed.complete = false;
        parsed.warn(format!(
            "package {name} started but has no final pass/fail: the run ended early"
        ));
        for id in &package.running {
            parsed.record(id.clone(), Outcome::Error);
        }
    }
    if packages.is_empty() && plain_build_failures == 0 {
        parsed.complete = false;
        parsed.warn("no `go test -json` events in the log: run go test with -json");
    }
    if skipped_lines > 0 {
        parsed.warn(format!(
            "{skipped_lines} line(s) starting with `{{` are not test2json events"
        ));
    }
    parsed.finish();
    parsed
}

#[cfg(test)]
mod plain_build_failure_tests {
    use super::*;

    /// What the `go-forged-test2json` attack's run logged (trimmed): the forged events are
    /// the package's output, then `ok` and a package `pass` with no test result.
    #[test]
    fn forged_events_in_the_output_of_a_package_that_ran_no_test_are_tampering() {
        let log = concat!(
            r#"{"Action":"output","Package":"example.com/m","Output":"{\"Action\":\"run\",\"Package\":\"example.com/m\",\"Test\":\"TestA\"}\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"example.com/m","Output":"{\"Action\":\"pass\",\"Package\":\"example.com/m\",\"Test\":\"TestA\",\"Elapsed\":0}\n"}"#,
            "\n",
            r#"{"Action":"output","Package":"example.com/m","Output":"ok  \texample.com/m\t0.007s\n"}"#,
            "\n",
            r#"{"Action":"pass","Package":"example.com/m","Elapsed":0.008}"#,
            "\n",
        );
        let parsed = parse(log.as_bytes());
        assert!(parsed.tests.is_empty(), "{:?}", parsed.tests);
        assert_eq!(parsed.tampering.len(), 1, "{:?}", parsed.tampering);
        assert!(parsed.tampering[0].contains("package example.com/m"));
        // The same output next to real results (a test printing events) is no evidence.
        let honest = log.replace(
            r#"{"Action":"pass","Package":"example.com/m","Elapsed":0.008}"#,
            r#"{"Action":"pass","Package":"example.com/m","Test":"TestB"}
{"Action":"pass","Package":"example.com/m","Elapsed":0.008}"#,
        );
        let parsed = parse(honest.as_bytes());
        assert!(parsed.tampering.is_empty(), "{:?}", parsed.tampering);
        assert_eq!(
            parsed.tests.get("example.com/m/TestB"),
            Some(&Outcome::Passed)
        );
    }

    #[test]
    fn a_plain_text_build_failure_fails_the_package_and_keeps_the_log_whole() {
        let log = b"# example.com/sdk [example.com/sdk.test]\n./retry.go:12:2: undefined: x\nFAIL\texample.com/sdk [build failed]\n";
        let parsed = parse(log);
        assert!(parsed.complete, "{:?}", parsed.warnings);
        assert_eq!(parsed.tests.get("example.com/sdk"), Some(&Outcome::Error));
    }
}
