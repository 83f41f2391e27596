//! gradle's JUnit XML test results (`build/test-results/test/TEST-*.xml`), read by the
//! JUnit XML reader. The run hands them over in the report file:
//! `./gradlew test --continue; s=$?; cat build/test-results/test/TEST-*.xml > "$TASKC_REPORT"; exit $s`.
//!
//! **Ids** are `classname::name` (`com.example.JarTest::setsCookie`; JUnit 5 display names
//! as gradle writes them, `com.example.JarTest::parses(String)[2]`).
//!
//! **Outcomes**, **completeness** and **tampering** as for [`super::surefire`]: gradle
//! writes `tests`, `skipped`, `failures` and `errors` from the same results as the
//! testcases, and its results folder (under `build/`) is writable by the tests, so it is
//! trusted no more than the log.

use super::junit_xml::{parse_flavored, Flavor};
use super::parsed_log::ParsedLog;

/// Parses the concatenated gradle test-result files.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_flavored(report, Flavor::Jvm)
}
