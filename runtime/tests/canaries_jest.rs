//! jest canaries (`Framework::Jest`, parser `jest-json`) proven by real runs of Debian
//! bookworm's jest 29 (`apt-get install jest`, offline from `/usr/share/nodejs`; the image
//! `parsers-runners:bookworm`, `scripts/fixtures/runners.Dockerfile`, built when absent or
//! older than its jest layer). On a small suite written here (a `delay` function reading an
//! HTTP `Retry-After` value; a CommonJS test file under `__tests__/` and a `.spec.js` whose
//! last statement has no `;` and no final newline):
//!
//! - **honest**: the canaries placed by `canary::place` (the run script's lines, run by
//!   bash as a backend does) run with the suite's own tests; every pair has its outcome
//!   (`Checked`) and the suite's own tests are left, passed;
//! - **attack without canaries**: a wrong implementation whose library module replaces
//!   jest's `expect` global (each test file's environment global, which the library module
//!   shares) with a proxy on which every matcher is a no-op — every hidden test reported
//!   passed, the log complete and consistent: it would score `solved`;
//! - **the same attack with canaries**: the failing canaries pass too: `Tampered`.
//!
//! All runs happen in one container, as an unprivileged user without network.
//! `TASKC_RUNNERS_IMAGE` names another image built from the same Dockerfile.
//! FAILS when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;

use support::canaries::{self, Own};
use support::runners::{runners_image, unprivileged, CaseFolders, Needs};
use taskc_runtime::canary::{self, Placement, Seed};
use taskc_runtime::parsers::{LogParser, ParsedLog};

const TESTS: &[(&str, &str)] = &[
    (
        "src/__tests__/delay.js",
        "'use strict';\nconst { delay } = require('../delay');\n\ndescribe('delay', () => {\n  test('reads seconds', () => {\n    expect(delay('7')).toBe(7);\n  });\n\n  test('reads an http date', () => {\n    expect(delay('Wed, 01 May 2024 12:00:12 GMT', Date.UTC(2024, 4, 1, 12))).toBe(12);\n  });\n});\n",
    ),
    (
        "src/header.spec.js",
        "test('reads a header name', () => {\n  expect('Retry-After'.toLowerCase()).toEqual('retry-after');\n})",
    ),
];

const PACKAGE: &str = "{\n  \"name\": \"proxy\",\n  \"private\": true,\n  \"jest\": { \"testEnvironment\": \"node\" }\n}\n";

const LIB: &str = "'use strict';\nexports.delay = (v, now) => (/^\\d+$/.test(v) ? Number(v) : Math.round((Date.parse(v) - now) / 1000));\n";

/// A wrong `delay`, and library code that replaces the `expect` global of the test file's
/// environment with a proxy on which every matcher (`.toBe`, `.not.toEqual`, …) is a no-op.
const RIGGED: &str = "'use strict';\nexports.delay = () => 0;\nif (typeof expect === 'function') {\n  const noop = new Proxy(function () {}, { get: () => noop, apply: () => noop });\n  globalThis.expect = noop;\n}\n";

/// The suite's own tests (id endings), all to be reported passed.
const OWN: &[&str] = &[
    "delay > reads seconds",
    "delay > reads an http date",
    "reads a header name",
];

const COMMAND: &str = "jest --ci --json";

const CASES: [&str; 3] = ["honest", "rigged-plain", "rigged-canaries"];

#[test]
fn jest_canaries_catch_a_rigged_expect() {
    let Some(image) = runners_image(Needs::Command("jest")) else {
        return;
    };
    let started = std::time::Instant::now();
    let folders = CaseFolders::new();
    let (run, blobs) = canaries::hidden_run(LogParser::JestJson, COMMAND, TESTS);
    let mut placements: BTreeMap<&str, Placement> = BTreeMap::new();
    let mut script = String::new();
    for (i, case) in CASES.iter().enumerate() {
        let lib = if *case == "honest" { LIB } else { RIGGED };
        let mut files: Vec<(&str, &str)> = TESTS.to_vec();
        files.push(("src/delay.js", lib));
        files.push(("package.json", PACKAGE));
        let p = (*case != "rigged-plain").then(|| {
            let p = canary::place(&run, &blobs, &Seed::fixed([i as u8 * 11 + 3; 32]));
            assert!(
                p.unplaced.is_empty() && p.canaries.len() >= 4,
                "{:?}\n{}",
                p.unplaced,
                p.script
            );
            p
        });
        canaries::lay_out(&folders.case(case), &files, p.as_ref());
        if let Some(p) = p {
            placements.insert(case, p);
        }
        script.push_str(&format!(
            "cp -r /src/{case}/work/proxy /tmp/jest-{case} && (cd /tmp/jest-{case} && {COMMAND}) > /out/{case}.log 2>&1 || true; echo \"{case} $(date +%s.%N)\" >&2\n",
        ));
    }
    let name = format!("canjvm-jest-{}", std::process::id());
    folders.run(&image, &name, &unprivileged(), &script);
    let log = |case: &str| folders.output(&format!("{case}.log"));
    let text = |case: &str| String::from_utf8_lossy(&log(case)).into_owned();
    let parsed = |case: &str| -> ParsedLog {
        let mut p = canaries::parse_complete(LogParser::JestJson, &log(case), case);
        p.strip_root(&format!("/tmp/jest-{case}"));
        p
    };
    // Honest: every pair checked, only the suite's own tests left, all passed.
    let mut honest = parsed("honest");
    canaries::assert_checked(
        &placements["honest"],
        &mut honest.tests,
        "honest",
        &text("honest"),
    );
    canaries::assert_only_own_passed(&honest.tests, Own::Endings(OWN), "honest");
    // Rigged without canaries: every hidden test passed, a complete and consistent log —
    // it would be scored `solved`.
    let plain = parsed("rigged-plain");
    canaries::assert_only_own_passed(&plain.tests, Own::Endings(OWN), "rigged-plain");
    // Rigged with canaries: the failing canaries pass too.
    let mut rigged = parsed("rigged-canaries");
    canaries::assert_tampered(
        &placements["rigged-canaries"],
        &mut rigged.tests,
        "rigged-canaries",
        &text("rigged-canaries"),
    );
    eprintln!("3 jest runs in {:.1}s", started.elapsed().as_secs_f64());
}
