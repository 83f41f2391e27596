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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use taskc_compiler::plan::{Run, Step, TestStep};
use taskc_runtime::canary::{self, CanaryCheck, Placement, Seed};
use taskc_runtime::parsers::{parse, Outcome, ParsedLog};

fn image_name() -> String {
    std::env::var("TASKC_RUNNERS_IMAGE").unwrap_or_else(|_| "parsers-runners:bookworm".into())
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/fixtures")
}

/// The runners' image, built when absent or without jest (an image built before the jest
/// layer: the build reuses the cached layers above it); `false` when Docker tests are skipped.
fn image() -> Option<String> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("skipped: TASKC_SKIP_DOCKER=1");
        return None;
    }
    let image = image_name();
    let has_jest = Command::new("docker")
        .args(["run", "--rm", "--network", "none", &image, "sh", "-c"])
        .arg("command -v jest")
        .output()
        .expect("the docker CLI runs");
    if !has_jest.status.success() {
        let built = Command::new("docker")
            .args(["build", "-q", "-t", &image, "-f"])
            .arg(fixtures().join("runners.Dockerfile"))
            .arg(fixtures())
            .output()
            .expect("docker build runs");
        assert!(
            built.status.success(),
            "docker build {image}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    Some(image)
}

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

/// A run of `parser`/`command` whose hidden test patch adds `files` to repository `proxy`.
fn run_with_files(
    parser: &str,
    command: &str,
    files: &[(&str, &str)],
) -> (Run, BTreeMap<String, String>) {
    let mut patch = String::new();
    for (path, text) in files {
        let lines: Vec<&str> = text.lines().collect();
        patch.push_str(&format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{} @@\n",
            lines.len()
        ));
        for l in lines {
            patch.push_str(&format!("+{l}\n"));
        }
        if !text.ends_with('\n') {
            patch.push_str("\\ No newline at end of file\n");
        }
    }
    let run = Run {
        id: "run-x".into(),
        digest: String::new(),
        image: "img".into(),
        under_test: "proxy".into(),
        gold_applied: vec![],
        prediction: vec![],
        network: false,
        steps: vec![Step::ApplyTests {
            repo: "proxy".into(),
            blob: "b1".into(),
        }],
        test: TestStep {
            repo: "proxy".into(),
            workdir: "/work/proxy".into(),
            command: command.into(),
            parser: parser.parse().unwrap(),
            timeout_secs: 60,
            dropped: vec![],
            select_template: None,
            select: None,
        },
        services: vec![],
    };
    (run, BTreeMap::from([("b1".to_string(), patch)]))
}

/// Writes `files` into `<root>/work/proxy` and, with a placement, its uploads under `root`
/// and its script run there by bash (`TASKC_ROOT=root`), as a backend does.
fn lay_out(root: &Path, files: &[(&str, &str)], p: Option<&Placement>) {
    let repo = root.join("work/proxy");
    for (path, text) in files {
        let f = repo.join(path);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    let Some(p) = p else { return };
    for u in &p.uploads {
        let f = root.join(u.path.trim_start_matches('/'));
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, &u.bytes).unwrap();
    }
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &p.script])
        .env("TASKC_ROOT", root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{out:?}", p.script);
}

const CASES: [&str; 3] = ["honest", "rigged-plain", "rigged-canaries"];

#[test]
fn jest_canaries_catch_a_rigged_expect() {
    let Some(image) = image() else { return };
    let started = std::time::Instant::now();
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    // The container's unprivileged user reads the suites and writes the logs.
    Command::new("chmod")
        .arg("755")
        .arg(root.path())
        .status()
        .unwrap();
    Command::new("chmod").arg("777").arg(&out).status().unwrap();
    let (run, blobs) = run_with_files("jest-json", COMMAND, TESTS);
    let mut placements: BTreeMap<&str, Placement> = BTreeMap::new();
    let mut script = String::new();
    for (i, case) in CASES.iter().enumerate() {
        let dir = root.path().join(case);
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
        lay_out(&dir, &files, p.as_ref());
        if let Some(p) = p {
            placements.insert(case, p);
        }
        script.push_str(&format!(
            "cp -r /src/{case}/work/proxy /tmp/jest-{case} && (cd /tmp/jest-{case} && {COMMAND}) > /out/{case}.log 2>&1 || true; echo \"{case} $(date +%s.%N)\" >&2\n",
        ));
    }
    let name = format!("canjvm-jest-{}", std::process::id());
    let ran = Command::new("docker")
        .args(["run", "--rm", "--name", &name, "--network", "none"])
        .args(["-u", "65534:65534", "-e", "HOME=/tmp", "-v"])
        .arg(format!("{}:/src:ro", root.path().display()))
        .arg("-v")
        .arg(format!("{}:/out", out.display()))
        .args([image.as_str(), "bash", "-c", &script])
        .output()
        .expect("docker run runs");
    assert!(ran.status.success(), "{ran:?}");
    eprintln!(
        "docker run {:.1}s; each run's end:\n{}",
        started.elapsed().as_secs_f64(),
        String::from_utf8_lossy(&ran.stderr)
    );
    let log = |case: &str| std::fs::read(out.join(format!("{case}.log"))).unwrap();
    let parsed = |case: &str| -> ParsedLog {
        let log = log(case);
        let mut p = parse("jest-json".parse().unwrap(), &log).expect("no parser error");
        p.strip_root(&format!("/tmp/jest-{case}"));
        assert!(
            p.complete && p.tampering.is_empty(),
            "{case}: complete {} tampering {:?}:\n{}",
            p.complete,
            p.tampering,
            String::from_utf8_lossy(&log)
        );
        p
    };
    let own = |tests: &BTreeMap<String, Outcome>| {
        for o in OWN {
            assert!(
                tests
                    .iter()
                    .any(|(id, out)| id.ends_with(o) && *out == Outcome::Passed),
                "`{o}` not passed: {tests:?}"
            );
        }
    };
    // Honest: every pair checked, only the suite's own tests left, all passed.
    let p = &placements["honest"];
    let mut honest = parsed("honest");
    let check = canary::check(p, "proxy", &mut honest.tests);
    assert_eq!(
        check,
        CanaryCheck::Checked {
            pairs: p.canaries.len() / 2,
            skipped: vec![]
        },
        "{}",
        String::from_utf8_lossy(&log("honest"))
    );
    assert_eq!(honest.tests.len(), OWN.len(), "{:?}", honest.tests);
    own(&honest.tests);
    // Rigged without canaries: every hidden test passed, a complete and consistent log —
    // it would be scored `solved`.
    let plain = parsed("rigged-plain");
    assert_eq!(plain.tests.len(), OWN.len(), "{:?}", plain.tests);
    own(&plain.tests);
    // Rigged with canaries: the failing canaries pass too.
    let p = &placements["rigged-canaries"];
    let mut rigged = parsed("rigged-canaries");
    let check = canary::check(p, "proxy", &mut rigged.tests);
    assert!(
        check.is_tampered(),
        "{check:?}\n{}",
        String::from_utf8_lossy(&log("rigged-canaries"))
    );
    eprintln!("3 jest runs in {:.1}s", started.elapsed().as_secs_f64());
}
