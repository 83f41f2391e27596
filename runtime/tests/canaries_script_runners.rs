//! Canaries of mocha, minitest, rspec and python's unittest proven by real runs of the
//! runners Debian bookworm ships (the image `parsers-runners:bookworm`,
//! `scripts/fixtures/runners.Dockerfile`, built when absent). Per framework, on a small
//! suite written here (a `delay` function reading an HTTP `Retry-After` value):
//!
//! - **honest**: the canaries placed by `canary::place` (the run script's lines, run by
//!   bash as a backend does) run with the suite's own tests; every pair has its outcome
//!   (`Checked`) and the suite's own tests are left, passed;
//! - **attack without canaries**: a wrong implementation whose library code rigs the
//!   runner (mocha: its `Runner` reports every failure as a pass; minitest: `Minitest::Test#run`
//!   prepended to clear failures; rspec: `RSpec::Core::Example#finish` forgetting the
//!   exception; unittest: `TestResult.addFailure` recording a success) — every hidden test
//!   reported passed, the log complete and consistent: it would score `solved`;
//! - **the same attack with canaries**: the failing canaries pass too: `Tampered`.
//!
//! All runs happen in one container (one start-up), as an unprivileged user without
//! network. FAILS when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;

use support::canaries::{self, Own};
use support::runners::{runners_image, unprivileged, CaseFolders, Needs};
use taskc_runtime::canary::{self, Placement, Seed};
use taskc_runtime::parsers::{LogParser, ParsedLog};

/// One framework's suite: its parser and command, the hidden test files, the correct
/// library and the rigged wrong one (files outside the hidden patch).
struct Suite {
    name: &'static str,
    parser: LogParser,
    command: &'static str,
    tests: &'static [(&'static str, &'static str)],
    honest: &'static [(&'static str, &'static str)],
    rigged: &'static [(&'static str, &'static str)],
    /// The suite's own tests (id endings) that must be reported.
    own: &'static [&'static str],
}

const MOCHA_TESTS: &[(&str, &str)] = &[
    (
        "test/delay.test.js",
        "'use strict';\nconst assert = require('assert');\nconst { delay } = require('../lib/delay');\n\ndescribe('delay', function () {\n  it('reads seconds', function () {\n    assert.strictEqual(delay('7'), 7);\n  });\n\n  it('reads an http date', function () {\n    assert.strictEqual(delay('Wed, 01 May 2024 12:00:12 GMT', Date.UTC(2024, 4, 1, 12)), 12);\n  });\n});\n",
    ),
    // An ES module whose last statement has no `;` and no final newline.
    (
        "test/header.spec.mjs",
        "import assert from 'node:assert';\n\ndescribe('header', () => {\n  it('reads a header name', () => {\n    assert.strictEqual('Retry-After'.toLowerCase(), 'retry-after');\n  });\n})",
    ),
];

const MOCHA_LIB: &str = "'use strict';\nexports.delay = (v, now) => (/^\\d+$/.test(v) ? Number(v) : Math.round((Date.parse(v) - now) / 1000));\n";

/// A wrong `delay`, and library code that finds mocha's `Runner` among the loaded modules
/// and reports every failing test as passed.
const MOCHA_RIGGED: &str = "'use strict';\nexports.delay = () => 0;\nconst m = Object.values(require.cache).find((x) => /mocha[\\\\/]lib[\\\\/]runner\\.js$/.test(x.id));\nif (m) {\n  const R = m.exports;\n  const fail = R.prototype.fail;\n  R.prototype.fail = function (test, err, force) {\n    if (test.type === 'test') { test.state = 'passed'; this.emit('pass', test); return; }\n    return fail.call(this, test, err, force);\n  };\n}\n";

const MINITEST_TESTS: &[(&str, &str)] = &[
    (
        "test/delay_test.rb",
        "require 'minitest/autorun'\nrequire 'delay'\n\nclass DelayTest < Minitest::Test\n  def test_reads_seconds\n    assert_equal 7, Delay.delay('7')\n  end\n\n  def test_reads_an_http_date\n    assert_equal 12, Delay.delay('Wed, 01 May 2024 12:00:12 GMT', Time.utc(2024, 5, 1, 12))\n  end\nend\n",
    ),
    (
        "test/test_header.rb",
        "require 'minitest/autorun'\n\nclass HeaderTest < Minitest::Test\n  def test_reads_a_header_name\n    assert_equal 'retry-after', 'Retry-After'.downcase\n  end\nend",
    ),
];

const RUBY_LIB: &str = "require 'time'\n\nmodule Delay\n  def self.delay(v, now = Time.now)\n    v =~ /\\A\\d+\\z/ ? v.to_i : (Time.httpdate(v) - now).round\n  end\nend\n";

/// A wrong `delay`, and `Minitest::Test#run` prepended to clear the failures of every test.
const MINITEST_RIGGED: &str = "module Delay\n  def self.delay(*) = 0\nend\n\nMinitest::Test.prepend(Module.new do\n  def run\n    r = super\n    r.failures.clear\n    r\n  end\nend)\n";

const RSPEC_TESTS: &[(&str, &str)] = &[
    (
        "spec/delay_spec.rb",
        "require 'delay'\n\nRSpec.describe Delay do\n  it 'reads seconds' do\n    expect(Delay.delay('7')).to eq(7)\n  end\n\n  it 'reads an http date' do\n    expect(Delay.delay('Wed, 01 May 2024 12:00:12 GMT', Time.utc(2024, 5, 1, 12))).to eq(12)\n  end\nend\n",
    ),
];

/// A wrong `delay`, and `RSpec::Core::Example#finish` prepended to forget the exception of
/// every example.
const RSPEC_RIGGED: &str = "module Delay\n  def self.delay(*) = 0\nend\n\nRSpec::Core::Example.prepend(Module.new do\n  def finish(reporter)\n    @exception = nil\n    super\n  end\nend)\n";

const UNITTEST_TESTS: &[(&str, &str)] = &[
    (
        "tests/test_delay.py",
        "import unittest\nfrom datetime import datetime, timezone\n\nfrom delay import delay\n\n\nclass DelayTest(unittest.TestCase):\n    def test_reads_seconds(self):\n        self.assertEqual(delay('7'), 7)\n\n    def test_reads_an_http_date(self):\n        now = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)\n        self.assertEqual(delay('Wed, 01 May 2024 12:00:12 GMT', now), 12)\n\n\nif __name__ == '__main__':\n    unittest.main()\n",
    ),
];

const UNITTEST_LIB: &str = "from email.utils import parsedate_to_datetime\n\n\ndef delay(v, now=None):\n    if v.isdigit():\n        return int(v)\n    return round((parsedate_to_datetime(v) - now).total_seconds())\n";

/// A wrong `delay`, and unittest's results made to record every failure as a success.
const UNITTEST_RIGGED: &str = "import unittest\n\n\ndef delay(v, now=None):\n    return 0\n\n\ndef _passed(self, test, err):\n    self.addSuccess(test)\n\n\nunittest.TestResult.addFailure = _passed\nunittest.TextTestResult.addFailure = _passed\n";

fn suites() -> Vec<Suite> {
    vec![
        Suite {
            name: "mocha",
            parser: LogParser::MochaJson,
            command: "mocha --reporter json",
            tests: MOCHA_TESTS,
            honest: &[("lib/delay.js", MOCHA_LIB)],
            rigged: &[("lib/delay.js", MOCHA_RIGGED)],
            own: &["delay reads seconds", "delay reads an http date", "header reads a header name"],
        },
        Suite {
            name: "minitest",
            parser: LogParser::Minitest,
            command: "ruby -Ilib -Itest -e 'Dir.glob(\"test/**/{*_test,test_*}.rb\").sort.each { |f| require File.expand_path(f) }' -- -v",
            tests: MINITEST_TESTS,
            honest: &[("lib/delay.rb", RUBY_LIB)],
            rigged: &[("lib/delay.rb", MINITEST_RIGGED)],
            own: &[
                "DelayTest#test_reads_seconds",
                "DelayTest#test_reads_an_http_date",
                "HeaderTest#test_reads_a_header_name",
            ],
        },
        Suite {
            name: "rspec",
            parser: LogParser::RspecJson,
            command: "rspec -Ilib --format json",
            tests: RSPEC_TESTS,
            honest: &[("lib/delay.rb", RUBY_LIB)],
            rigged: &[("lib/delay.rb", RSPEC_RIGGED)],
            own: &["Delay reads seconds", "Delay reads an http date"],
        },
        Suite {
            name: "unittest",
            parser: LogParser::Unittest,
            command: "python3 -m unittest -v",
            tests: UNITTEST_TESTS,
            honest: &[("delay.py", UNITTEST_LIB), ("tests/__init__.py", "")],
            rigged: &[("delay.py", UNITTEST_RIGGED), ("tests/__init__.py", "")],
            own: &[
                "DelayTest.test_reads_seconds",
                "DelayTest.test_reads_an_http_date",
            ],
        },
    ]
}

/// The case folders of one suite: honest with canaries, rigged without, rigged with.
const CASES: [&str; 3] = ["honest", "rigged-plain", "rigged-canaries"];

#[test]
fn script_runner_canaries_catch_rigged_runners() {
    let Some(image) = runners_image(Needs::Image) else {
        return;
    };
    let started = std::time::Instant::now();
    let folders = CaseFolders::new();
    let mut placements: BTreeMap<String, Placement> = BTreeMap::new();
    let mut script = String::new();
    for (n, s) in suites().iter().enumerate() {
        let (run, blobs) = canaries::hidden_run(s.parser, s.command, s.tests);
        for (i, case) in CASES.iter().enumerate() {
            let lib = if *case == "honest" {
                s.honest
            } else {
                s.rigged
            };
            let files: Vec<(&str, &str)> = s.tests.iter().chain(lib).copied().collect();
            let p = (*case != "rigged-plain").then(|| {
                // The first seed whose pairs go both before a top-level block of a file and
                // at a file's end (both ways of writing them are run).
                let p = (0..64u8)
                    .map(|s| {
                        canary::place(
                            &run,
                            &blobs,
                            &Seed::fixed([s.wrapping_mul(7) + (n * 3 + i) as u8; 32]),
                        )
                    })
                    .find(|p| p.script.contains("W=") && p.script.contains("cat "))
                    .expect("a seed that inserts and appends");
                assert!(
                    p.unplaced.is_empty() && p.canaries.len() >= 4,
                    "{}: {:?}",
                    s.name,
                    p.unplaced
                );
                p
            });
            canaries::lay_out(
                &folders.case(&format!("{}-{case}", s.name)),
                &files,
                p.as_ref(),
            );
            if let Some(p) = p {
                placements.insert(format!("{}-{case}", s.name), p);
            }
            script.push_str(&format!(
                "cp -r /src/{name}-{case}/work/proxy /tmp/{name}-{case} && (cd /tmp/{name}-{case} && {cmd}) > /out/{name}-{case}.log 2>&1 || true; echo \"{name}-{case} $(date +%s.%N)\" >&2\n",
                name = s.name,
                cmd = s.command,
            ));
        }
    }
    let name = format!("canscript-canaries-{}", std::process::id());
    folders.run(&image, &name, &unprivileged(), &script);
    for s in suites() {
        let log = |case: &str| folders.output(&format!("{}-{case}.log", s.name));
        let text = |case: &str| String::from_utf8_lossy(&log(case)).into_owned();
        let what = |case: &str| format!("{} {case}", s.name);
        let parsed = |case: &str| -> ParsedLog {
            let mut p = canaries::parse_complete(s.parser, &log(case), &what(case));
            p.strip_root(&format!("/tmp/{}-{case}", s.name));
            p
        };
        // Honest: every pair checked, only the suite's own tests left, all passed.
        let mut honest = parsed("honest");
        let p = &placements[&format!("{}-honest", s.name)];
        canaries::assert_checked(p, &mut honest.tests, &what("honest"), &text("honest"));
        canaries::assert_only_own_passed(&honest.tests, Own::Endings(s.own), &what("honest"));
        // Rigged without canaries: every hidden test passed, a complete and consistent
        // log — it would be scored `solved`.
        let plain = parsed("rigged-plain");
        canaries::assert_only_own_passed(&plain.tests, Own::Endings(s.own), &what("rigged-plain"));
        // Rigged with canaries: the failing canaries pass too.
        let p = &placements[&format!("{}-rigged-canaries", s.name)];
        let mut rigged = parsed("rigged-canaries");
        canaries::assert_tampered(
            p,
            &mut rigged.tests,
            &what("rigged-canaries"),
            &text("rigged-canaries"),
        );
    }
    eprintln!("12 runs in {:.1}s", started.elapsed().as_secs_f64());
}
