//! The go runner's own accounting, cross-checked (issue 20, item 1; `docs/security.md`,
//! defence 4): a `go test` binary runs the tests of a package one after the other, in the
//! order their files (sorted by name) declare them, and announces each with a `run` event
//! before any result of it — `t.Parallel()` pauses a test but does not reorder the `run`
//! events. A derived canary pair (`canary::derive`) is written into the hidden test file
//! right before the test it copies, so both copies must be announced before their original.
//!
//! Code in the test binary that prints framed `=== RUN`/`--- PASS` lines for tests it never
//! ran (a library `init()`) prints them before the first real test starts; if it spares
//! some tests (narrowing `-test.run` to them) so that they run honestly, those run after
//! every forgery. Sparing the failing copies (read from the source) keeps every canary's
//! outcome right — but then a copy is announced after its original: the report is not the
//! run go made. That is tampering.
//!
//! Not checked when the command shuffles the order (`-shuffle`).

use serde::Deserialize;

use crate::canary::{Expected, Framework, Placement};

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "Action", default)]
    action: String,
    #[serde(rename = "Package", default)]
    package: String,
    #[serde(rename = "Test", default)]
    test: Option<String>,
}

/// The top-level tests of a `go test -json` log in the order of their first `run` event:
/// `(package, test)`.
fn run_order(log: &[u8]) -> Vec<(String, String)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut order = Vec::new();
    for line in log.split(|b| *b == b'\n') {
        let line = line.trim_ascii();
        if !line.starts_with(b"{") {
            continue;
        }
        let Ok(e) = serde_json::from_slice::<Event>(line) else {
            continue;
        };
        let Some(test) = e.test.filter(|t| !t.is_empty() && !t.contains('/')) else {
            continue;
        };
        if e.action == "run" && seen.insert((e.package.clone(), test.clone())) {
            order.push((e.package, test));
        }
    }
    order
}

/// Whether `command` runs the tests in a shuffled order.
fn shuffles(command: &str) -> bool {
    command.contains("-shuffle") && !command.contains("-shuffle=off")
}

/// Evidence that the go tests of `repo` were not reported in the order go runs them: a
/// derived canary announced after the hidden test it copies (empty when in order, when the
/// log is not go's or when `command` shuffles).
pub fn copies_out_of_order(
    placement: &Placement,
    repo: &str,
    command: &str,
    log: &[u8],
) -> Vec<String> {
    if shuffles(command) {
        return Vec::new();
    }
    let mine: Vec<_> = placement
        .canaries
        .iter()
        .filter(|c| c.repo == repo && c.framework == Framework::GoTest)
        .collect();
    if mine.is_empty() {
        return Vec::new();
    }
    let order = run_order(log);
    let position =
        |package: &str, test: &str| order.iter().position(|(p, t)| p == package && t == test);
    let mut evidence = Vec::new();
    for pair in mine.chunks(2) {
        let Some(original) = pair.iter().find_map(|c| match &c.expected {
            Expected::Same { original } => Some(original.clone()),
            _ => None,
        }) else {
            continue;
        };
        for c in pair {
            // Every package where the copy was announced (it shares its original's).
            for (i, (package, _)) in order.iter().enumerate().filter(|(_, (_, t))| *t == c.name) {
                if let Some(o) = position(package, &original) {
                    if o < i {
                        evidence.push(format!(
                            "`{package}/{}` was reported as run after `{package}/{original}`, though it is declared right before it in `{}` (go runs a package's tests in their order: the report is not the run)",
                            c.name, c.file
                        ));
                    }
                }
            }
        }
    }
    evidence
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canary::Canary;

    fn placement() -> Placement {
        let canary = |name: &str, expected| Canary {
            repo: "sdk-go".into(),
            file: "retry_after_test.go".into(),
            framework: Framework::GoTest,
            name: name.into(),
            expected,
        };
        Placement {
            canaries: vec![
                canary(
                    "TestRetryAfterTwice",
                    Expected::Same {
                        original: "TestRetryAfterSeconds".into(),
                    },
                ),
                canary("TestRetryAfterEdge", Expected::Fail),
            ],
            ..Placement::default()
        }
    }

    fn ev(action: &str, test: &str) -> String {
        format!("{{\"Action\":\"{action}\",\"Package\":\"acme\",\"Test\":\"{test}\"}}\n")
    }

    fn log(tests: &[(&str, &str)]) -> Vec<u8> {
        tests
            .iter()
            .flat_map(|(t, result)| [ev("run", t), ev(result, t)])
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn copies_announced_before_their_original_are_in_order() {
        let honest = log(&[
            ("TestRetryAfterEdge", "fail"),
            ("TestRetryAfterTwice", "fail"),
            ("TestRetryAfterSeconds", "fail"),
            ("TestRetryAfterIsCapped", "pass"),
        ]);
        let p = placement();
        assert!(copies_out_of_order(&p, "sdk-go", "go test -json ./...", &honest).is_empty());
        // A subtest's and a parallel test's later events change nothing.
        let mut with_sub = honest.clone();
        with_sub.extend(ev("run", "TestRetryAfterEdge/sub").into_bytes());
        with_sub.extend(ev("cont", "TestRetryAfterTwice").into_bytes());
        assert!(copies_out_of_order(&p, "sdk-go", "go test -json ./...", &with_sub).is_empty());
    }

    #[test]
    fn a_spared_failing_copy_run_after_the_forgeries_is_out_of_order() {
        // The go-init-spare-failing-copies attack: forged RUN/PASS for everything but the
        // failing copy, which then runs honestly, last.
        let forged = log(&[
            ("TestRetryAfterTwice", "pass"),
            ("TestRetryAfterSeconds", "pass"),
            ("TestRetryAfterIsCapped", "pass"),
            ("TestRetryAfterEdge", "fail"),
        ]);
        let p = placement();
        let evidence = copies_out_of_order(&p, "sdk-go", "go test -json ./...", &forged);
        assert_eq!(evidence.len(), 1, "{evidence:?}");
        assert!(
            evidence[0].contains(
                "`acme/TestRetryAfterEdge` was reported as run after `acme/TestRetryAfterSeconds`"
            ),
            "{evidence:?}"
        );
        // Another repository's canaries, or a shuffled run: nothing to say.
        assert!(copies_out_of_order(&p, "sdk-node", "go test -json ./...", &forged).is_empty());
        assert!(
            copies_out_of_order(&p, "sdk-go", "go test -json -shuffle=on ./...", &forged)
                .is_empty()
        );
        assert!(
            !copies_out_of_order(&p, "sdk-go", "go test -json -shuffle=off ./...", &forged)
                .is_empty()
        );
    }

    #[test]
    fn literal_pairs_and_unreadable_lines_are_not_evidence() {
        let mut p = placement();
        p.canaries[0].expected = Expected::Pass;
        let forged = log(&[
            ("TestRetryAfterSeconds", "pass"),
            ("TestRetryAfterTwice", "pass"),
            ("TestRetryAfterEdge", "fail"),
        ]);
        assert!(copies_out_of_order(&p, "sdk-go", "go test -json", &forged).is_empty());
        let junk = b"{not json\n=== RUN TestX\n{\"Action\":\"run\"}\n";
        assert!(copies_out_of_order(&placement(), "sdk-go", "go test -json", junk).is_empty());
    }
}
