//! bun test's JUnit report (`bun test --reporter=junit --reporter-outfile "$TASKC_REPORT"`),
//! read by the JUnit XML reader.
//!
//! bun writes one `<testsuite>` per test file (named by its path) holding one nested
//! `<testsuite>` per `describe` block, and its testcases in them.
//!
//! **Ids** are `<file>::<describe> > <describe> > <test>`
//! (`test/jar.test.ts::cookie jar > parse > reads "a=b"`), what `bun test -t` matches
//! after the file.
//!
//! **Outcomes.** `<failure>` → failed, `<error>` → error, `<skipped>` (skip and todo) →
//! skipped, no child → passed.
//!
//! **Complete** when the report was read whole; **tampering**: a suite whose `tests` or
//! `failures` + `errors` disagree with the testcases it holds. The report path is handed
//! to bun through its arguments, so a test can read and rewrite it: it is trusted no more
//! than the log.

use super::junit_xml::{parse_flavored, Flavor};
use super::parsed_log::ParsedLog;

/// Parses bun's JUnit report.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_flavored(report, Flavor::Bun)
}
