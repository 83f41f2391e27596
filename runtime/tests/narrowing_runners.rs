//! Narrowing proven on the real runners Debian bookworm ships (the image
//! `parsers-runners:bookworm`, `scripts/fixtures/runners.Dockerfile`, built when absent):
//! tcl 8.6's tcltest (`-match`), phpunit 9.6 (`--filter`) and mocha 10 (`--grep`) get the
//! arguments taskc appends to their invocation (`lower::insert_arguments`), php's
//! run-tests.php (phpt) a `select` template (`lower::fill_template`). Each suite of
//! `scripts/fixtures/<runner>/` (written for taskc) runs in full, then narrowed to ids with
//! spaces, quotes, brackets, unicode, data sets and a failing test: the narrowed run reports
//! exactly the selected tests (the runner may count the others as skipped without naming
//! them), each with its outcome of the full run, complete and without tampering evidence.
//!
//! FAILS when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use taskc_compiler::lower::{fill_template, insert_arguments};
use taskc_compiler::parser::{LogParser, Narrowing};
use taskc_runtime::parsers::{parse, Outcome, ParsedLog};

const IMAGE: &str = "parsers-runners:bookworm";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/fixtures")
}

/// The runners' image, built when absent; `false` when Docker tests are skipped.
fn image() -> bool {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("skipped: TASKC_SKIP_DOCKER=1");
        return false;
    }
    let present = Command::new("docker")
        .args(["image", "inspect", IMAGE])
        .output()
        .expect("the docker CLI runs");
    if !present.status.success() {
        let built = Command::new("docker")
            .args(["build", "-q", "-t", IMAGE, "-f"])
            .arg(fixtures().join("runners.Dockerfile"))
            .arg(fixtures())
            .output()
            .expect("docker build runs");
        assert!(
            built.status.success(),
            "docker build {IMAGE}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    true
}

/// `command` run by bash in a copy of `scripts/fixtures/<suite>/` as an unprivileged user,
/// without network; what it printed (stdout).
fn run(suite: &str, command: &str) -> Vec<u8> {
    let name = format!("parsers-narrow-{suite}-{}", std::process::id());
    let out = Command::new("docker")
        .args(["run", "--rm", "--name", &name, "--network", "none"])
        .args(["-u", "65534:65534", "-e", "HOME=/tmp", "-v"])
        .arg(format!("{}:/src:ro", fixtures().join(suite).display()))
        .args([IMAGE, "bash", "-c"])
        .arg(format!("cp -r /src /tmp/repo && cd /tmp/repo && {command}"))
        .output()
        .expect("docker run runs");
    out.stdout
}

fn parsed(parser: LogParser, log: &[u8]) -> ParsedLog {
    let p = parse(parser, log).expect("no parser error");
    assert!(
        p.complete && p.tampering.is_empty(),
        "{parser}: complete {} tampering {:?}:\n{}",
        p.complete,
        p.tampering,
        String::from_utf8_lossy(log)
    );
    p
}

/// The full run, then the run narrowed by `narrow` to the full run's ids that `pick`
/// chooses: exactly those are reported, with the full run's outcomes.
fn prove(
    suite: &str,
    parser: LogParser,
    full: &str,
    pick: &dyn Fn(&str) -> bool,
    narrow: &dyn Fn(&str, &[String]) -> String,
) {
    let all = parsed(parser, &run(suite, full));
    let ids: Vec<String> = all.tests.keys().filter(|i| pick(i)).cloned().collect();
    assert!(
        ids.len() >= 3,
        "{parser}: too few ids picked from {:?}",
        all.tests
    );
    assert!(
        ids.iter().any(|i| !all.tests[i].is_pass()),
        "{parser}: pick a failing test too: {ids:?}"
    );
    let command = narrow(full, &ids);
    eprintln!("{parser}: {command}");
    let log = run(suite, &command);
    let narrowed = parsed(parser, &log);
    let reported: BTreeMap<&String, Outcome> =
        narrowed.tests.iter().map(|(i, o)| (i, *o)).collect();
    let expected: BTreeMap<&String, Outcome> = ids.iter().map(|i| (i, all.tests[i])).collect();
    assert_eq!(
        reported,
        expected,
        "{parser}: the narrowed run reports other tests or outcomes:\n{}",
        String::from_utf8_lossy(&log)
    );
    assert!(
        all.tests.len() > ids.len(),
        "{parser}: nothing was left out"
    );
}

/// The command with the parser's own arguments for `ids` (its descriptor's selector).
fn appended(parser: LogParser) -> impl Fn(&str, &[String]) -> String {
    move |command, ids| {
        let Narrowing::Arguments(selector) = parser.descriptor().narrowing else {
            panic!("{parser} is not narrowed by its own arguments");
        };
        insert_arguments(command, selector, ids).expect("the command is narrowable")
    }
}

#[test]
fn real_runners_run_exactly_the_selected_tests() {
    if !image() {
        return;
    }
    // tcltest: `-match`, names with brackets, quotes, spaces and unicode, and a failure.
    prove(
        "tcltest",
        LogParser::Tcltest,
        "tclsh tests/all.tcl -verbose ps -skip cookie-3.1 2>&1",
        &|i| {
            matches!(i, "cookie-1.1" | "cookie-1.2" | "jar-1.2")
                || i.contains('[')
                || i.contains('ü')
        },
        &appended(LogParser::Tcltest),
    );
    // phpunit 9.6: `--filter`, data sets by name and by number, and failures.
    prove(
        "phpunit",
        LogParser::PhpunitJunit,
        "phpunit --log-junit php://stdout tests 2>/dev/null",
        &|i| i.contains("data set") || i.contains("FailsOnPurpose"),
        &appended(LogParser::PhpunitJunit),
    );
    // mocha 10: `--grep` over full titles with quotes, brackets, unicode; a failure.
    prove(
        "mocha",
        LogParser::MochaJson,
        "mocha --reporter json 2>/dev/null",
        &|i| i.contains("quotes") || i.contains("positive") || i.contains("fails on purpose"),
        &appended(LogParser::MochaJson),
    );
    // run-tests.php: a `select` template naming the files (ids are the file paths).
    let phpt = "cp /usr/lib/php/*/build/run-tests.php . && NO_INTERACTION=1 \
                TEST_PHP_EXECUTABLE=$(command -v php) php run-tests.php -q {ids} 2>&1";
    prove(
        "phpt",
        LogParser::Phpt,
        &phpt.replace("{ids}", "tests"),
        &|i| i.contains("fails") || i.contains("unicode") || i.contains("parse"),
        &|_, ids| fill_template(phpt, ids),
    );
}
