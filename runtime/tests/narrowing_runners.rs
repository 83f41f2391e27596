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

mod support;

use std::collections::BTreeMap;

use support::canaries::parse_complete;
use support::runners::{fixtures, run_bash, runners_image, unprivileged, Needs};
use taskc_compiler::lower::{fill_template, insert_arguments};
use taskc_compiler::parser::{LogParser, Narrowing};
use taskc_runtime::parsers::{Outcome, ParsedLog};

/// `command` run by bash in `image`, in a copy of `scripts/fixtures/<suite>/`, as an
/// unprivileged user without network; what it printed (stdout).
fn run(image: &str, suite: &str, command: &str) -> Vec<u8> {
    let name = format!("parsers-narrow-{suite}-{}", std::process::id());
    let mut args = unprivileged();
    args.extend([
        "-v".to_string(),
        format!("{}:/src:ro", fixtures().join(suite).display()),
    ]);
    let script = format!("cp -r /src /tmp/repo && cd /tmp/repo && {command}");
    run_bash(&name, &args, image, &script).stdout
}

fn parsed(parser: LogParser, log: &[u8]) -> ParsedLog {
    parse_complete(parser, log, &parser.to_string())
}

/// The full run, then the run narrowed by `narrow` to the full run's ids that `pick`
/// chooses: exactly those are reported, with the full run's outcomes.
fn prove(
    image: &str,
    suite: &str,
    parser: LogParser,
    full: &str,
    pick: &dyn Fn(&str) -> bool,
    narrow: &dyn Fn(&str, &[String]) -> String,
) {
    let all = parsed(parser, &run(image, suite, full));
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
    let log = run(image, suite, &command);
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
    let Some(image) = runners_image(Needs::Image) else {
        return;
    };
    // tcltest: `-match`, names with brackets, quotes, spaces and unicode, and a failure.
    prove(
        &image,
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
        &image,
        "phpunit",
        LogParser::PhpunitJunit,
        "phpunit --log-junit php://stdout tests 2>/dev/null",
        &|i| i.contains("data set") || i.contains("FailsOnPurpose"),
        &appended(LogParser::PhpunitJunit),
    );
    // mocha 10: `--grep` over full titles with quotes, brackets, unicode; a failure.
    prove(
        &image,
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
        &image,
        "phpt",
        LogParser::Phpt,
        &phpt.replace("{ids}", "tests"),
        &|i| i.contains("fails") || i.contains("unicode") || i.contains("parse"),
        &|_, ids| fill_template(phpt, ids),
    );
}
