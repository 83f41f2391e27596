//! Maven surefire's XML reports (`target/surefire-reports/TEST-*.xml`), read by the JUnit
//! XML reader. The run hands them over in the report file:
//! `mvn -B test; s=$?; cat target/surefire-reports/TEST-*.xml > "$TASKC_REPORT"; exit $s`.
//!
//! **Ids** are `classname::name` (`com.example.JarTest::setsCookie`, JUnit 5
//! parametrised `com.example.JarTest::parses(String)[2]`), the ids `junit-xml` gives the
//! same reports, so a lock carries over.
//!
//! **Outcomes.** `<failure>` → failed, `<error>` → error, `<skipped>` → skipped, no child
//! → passed; `<flakyFailure>`/`<rerunFailure>` (retries) do not count.
//!
//! **Complete** when every report that starts ends; no report at all (no test ran, or
//! the build failed before surefire) is incomplete.
//!
//! **Tampering.** A suite whose `tests`, `skipped`, or `failures` + `errors` disagree with
//! the testcases it holds. The reports are written into `target/`, which the tests' own
//! process can write: a test can rewrite the report of a class that ran before it, or add
//! a `TEST-*.xml` of its own, so the folder is trusted no more than the log (a test
//! reported twice keeps its worst outcome; the canaries and the restored test surface
//! stand against a consistent forgery).

use super::junit_xml::{parse_flavored, Flavor};
use super::parsed_log::ParsedLog;

/// Parses the concatenated surefire reports.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_flavored(report, Flavor::Jvm)
}
