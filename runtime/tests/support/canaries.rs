//! Canary scaffolding that needs no Docker: a run of repository `proxy` whose hidden test
//! patch adds files, the repository and a placement laid out under a root as a backend
//! lays them out, and the checks every canary proof makes of the parsed results.
//!
//! Shared by the canary integration tests (`mod support;`) and the library's
//! `canary/tests.rs` (`#[path]`, with the crate naming itself `taskc_runtime` in tests).

// Test code: an unwrap/expect/panic that fires is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::parser::LogParser;
use taskc_compiler::plan::{Run, Step, TestStep};
use taskc_runtime::canary::{check, CanaryCheck, Placement};
use taskc_runtime::parsers::{parse, Outcome, ParsedLog};

/// The repository under test of [`hidden_run`]; its files go under `<root>/work/proxy`.
pub const REPO: &str = "proxy";

/// A git patch creating each of `files` (path, text); a text without a final newline says
/// so as git does.
pub fn adding_patch(files: &[(&str, &str)]) -> String {
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
    patch
}

/// A run of `parser`/`command` on repository `proxy` (image `img`, 60 s) whose hidden test
/// patch (blob `b1`, returned with it) adds `files`.
pub fn hidden_run(
    parser: LogParser,
    command: &str,
    files: &[(&str, &str)],
) -> (Run, BTreeMap<String, String>) {
    let run = Run {
        id: "run-x".into(),
        digest: String::new(),
        image: "img".into(),
        under_test: REPO.into(),
        gold_applied: vec![],
        prediction: vec![],
        network: false,
        steps: vec![Step::ApplyTests {
            repo: REPO.into(),
            blob: "b1".into(),
        }],
        test: TestStep {
            repo: REPO.into(),
            workdir: "/work/proxy".into(),
            command: command.into(),
            parser,
            timeout_secs: 60,
            dropped: vec![],
            select_template: None,
            select: None,
        },
        services: vec![],
    };
    (
        run,
        BTreeMap::from([("b1".to_string(), adding_patch(files))]),
    )
}

/// Writes `files` (path, text) into the repository, `<root>/work/proxy`.
pub fn write_files(root: &Path, files: &[(&str, &str)]) {
    let repo = root.join("work/proxy");
    for (path, text) in files {
        let f = repo.join(path);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
}

/// Writes the placement's uploads under `root` (the container's `/`).
pub fn write_uploads(root: &Path, p: &Placement) {
    for u in &p.uploads {
        let f = root.join(u.path.trim_start_matches('/'));
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, &u.bytes).unwrap();
    }
}

/// Writes `files` into `<root>/work/proxy` and, with a placement, its uploads under `root`
/// and its script run there by bash on this host (`TASKC_ROOT=root`), as a backend does.
pub fn lay_out(root: &Path, files: &[(&str, &str)], p: Option<&Placement>) {
    write_files(root, files);
    let Some(p) = p else { return };
    write_uploads(root, p);
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", &p.script])
        .env("TASKC_ROOT", root)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{out:?}", p.script);
}

/// `log` parsed by `parser`: a complete run with no sign of tampering, else the test fails
/// (`what` names the case).
pub fn parse_complete(parser: LogParser, log: &[u8], what: &str) -> ParsedLog {
    let p = parse(parser, log).expect("no parser error");
    assert!(
        p.complete && p.tampering.is_empty(),
        "{what}: complete {} tampering {:?}:\n{}",
        p.complete,
        p.tampering,
        String::from_utf8_lossy(log)
    );
    p
}

/// Every canary pair of `p` has its outcome in `tests` (`Checked`, nothing skipped); the
/// canaries' ids are removed from `tests`. `what` names the case, `log` is shown on failure.
pub fn assert_checked(p: &Placement, tests: &mut BTreeMap<String, Outcome>, what: &str, log: &str) {
    let c = check(p, REPO, tests);
    assert_eq!(
        c,
        CanaryCheck::Checked {
            pairs: p.canaries.len() / 2,
            skipped: vec![]
        },
        "{what}:\n{log}"
    );
}

/// The canaries of `p` give the run away: `Tampered`.
pub fn assert_tampered(
    p: &Placement,
    tests: &mut BTreeMap<String, Outcome>,
    what: &str,
    log: &str,
) {
    let c = check(p, REPO, tests);
    assert!(c.is_tampered(), "{what}: {c:?}\n{log}");
}

/// How the suite's own tests are named in [`assert_only_own_passed`].
#[derive(Clone, Copy)]
pub enum Own<'a> {
    /// By their whole ids.
    Ids(&'a [&'a str]),
    /// By their ids' endings (the ids hold the run's folder or a file path).
    Endings(&'a [&'a str]),
}

/// Each of the suite's own tests is reported passed in `tests`, and nothing else is left
/// (the check removed the canaries).
pub fn assert_only_own_passed(tests: &BTreeMap<String, Outcome>, own: Own, what: &str) {
    let (names, exact) = match own {
        Own::Ids(n) => (n, true),
        Own::Endings(n) => (n, false),
    };
    assert_eq!(tests.len(), names.len(), "{what}: {tests:?}");
    for o in names {
        assert!(
            tests.iter().any(|(id, out)| {
                (if exact { id == o } else { id.ends_with(o) }) && *out == Outcome::Passed
            }),
            "{what}: `{o}` not passed: {tests:?}"
        );
    }
}
