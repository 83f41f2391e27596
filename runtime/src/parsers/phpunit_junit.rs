//! phpunit's and pest's JUnit XML report (`phpunit --log-junit <file>`,
//! `pest --log-junit <file>`), read by the JUnit XML reader with phpunit's ids.
//!
//! **Ids** are what phpunit's `--filter` matches: `Class::method`, with the
//! namespace (`Jar\Tests\Nested\PathTest::testDefaultPath`) and data sets as
//! phpunit names them (`CookieJarTest::testParses with data set "plain pair"`,
//! `CookieJarTest::testPositive with data set #2`). Pest's tests are
//! `Tests\Unit\ExampleTest::it works` (its class and description).
//!
//! **Outcomes.** `<failure>` → failed; `<error>` and `<warning>` → error;
//! `<skipped>` → skipped (phpunit 9 writes skipped, incomplete and risky tests
//! so); no child → passed.
//!
//! **Complete** and **tampering** as for [`super::junit_xml`]: a report cut off
//! or broken is incomplete; a suite whose `tests` / `failures` + `errors`
//! attributes disagree with the testcases it holds is tampered. The report
//! holds no captured output (phpunit writes none to it), so what tests print
//! cannot enter it unless they write the file.

use super::junit_xml::{parse_flavored, Flavor};
use super::parsed_log::ParsedLog;

/// Parses phpunit's (or pest's) JUnit XML report.
pub fn parse(report: &[u8]) -> ParsedLog {
    parse_flavored(report, Flavor::Phpunit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parsers::Outcome;

    #[test]
    fn ids_and_counts() {
        let xml = br#"<?xml version="1.0"?>
<testsuites>
  <testsuite name="tests" tests="3" failures="1" errors="0">
    <testsuite name="T::testP" tests="2" failures="1" errors="0">
      <testcase name="testP with data set &quot;a b&quot;" class="Ns\T" classname="Ns.T"/>
      <testcase name="testP with data set #1" class="Ns\T" classname="Ns.T"><failure>x</failure></testcase>
    </testsuite>
    <testcase name="it works" file="tests/Unit/ExampleTest.php::it works" classname="Tests.Unit.ExampleTest"/>
  </testsuite>
</testsuites>"#;
        let parsed = parse(xml);
        assert!(parsed.tampering.is_empty(), "{parsed}");
        assert_eq!(
            parsed.tests.get("Ns\\T::testP with data set \"a b\""),
            Some(&Outcome::Passed)
        );
        assert_eq!(
            parsed.tests.get("Ns\\T::testP with data set #1"),
            Some(&Outcome::Failed)
        );
        assert_eq!(
            parsed.tests.get("Tests\\Unit\\ExampleTest::it works"),
            Some(&Outcome::Passed)
        );
        let forged = String::from_utf8_lossy(xml).replace("<failure>x</failure>", "");
        let parsed = parse(forged.as_bytes());
        assert_eq!(parsed.tampering.len(), 2, "{parsed}");
    }
}
