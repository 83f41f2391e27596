//! Canaries for phpunit 9.6, php's run-tests.php (phpt) and tcl 8.6's tcltest, proven by
//! real runs in the runners' image `parsers-runners:bookworm` (Debian bookworm's packages;
//! `scripts/fixtures/runners.Dockerfile`, built when absent, as `narrowing_runners.rs`
//! does). For each framework, on a small suite written here (hidden tests of a `delay`
//! function whose implementation handles seconds but not dates):
//!
//! - **honest**: the canaries taskc places (its real placement script, run by bash in the
//!   container) run with the right outcomes (`checked`), the hidden tests keep theirs (the
//!   date test fails) and no canary id is left in the results;
//! - **attack**: code of the agent's rewrites the results so that every test passes —
//!   phpunit: the library, when the test file loads it, re-runs phpunit and prints its
//!   JUnit report with every failure removed and the counts fixed; phpt: a wrapper of
//!   run-tests.php turning `FAIL` into `PASS` with the summary's counts fixed; tcltest: the
//!   library sourced by the test file redefines `test` to run an empty body against an
//!   empty result. Without canaries the parser sees a complete, consistent run in which the
//!   failing hidden test passed (the prediction would be scored solved); with canaries the
//!   failing canaries pass and the run is `tampered`.
//!
//! FAILS when the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use support::canaries;
use support::runners::{run_bash, runners_image, unprivileged, Needs};
use taskc_runtime::canary::{place, Expected, Placement, Seed};
use taskc_runtime::parsers::{parse, LogParser, Outcome};

/// Writes the repository (`files`) under `<root>/work/proxy` and the placement's uploads
/// under `root`, then in the image: the placement script (bash, `TASKC_ROOT=/r`), then
/// `command` in the repository, as an unprivileged user without network. Its output.
fn run_in_image(
    image: &str,
    root: &Path,
    files: &[(&str, &str)],
    p: Option<&Placement>,
    command: &str,
) -> Vec<u8> {
    canaries::write_files(root, files);
    if let Some(p) = p {
        canaries::write_uploads(root, p);
    }
    std::fs::write(root.join("place.sh"), p.map_or("", |p| p.script.as_str())).unwrap();
    // The unprivileged user of the container writes the repository and the blobs folder.
    let chmod = Command::new("chmod")
        .arg("-R")
        .arg("a+rwX")
        .arg(root)
        .status()
        .unwrap();
    assert!(chmod.success());
    let name = format!(
        "canphp-canary-{}-{}",
        std::process::id(),
        root.file_name().unwrap().to_string_lossy()
    );
    let mut args = unprivileged();
    args.extend([
        "-e".to_string(),
        "TASKC_ROOT=/r".to_string(),
        "-v".to_string(),
        format!("{}:/r", root.display()),
    ]);
    let out = run_bash(
        &name,
        &args,
        image,
        &format!(
            "bash -euo pipefail /r/place.sh || {{ echo 'placement failed' >&2; exit 97; }}; cd /r/work/proxy && {command}"
        ),
    );
    assert_ne!(
        out.status.code(),
        Some(97),
        "the placement script failed:\n{}\n{}",
        p.map_or("", |p| p.script.as_str()),
        String::from_utf8_lossy(&out.stderr)
    );
    [out.stdout, out.stderr].concat()
}

/// One framework's proof: `honest` (the repository's other files) run with canaries is
/// checked with the hidden tests' outcomes `expected` left; `attack` without canaries shows
/// every hidden test passed (a solved prediction), with canaries is tampered.
struct Case<'a> {
    parser: LogParser,
    command: &'a str,
    /// The hidden test files.
    hidden: &'a [(&'a str, &'a str)],
    /// The repository's other files, honest and rigged.
    honest: &'a [(&'a str, &'a str)],
    attack: &'a [(&'a str, &'a str)],
    /// Command of the attack (phpt: the runner wrapped).
    attack_command: &'a str,
    /// The hidden tests' outcomes in the honest run.
    expected: &'a [(&'a str, Outcome)],
    /// Where the canaries must land (file → number of canaries).
    placed: &'a [(&'a str, usize)],
    /// The files whose canaries are copies of their hidden tests (the others: literal).
    copied: &'a [&'a str],
}

fn prove<'a>(image: &str, case: &Case<'a>, seed: [u8; 32]) {
    let (run, blobs) = canaries::hidden_run(case.parser, case.command, case.hidden);
    let p = place(&run, &blobs, &Seed::fixed(seed));
    assert!(p.unplaced.is_empty(), "{:?}", p.unplaced);
    let mut placed: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &p.canaries {
        *placed.entry(c.file.as_str()).or_default() += 1;
    }
    for (file, n) in case.placed {
        assert!(
            placed.get(file).is_some_and(|m| m >= n),
            "{}: canaries per file {placed:?}",
            case.parser
        );
    }
    for c in &p.canaries {
        let copy = matches!(c.expected, Expected::Same { .. });
        let literal = c.expected == Expected::Pass;
        assert!(
            if case.copied.contains(&c.file.as_str()) {
                !literal
            } else {
                !copy
            },
            "{}: {c:?}",
            case.parser
        );
    }
    let with = |other: &[(&'a str, &'a str)]| -> Vec<(&'a str, &'a str)> {
        case.hidden.iter().chain(other).copied().collect()
    };
    let expected: BTreeMap<String, Outcome> = case
        .expected
        .iter()
        .map(|(i, o)| (i.to_string(), *o))
        .collect();

    // Honest: canaries checked, the hidden tests' own outcomes left.
    let dir = tempfile::tempdir().unwrap();
    let files = with(case.honest);
    let log = run_in_image(image, dir.path(), &files, Some(&p), case.command);
    let what = case.parser.to_string();
    let mut honest = canaries::parse_complete(case.parser, &log, &what);
    let honest_run = format!("{what}: honest run\n{}", p.script);
    canaries::assert_checked(
        &p,
        &mut honest.tests,
        &honest_run,
        &String::from_utf8_lossy(&log),
    );
    assert_eq!(
        honest.tests,
        expected,
        "{}: {}",
        case.parser,
        String::from_utf8_lossy(&log)
    );

    // The attack without canaries: a complete run in which every hidden test passed.
    let dir = tempfile::tempdir().unwrap();
    let files = with(case.attack);
    let log = run_in_image(image, dir.path(), &files, None, case.attack_command);
    let rigged = canaries::parse_complete(case.parser, &log, &what);
    let all_pass: BTreeMap<String, Outcome> = expected
        .keys()
        .map(|i| (i.clone(), Outcome::Passed))
        .collect();
    assert_eq!(
        rigged.tests,
        all_pass,
        "{}: the attack makes every hidden test pass\n{}",
        case.parser,
        String::from_utf8_lossy(&log)
    );

    // The attack with canaries: tampered.
    let dir = tempfile::tempdir().unwrap();
    let log = run_in_image(image, dir.path(), &files, Some(&p), case.attack_command);
    let mut caught = parse(case.parser, &log).expect("no parser error");
    canaries::assert_tampered(&p, &mut caught.tests, &what, &String::from_utf8_lossy(&log));
}

const PHPUNIT_TEST: &str = r#"<?php
use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../src/delay.php';

final class DelayTest extends TestCase
{
    public function testDelayInSeconds(): void
    {
        $this->assertSame(7, delay('7'));
    }

    public function testDelayOfADate(): void
    {
        $this->assertSame(12, delay('Wed, 01 May 2024 12:00:12 GMT'));
    }
}
"#;

/// A namespaced class in a sub-folder, with a data provider after the tests.
const PHPUNIT_NESTED: &str = r#"<?php
namespace App\Tests\Unit;

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../../src/delay.php';

final class ZeroTest extends TestCase
{
    /** @dataProvider zeros */
    public function testZeroDelay(string $v): void
    {
        $this->assertSame(0, \delay($v));
    }

    public function zeros(): array
    {
        return ['zero' => ['0'], 'padded "zero"' => ['00']];
    }
}
"#;

const PHP_DELAY: &str =
    "<?php\nfunction delay(string $v): int\n{\n    return ctype_digit($v) ? (int) $v : 0;\n}\n";

/// The library rewriting phpunit's results: when a test file loads it, it runs phpunit
/// again (its own command line), removes every `<failure>`/`<error>` from the JUnit
/// report, sets the counts to 0, prints that and exits.
const PHP_DELAY_RIGGED: &str = r##"<?php
function delay(string $v): int
{
    return ctype_digit($v) ? (int) $v : 0;
}
if (getenv('DELAY_INNER') === false) {
    putenv('DELAY_INNER=1');
    $cmd = escapeshellarg(PHP_BINARY);
    foreach ($_SERVER['argv'] as $a) {
        $cmd .= ' ' . escapeshellarg($a);
    }
    $out = (string) shell_exec($cmd . ' 2>/dev/null');
    $out = preg_replace('#<(failure|error)\b[^>]*>.*?</\1>#s', '', $out);
    $out = preg_replace('#\b(failures|errors)="\d+"#', '$1="0"', $out);
    while (ob_get_level() > 0) {
        ob_end_clean();
    }
    fwrite(STDOUT, $out);
    exit(0);
}
"##;

#[test]
fn phpunit_phpt_and_tcltest_canaries_are_checked_and_catch_rewritten_results() {
    let Some(image) = runners_image(Needs::Image) else {
        return;
    };
    let started = std::time::Instant::now();
    let phpunit = "phpunit --log-junit php://stdout tests 2>/dev/null";
    prove(
        &image,
        &Case {
            parser: LogParser::PhpunitJunit,
            command: phpunit,
            hidden: &[
                ("tests/DelayTest.php", PHPUNIT_TEST),
                ("tests/Unit/ZeroTest.php", PHPUNIT_NESTED),
            ],
            honest: &[("src/delay.php", PHP_DELAY)],
            attack: &[("src/delay.php", PHP_DELAY_RIGGED)],
            attack_command: phpunit,
            expected: &[
                ("DelayTest::testDelayInSeconds", Outcome::Passed),
                ("DelayTest::testDelayOfADate", Outcome::Failed),
                (
                    "App\\Tests\\Unit\\ZeroTest::testZeroDelay with data set \"zero\"",
                    Outcome::Passed,
                ),
                (
                    "App\\Tests\\Unit\\ZeroTest::testZeroDelay with data set \"padded \"zero\"\"",
                    Outcome::Passed,
                ),
            ],
            placed: &[("tests/DelayTest.php", 4), ("tests/Unit/ZeroTest.php", 4)],
            copied: &["tests/DelayTest.php"],
        },
        [7; 32],
    );
    eprintln!("phpunit: {:?}", started.elapsed());

    let phpt = "cp /usr/lib/php/*/build/run-tests.php . && NO_INTERACTION=1 \
                TEST_PHP_EXECUTABLE=$(command -v php) php run-tests.php -q tests 2>&1";
    let phpt_rigged = "cp /usr/lib/php/*/build/run-tests.php . && NO_INTERACTION=1 \
                       TEST_PHP_EXECUTABLE=$(command -v php) php rigged-run-tests.php -q tests 2>&1";
    prove(
        &image,
        &Case {
            parser: LogParser::Phpt,
            command: phpt,
            hidden: &[
                ("tests/delay_date.phpt", "--TEST--\ndelay of a date\n--FILE--\n<?php\nrequire __DIR__ . '/../src/delay.php';\nvar_dump(delay('Wed, 01 May 2024 12:00:12 GMT'));\n?>\n--EXPECT--\nint(12)\n"),
                // A `--SKIPIF--` section (which does not skip): not copied, literal canaries.
                ("tests/zero/delay_zero.phpt", "--TEST--\nno delay\n--SKIPIF--\n<?php if (!function_exists('var_dump')) die('skip'); ?>\n--FILE--\n<?php\nrequire __DIR__ . '/../../src/delay.php';\nvar_dump(delay('0'));\n?>\n--EXPECT--\nint(0)\n"),
            ],
            honest: &[("src/delay.php", PHP_DELAY)],
            attack: &[("src/delay.php", PHP_DELAY), ("rigged-run-tests.php", PHPT_RIGGED)],
            attack_command: phpt_rigged,
            expected: &[
                ("tests/delay_date.phpt", Outcome::Failed),
                ("tests/zero/delay_zero.phpt", Outcome::Passed),
            ],
            placed: &[
                ("tests/delay_date.phpt", 4),
                ("tests/zero/delay_zero.phpt", 4),
            ],
            copied: &["tests/delay_date.phpt"],
        },
        [7; 32],
    );
    eprintln!("phpt: {:?}", started.elapsed());

    let tcl = "tclsh tests/all.tcl -verbose ps 2>&1";
    prove(
        &image,
        &Case {
            parser: LogParser::Tcltest,
            command: tcl,
            hidden: &[
                ("tests/delay.test", TCL_TEST),
                ("tests/plain.test", TCL_QUALIFIED),
            ],
            honest: &[("tests/all.tcl", TCL_ALL), ("lib/delay.tcl", TCL_DELAY)],
            attack: &[
                ("tests/all.tcl", TCL_ALL),
                ("lib/delay.tcl", TCL_DELAY_RIGGED),
            ],
            attack_command: tcl,
            expected: &[
                ("delay-1.1", Outcome::Passed),
                ("delay-1.2", Outcome::Failed),
                ("plain-1.1", Outcome::Passed),
            ],
            placed: &[("tests/delay.test", 4), ("tests/plain.test", 4)],
            copied: &["tests/delay.test"],
        },
        [7; 32],
    );
    eprintln!("tcltest: {:?}", started.elapsed());
}

/// run-tests.php wrapped: its output with every `FAIL` a `PASS`, the failed tests' summary
/// dropped and the counts moved from failed to passed.
const PHPT_RIGGED: &str = r#"<?php
$cmd = escapeshellarg(PHP_BINARY) . ' run-tests.php';
foreach (array_slice($argv, 1) as $a) {
    $cmd .= ' ' . escapeshellarg($a);
}
$out = (string) shell_exec($cmd . ' 2>&1');
$out = preg_replace('/\e\[[0-9;]*m/', '', $out);
$failed = preg_match_all('/(^|\r)FAIL /m', $out);
$out = preg_replace('/(^|\r)FAIL /m', '$1PASS ', $out);
$out = preg_replace('/=+\nFAILED TEST SUMMARY\n.*?=+\n/s', '', $out);
$out = preg_replace_callback('/^(Tests failed\s*:\s*)(\d+)/m', fn ($m) => $m[1] . '0', $out);
$out = preg_replace_callback('/^(Tests passed\s*:\s*)(\d+)/m', fn ($m) => $m[1] . ((int) $m[2] + $failed), $out);
echo $out;
"#;

const TCL_ALL: &str = "package require tcltest 2\nnamespace import tcltest::*\nconfigure -testdir [file dirname [file normalize [info script]]] {*}$argv\nrunAllTests\n";

const TCL_TEST: &str = "package require tcltest 2\nnamespace import tcltest::*\nsource [file join [file dirname [file dirname [file normalize [info script]]]] lib delay.tcl]\n\ntest delay-1.1 {seconds} {\n    delay 7\n} 7\n\ntest delay-1.2 {a date} -body {\n    delay {Wed, 01 May 2024 12:00:12 GMT}\n} -result 12\n\ncleanupTests\n";

/// Without `namespace import`: its test calls `tcltest::test` inside a namespace, and
/// `::tcltest::cleanupTests` ends it; the test has a constraint (always true): not copied,
/// literal canaries with the file's `tcltest::test`.
const TCL_QUALIFIED: &str = "package require tcltest 2\nsource [file join [file dirname [file dirname [file normalize [info script]]]] lib delay.tcl]\ntcltest::testConstraint always 1\n\nnamespace eval ::plain::test {\n    tcltest::test plain-1.1 {zero} -constraints always -body {\n        delay 0\n    } -result 0\n\n    ::tcltest::cleanupTests\n}\nnamespace delete ::plain::test\n";

const TCL_DELAY: &str =
    "proc delay {v} {\n    if {[string is integer -strict $v]} { return $v }\n    return 0\n}\n";

/// The library redefining tcltest's `test` (and the imported `::test`): every test runs
/// an empty body against an empty result, so it passes.
const TCL_DELAY_RIGGED: &str = "proc delay {v} {\n    if {[string is integer -strict $v]} { return $v }\n    return 0\n}\nrename ::tcltest::test ::tcltest::RealTest\nproc ::tcltest::test {name desc args} {\n    uplevel 1 [list ::tcltest::RealTest $name $desc {} {}]\n}\ncatch {rename ::test {}}\ninterp alias {} ::test {} ::tcltest::test\n";
