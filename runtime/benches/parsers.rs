//! Throughput of the pytest log parser against SWE-bench's own
//! (`swebench.harness.log_parsers.python.parse_log_pytest`) on the same log.
//!
//! `cargo bench -p taskc-runtime --bench parsers` writes a deterministic 200 MB
//! pytest `-rA` log (tracebacks, captured output with colours and fake result
//! lines, then a short test summary of about a million lines with parametrised
//! ids) to `target/bench-logs/`, times our parser (best of 3), then runs
//! `scripts/bench-swebench-parser.py` on the same file (which installs swebench
//! into `target/swebench-venv` on first use) and prints both figures and their
//! ratio. Set `TASKC_BENCH_LOG_MB` to change the size, `TASKC_BENCH_SKIP_SWEBENCH=1`
//! to skip the comparison.
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use taskc_runtime::parsers::{parse, LogParser};

const SUMMARY_TESTS: usize = 1_000_000;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("parsers bench: run with `cargo bench -p taskc-runtime --bench parsers`");
        return;
    }
    runner_parsers();
    if std::env::var("TASKC_BENCH_ONLY_RUNNERS").is_ok_and(|v| v == "1") {
        return;
    }
    let megabytes: usize = std::env::var("TASKC_BENCH_LOG_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../target"));
    let path = target
        .join("bench-logs")
        .join(format!("pytest-rA-{megabytes}mb.log"));
    if let Err(err) = ensure_log(&path, megabytes * 1_000_000) {
        eprintln!("cannot write the bench log {}: {err}", path.display());
        std::process::exit(1);
    }
    let log = match fs::read(&path) {
        Ok(log) => log,
        Err(err) => {
            eprintln!("cannot read the bench log {}: {err}", path.display());
            std::process::exit(1);
        }
    };
    let mb = log.len() as f64 / 1e6;
    println!("log: {} ({mb:.1} MB)", path.display());

    let mut best = Duration::MAX;
    let mut tests = 0;
    let mut complete = false;
    for _ in 0..3 {
        let start = Instant::now();
        let parsed = parse(LogParser::Pytest, &log).expect("pytest is a known parser");
        best = best.min(start.elapsed());
        tests = parsed.tests.len();
        complete = parsed.complete;
        drop(parsed);
    }
    let ours = mb / best.as_secs_f64();
    println!(
        "taskc pytest parser:    {ours:>8.1} MB/s  ({:.3} s best of 3, {tests} tests, complete: {complete})",
        best.as_secs_f64()
    );

    if std::env::var("TASKC_BENCH_SKIP_SWEBENCH").is_ok_and(|v| v == "1") {
        println!("SWE-bench parser:       skipped (TASKC_BENCH_SKIP_SWEBENCH=1)");
        return;
    }
    let script = manifest.join("../scripts/bench-swebench-parser.py");
    match run_swebench(&script, &path) {
        Ok((theirs, their_tests, seconds, version)) => {
            println!(
                "SWE-bench parser:       {theirs:>8.1} MB/s  ({seconds:.3} s best of 3, {their_tests} ids, swebench {version})"
            );
            println!("ratio:                  {:>8.1}x", ours / theirs);
        }
        Err(why) => println!("SWE-bench parser:       no comparison: {why}"),
    }
}

/// Runs the Python script; returns (MB/s, ids, seconds, swebench version).
fn run_swebench(script: &Path, log: &Path) -> Result<(f64, u64, f64, String), String> {
    let output = Command::new("python3")
        .arg(script)
        .arg(log)
        .arg("--repeat")
        .arg("3")
        .output()
        .map_err(|err| format!("cannot run python3: {err}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or("");
    let value: serde_json::Value = serde_json::from_str(line).map_err(|_| {
        format!(
            "the script printed no result (exit {:?}): {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("")
        )
    })?;
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        return Err(error.to_string());
    }
    let number = |key: &str| value.get(key).and_then(|v| v.as_f64());
    match (number("mb_per_s"), number("tests"), number("seconds")) {
        (Some(rate), Some(tests), Some(seconds)) => Ok((
            rate,
            tests as u64,
            seconds,
            value
                .get("swebench")
                .and_then(|v| v.as_str())
                .unwrap_or("?")
                .to_string(),
        )),
        _ => Err(format!("unexpected script output: {line}")),
    }
}

/// Writes the log unless a file of about the right size is already there.
fn ensure_log(path: &Path, size: usize) -> std::io::Result<()> {
    if fs::metadata(path).is_ok_and(|m| m.len() as usize >= size * 99 / 100) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    let mut out = BufWriter::with_capacity(1 << 20, fs::File::create(&tmp)?);
    let summary = summary_section();
    write_log(&mut out, size.saturating_sub(summary.len()), &summary)?;
    out.flush()?;
    drop(out);
    fs::rename(tmp, path)
}

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn node_id(rng: &mut Rng, i: usize) -> String {
    let package = i / 20_000;
    let module = (i / 400) % 50;
    let mut id = format!("tests/pkg{package}/test_mod{module}.py::");
    if rng.below(3) == 0 {
        id.push_str(&format!("TestCase{}::", (i / 40) % 10));
    }
    id.push_str(&format!("test_behaviour_{i}"));
    match rng.below(6) {
        0 => id.push_str(&format!("[{}-{}]", rng.below(100), rng.below(100))),
        1 => id.push_str(&format!("[a b-{}]", rng.below(1000))),
        2 => id.push_str(&format!("[x[{}]]", rng.below(10))),
        3 => id.push_str("[utf8-é-ß]"),
        _ => {}
    }
    id
}

/// About a million summary lines, grouped by status as pytest prints them.
fn summary_section() -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut groups: [Vec<u8>; 6] = Default::default();
    let mut counts = [0usize; 6];
    for i in 0..SUMMARY_TESTS {
        let id = node_id(&mut rng, i);
        let roll = rng.below(1000);
        let (group, line) = match roll {
            0..=899 => (0, format!("PASSED {id}\n")),
            900..=919 => (
                1,
                format!(
                    "SKIPPED [1] {}:{}: requires network\n",
                    id.split("::").next().unwrap_or(""),
                    10 + i % 500
                ),
            ),
            920..=929 => (2, format!("XFAIL {id} - known bug #{}\n", i % 97)),
            930..=934 => (3, format!("XPASS {id} - fixed upstream\n")),
            935..=944 => (
                4,
                format!("ERROR {id} - RuntimeError: fixture 'db' exploded\n"),
            ),
            _ => (
                5,
                format!(
                    "FAILED {id} - AssertionError: assert {} == {}\n",
                    i % 7,
                    i % 11
                ),
            ),
        };
        groups[group].extend_from_slice(line.as_bytes());
        counts[group] += 1;
    }
    let mut out =
        b"=========================== short test summary info ============================\n"
            .to_vec();
    for group in &groups {
        out.extend_from_slice(group);
    }
    out.extend_from_slice(
        format!(
            "==== {} failed, {} passed, {} skipped, {} xfailed, {} xpassed, {} errors in 4711.42s (1:18:31) ====\n",
            counts[5], counts[0], counts[1], counts[2], counts[3], counts[4]
        )
        .as_bytes(),
    );
    out
}

/// Header, progress, then failure and captured-output sections up to `noise`
/// bytes, then the summary.
fn write_log(out: &mut impl Write, noise: usize, summary: &[u8]) -> std::io::Result<()> {
    let mut rng = Rng(0x51ed_270b_a1b2_c3d4);
    let mut written = 0usize;
    let put = |out: &mut dyn Write, s: &str, written: &mut usize| -> std::io::Result<()> {
        *written += s.len();
        out.write_all(s.as_bytes())
    };
    put(out, "+ python -m pytest -rA tests\n", &mut written)?;
    put(
        out,
        "============================= test session starts ==============================\n",
        &mut written,
    )?;
    put(out, "platform linux -- Python 3.11.7, pytest-8.3.3, pluggy-1.5.0\nrootdir: /testbed\nconfigfile: pyproject.toml\nplugins: xdist-3.6.1, cov-5.0.0\n", &mut written)?;
    put(
        out,
        &format!("collected {SUMMARY_TESTS} items\n\n"),
        &mut written,
    )?;
    for module in 0..(SUMMARY_TESTS / 400) {
        let dots: String = (0..400)
            .map(|_| match rng.below(100) {
                0..=89 => '.',
                90..=94 => 'F',
                95..=97 => 's',
                _ => 'x',
            })
            .collect();
        for (n, chunk) in dots.as_bytes().chunks(56).enumerate() {
            let prefix = if n == 0 {
                format!("tests/pkg{}/test_mod{}.py ", module / 50, module % 50)
            } else {
                String::new()
            };
            let chunk = String::from_utf8_lossy(chunk);
            put(
                out,
                &format!(
                    "{prefix}{chunk:<60} [{:>3}%]\n",
                    module * 100 / (SUMMARY_TESTS / 400)
                ),
                &mut written,
            )?;
        }
    }
    put(
        out,
        "\n=================================== FAILURES ===================================\n",
        &mut written,
    )?;
    let mut i = 0usize;
    let mut passes = false;
    while written < noise {
        if !passes && written > noise * 2 / 3 {
            put(out, "==================================== PASSES ====================================\n", &mut written)?;
            passes = true;
        }
        i += 1;
        let id = node_id(&mut rng, i * 13 % SUMMARY_TESTS);
        let name = id.rsplit("::").next().unwrap_or("test");
        put(
            out,
            &format!("{:_^80}\n", format!(" {name} ")),
            &mut written,
        )?;
        if !passes {
            put(
                out,
                &format!(
                    "\nself = <tests.test_mod.TestCase object at 0x7f{:010x}>\n\n",
                    rng.next() & 0xff_ffff_ffff
                ),
                &mut written,
            )?;
            put(out, "    def test_behaviour(self):\n        jar = CookieJar(policy=DefaultPolicy())\n        jar.set(\"session\", \"abc\", expires=None)\n", &mut written)?;
            put(out, &format!(">       assert jar.count() == {}\nE       AssertionError: assert {} == {}\nE        +  where {} = <bound method CookieJar.count of <CookieJar[]>>()\n\n", i % 9, i % 7, i % 9, i % 7), &mut written)?;
            put(
                out,
                &format!("tests/test_mod.py:{}: AssertionError\n", 10 + i % 900),
                &mut written,
            )?;
        }
        put(
            out,
            "----------------------------- Captured stdout call -----------------------------\n",
            &mut written,
        )?;
        for line in 0..(4 + rng.below(12)) {
            let text = match rng.below(8) {
                0 => format!("\x1b[32mINFO\x1b[0m     cookies.jar:jar.py:{} stored cookie #{line} for \x1b[1mexample.com\x1b[0m", 100 + line),
                1 => format!("PASSED tests/pkg0/test_fake.py::test_printed_{line}"),
                2 => format!("FAILED {id} - printed by the test itself"),
                3 => "=========================== short test summary info ============================".to_string(),
                4 => format!("\x1b[33mWARNING\x1b[0m  urllib3.connectionpool: Retrying (Retry(total={line})) after connection broken"),
                _ => format!("DEBUG request {line}: GET https://example.com/api/v1/cookies?page={} -> 200 ({} bytes)", rng.below(100), rng.below(100_000)),
            };
            put(out, &text, &mut written)?;
            put(out, "\n", &mut written)?;
        }
    }
    out.write_all(summary)
}

/// The runners' parsers of issue 25 on generated logs of `TASKC_BENCH_RUNNERS_MB` MB each
/// (default 50; in memory, not kept): MB/s best of 3 (docs/performance.md).
fn runner_parsers() {
    let megabytes: usize = std::env::var("TASKC_BENCH_RUNNERS_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let size = megabytes * 1_000_000;
    let logs: [(LogParser, Vec<u8>); 14] = [
        (LogParser::PhpunitJunit, phpunit_log(size)),
        (LogParser::Vitest, vitest_log(size)),
        (LogParser::Surefire, jvm_log(size, "surefire")),
        (LogParser::Gradle, jvm_log(size, "gradle")),
        (LogParser::DotnetTrx, trx_log(size)),
        (LogParser::PlaywrightJson, playwright_log(size)),
        (LogParser::Bun, bun_log(size)),
        (LogParser::DartJson, dart_log(size)),
        (LogParser::Phpt, phpt_log(size)),
        (LogParser::Tcltest, tcltest_log(size)),
        (LogParser::RspecJson, rspec_log(size)),
        (LogParser::MochaJson, mocha_log(size)),
        (LogParser::Minitest, minitest_log(size)),
        (LogParser::Unittest, unittest_log(size)),
    ];
    for (parser, log) in logs {
        let mb = log.len() as f64 / 1e6;
        let mut best = Duration::MAX;
        let mut summary = String::new();
        for _ in 0..3 {
            let start = Instant::now();
            let parsed = parse(parser, &log).expect("no parser error");
            best = best.min(start.elapsed());
            summary = format!(
                "{} tests, complete: {}, tampering: {}",
                parsed.tests.len(),
                parsed.complete,
                parsed.tampering.len()
            );
        }
        println!(
            "taskc {:<15} {:>8.1} MB/s  ({mb:.1} MB, {:.3} s best of 3, {summary})",
            parser.as_str(),
            mb / best.as_secs_f64(),
            best.as_secs_f64()
        );
    }
}

/// Every 10th test fails, every 17th is skipped.
fn kind(i: usize) -> u8 {
    if i % 10 == 3 {
        b'F'
    } else if i % 17 == 5 {
        b'S'
    } else {
        b'.'
    }
}

fn phpunit_log(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 4096);
    let (mut n, mut bad) = (0, 0);
    while body.len() < size {
        let k = kind(n);
        let head = format!(
            "      <testcase name=\"testParses with data set &quot;case {n} [x]&quot;\" class=\"App\\Tests\\CookieJarTest\" classname=\"App.Tests.CookieJarTest\" file=\"/repo/tests/CookieJarTest.php\" line=\"44\" assertions=\"1\" time=\"0.000123\""
        );
        body.extend_from_slice(head.as_bytes());
        match k {
            b'F' => {
                bad += 1;
                body.extend_from_slice(b">\n        <failure type=\"PHPUnit\\Framework\\ExpectationFailedException\">Failed asserting that false is identical to true.\n\n/repo/tests/CookieJarTest.php:46</failure>\n      </testcase>\n");
            }
            b'S' => body.extend_from_slice(b">\n        <skipped/>\n      </testcase>\n"),
            _ => body.extend_from_slice(b"/>\n"),
        }
        n += 1;
    }
    let mut log = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"App\\Tests\\CookieJarTest\" tests=\"{n}\" failures=\"{bad}\" errors=\"0\">\n"
    )
    .into_bytes();
    log.extend_from_slice(&body);
    log.extend_from_slice(b"  </testsuite>\n</testsuites>\n");
    log
}

fn status_words(k: u8) -> (&'static str, &'static str) {
    match k {
        b'F' => ("failed", "failed"),
        b'S' => ("pending", "pending"),
        _ => ("passed", "passed"),
    }
}

fn rspec_log(size: usize) -> Vec<u8> {
    let mut log = b"{\"version\":\"3.12.0\",\"examples\":[".to_vec();
    let (mut n, mut failed, mut pending) = (0, 0, 0);
    while log.len() < size {
        let k = kind(n);
        failed += usize::from(k == b'F');
        pending += usize::from(k == b'S');
        if n > 0 {
            log.push(b',');
        }
        let (status, _) = status_words(k);
        log.extend_from_slice(format!(
            "{{\"id\":\"./spec/jar_spec.rb[1:{n}]\",\"description\":\"reads case {n} with \\\"quotes\\\"\",\"full_description\":\"CookieJar #parse reads case {n} with \\\"quotes\\\"\",\"status\":\"{status}\",\"file_path\":\"./spec/jar_spec.rb\",\"line_number\":12,\"run_time\":0.000123,\"pending_message\":null}}"
        ).as_bytes());
        n += 1;
    }
    log.extend_from_slice(format!(
        "],\"summary\":{{\"duration\":1.5,\"example_count\":{n},\"failure_count\":{failed},\"pending_count\":{pending},\"errors_outside_of_examples_count\":0}},\"summary_line\":\"{n} examples\"}}\n"
    ).as_bytes());
    log
}

fn mocha_log(size: usize) -> Vec<u8> {
    let mut lists: [Vec<u8>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    let mut counts = [0usize; 3];
    let mut n = 0;
    let mut total = 0;
    while total < size {
        let which = match kind(n) {
            b'F' => 1,
            b'S' => 2,
            _ => 0,
        };
        let entry = format!(
            "    {{\n      \"title\": \"accepts {n} as positive\",\n      \"fullTitle\": \"CookieJar #parse accepts {n} as positive\",\n      \"file\": \"/repo/test/jar.test.js\",\n      \"duration\": 1,\n      \"currentRetry\": 0,\n      \"err\": {{}}\n    }}"
        );
        if counts[which] > 0 {
            lists[which].extend_from_slice(b",\n");
        }
        lists[which].extend_from_slice(entry.as_bytes());
        counts[which] += 1;
        total += entry.len();
        n += 1;
    }
    let mut log = format!(
        "{{\n  \"stats\": {{\n    \"suites\": 1,\n    \"tests\": {n},\n    \"passes\": {},\n    \"pending\": {},\n    \"failures\": {}\n  }},\n  \"tests\": [],\n",
        counts[0], counts[2], counts[1]
    )
    .into_bytes();
    for (i, key) in ["passes", "failures", "pending"].iter().enumerate() {
        log.extend_from_slice(format!("  \"{key}\": [\n").as_bytes());
        log.extend_from_slice(&lists[i]);
        log.extend_from_slice(if i == 2 { b"\n  ]\n}\n" } else { b"\n  ],\n" });
    }
    log
}

fn minitest_log(size: usize) -> Vec<u8> {
    let mut log = b"Run options: -v --seed 1\n\n# Running:\n\n".to_vec();
    let mut details = Vec::new();
    let (mut n, mut failed, mut skipped) = (0, 0, 0);
    while log.len() + details.len() < size {
        let k = kind(n);
        log.extend_from_slice(
            format!(
                "Cookie jar::with [brackets]#test_{n:04}_reads case {n} = 0.00 s = {}\n",
                k as char
            )
            .as_bytes(),
        );
        match k {
            b'F' => {
                failed += 1;
                details.extend_from_slice(format!("  {}) Failure:\nCookie jar::with [brackets]#test_{n:04}_reads case {n} [test/test_jar.rb:39]:\nExpected: 2\n  Actual: 1\n\n", failed + skipped).as_bytes());
            }
            b'S' => {
                skipped += 1;
                details.extend_from_slice(format!("  {}) Skipped:\nCookie jar::with [brackets]#test_{n:04}_reads case {n} [test/test_jar.rb:18]:\nno network\n\n", failed + skipped).as_bytes());
            }
            _ => {}
        }
        n += 1;
    }
    log.extend_from_slice(b"\nFinished in 1.5s, 1.0 runs/s, 1.0 assertions/s.\n\n");
    log.extend_from_slice(&details);
    log.extend_from_slice(
        format!("{n} runs, {n} assertions, {failed} failures, 0 errors, {skipped} skips\n")
            .as_bytes(),
    );
    log
}

fn unittest_log(size: usize) -> Vec<u8> {
    let mut log = Vec::with_capacity(size + 4096);
    let (mut n, mut failed, mut skipped) = (0, 0, 0);
    while log.len() < size {
        let status = match kind(n) {
            b'F' => {
                failed += 1;
                "FAIL".to_string()
            }
            b'S' => {
                skipped += 1;
                "skipped 'no network'".to_string()
            }
            _ => "ok".to_string(),
        };
        log.extend_from_slice(
            format!("test_case_{n} (tests.test_jar.CookieJarTest.test_case_{n}) ... {status}\n")
                .as_bytes(),
        );
        n += 1;
    }
    log.extend_from_slice(
        format!(
            "\n----------------------------------------------------------------------\nRan {n} tests in 1.500s\n\nFAILED (failures={failed}, skipped={skipped})\n"
        )
        .as_bytes(),
    );
    log
}

fn vitest_log(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 4096);
    let (mut n, mut passed, mut failed) = (0, 0, 0);
    while body.len() < size {
        let status = match kind(n) {
            b'F' => {
                failed += 1;
                "failed"
            }
            b'S' => "skipped",
            _ => {
                passed += 1;
                "passed"
            }
        };
        if n > 0 {
            body.push(b',');
        }
        body.extend_from_slice(format!(
            "{{\"ancestorTitles\":[\"cookie jar\",\"parse [x]\"],\"fullName\":\"cookie jar parse [x] reads case {n} \\\"q\\\"\",\"status\":\"{status}\",\"title\":\"reads case {n} \\\"q\\\"\",\"duration\":1,\"failureMessages\":[],\"meta\":{{}}}}"
        ).as_bytes());
        n += 1;
    }
    let mut log = format!(
        "{{\"numTotalTestSuites\":1,\"numTotalTests\":{n},\"numPassedTests\":{passed},\"numFailedTests\":{failed},\"numPendingTests\":0,\"success\":false,\"testResults\":[{{\"assertionResults\":["
    )
    .into_bytes();
    log.extend_from_slice(&body);
    log.extend_from_slice(
        b"],\"status\":\"failed\",\"message\":\"\",\"name\":\"/repo/test/jar.test.ts\"}]}\n",
    );
    log
}

/// Surefire's and gradle's reports: one `TEST-*.xml` per 1000 tests, concatenated.
fn jvm_log(size: usize, runner: &str) -> Vec<u8> {
    let mut log = Vec::with_capacity(size + 4096);
    let mut n = 0;
    while log.len() < size {
        let mut body = Vec::new();
        let (mut bad, mut skipped) = (0, 0);
        for _ in 0..1000 {
            body.extend_from_slice(format!(
                "  <testcase name=\"parses(String)[{n}] &quot;a b&quot;\" classname=\"com.example.{runner}.CookieJarTest\" time=\"0.001\""
            ).as_bytes());
            match kind(n) {
                b'F' => {
                    bad += 1;
                    body.extend_from_slice(b">\n    <failure message=\"expected: &lt;b&gt;\" type=\"org.opentest4j.AssertionFailedError\">org.opentest4j.AssertionFailedError: expected: &lt;b&gt;\n\tat com.example.CookieJarTest.parses(CookieJarTest.java:21)\n</failure>\n  </testcase>\n");
                }
                b'S' => {
                    skipped += 1;
                    body.extend_from_slice(b">\n    <skipped/>\n  </testcase>\n");
                }
                _ => body.extend_from_slice(b"/>\n"),
            }
            n += 1;
        }
        log.extend_from_slice(format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"com.example.CookieJarTest\" time=\"0.1\" tests=\"1000\" errors=\"0\" skipped=\"{skipped}\" failures=\"{bad}\">\n"
        ).as_bytes());
        log.extend_from_slice(&body);
        log.extend_from_slice(b"</testsuite>\n");
    }
    log
}

fn trx_log(size: usize) -> Vec<u8> {
    let mut results = Vec::with_capacity(size / 2);
    let mut defs = Vec::with_capacity(size / 2);
    let (mut n, mut passed, mut failed) = (0, 0, 0);
    while results.len() + defs.len() < size {
        let outcome = match kind(n) {
            b'F' => {
                failed += 1;
                "Failed"
            }
            b'S' => "NotExecuted",
            _ => {
                passed += 1;
                "Passed"
            }
        };
        results.extend_from_slice(format!(
            "    <UnitTestResult executionId=\"e{n}\" testId=\"t{n}\" testName=\"Jar.Tests.CookieJarTest.Parses(text: &quot;case {n}&quot;)\" computerName=\"host\" duration=\"00:00:00.001\" outcome=\"{outcome}\" testListId=\"l\" />\n"
        ).as_bytes());
        defs.extend_from_slice(format!(
            "    <UnitTest name=\"Jar.Tests.CookieJarTest.Parses(text: &quot;case {n}&quot;)\" storage=\"jar.tests.dll\" id=\"t{n}\">\n      <Execution id=\"e{n}\" />\n      <TestMethod codeBase=\"Jar.Tests.dll\" className=\"Jar.Tests.CookieJarTest\" name=\"Parses\" />\n    </UnitTest>\n"
        ).as_bytes());
        n += 1;
    }
    let mut log = b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<TestRun id=\"r\" xmlns=\"http://microsoft.com/schemas/VisualStudio/TeamTest/2010\">\n  <Results>\n".to_vec();
    log.extend_from_slice(&results);
    log.extend_from_slice(b"  </Results>\n  <TestDefinitions>\n");
    log.extend_from_slice(&defs);
    log.extend_from_slice(format!(
        "  </TestDefinitions>\n  <ResultSummary outcome=\"Failed\">\n    <Counters total=\"{n}\" passed=\"{passed}\" failed=\"{failed}\" />\n  </ResultSummary>\n</TestRun>\n"
    ).as_bytes());
    log
}

fn playwright_log(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 4096);
    let (mut n, mut expected, mut unexpected, mut skipped) = (0, 0, 0, 0);
    while body.len() < size {
        let (status, run) = match kind(n) {
            b'F' => {
                unexpected += 1;
                ("unexpected", "failed")
            }
            b'S' => {
                skipped += 1;
                ("skipped", "skipped")
            }
            _ => {
                expected += 1;
                ("expected", "passed")
            }
        };
        if n > 0 {
            body.push(b',');
        }
        body.extend_from_slice(format!(
            "{{\"title\":\"reads case {n} \\\"q\\\" [x]\",\"ok\":true,\"tags\":[],\"tests\":[{{\"timeout\":30000,\"annotations\":[],\"expectedStatus\":\"passed\",\"projectId\":\"chromium\",\"projectName\":\"chromium\",\"results\":[{{\"workerIndex\":0,\"status\":\"{run}\",\"duration\":1,\"errors\":[],\"retry\":0,\"startTime\":\"2026-01-01T00:00:00.000Z\",\"attachments\":[]}}],\"status\":\"{status}\"}}],\"id\":\"a{n}\",\"file\":\"jar.spec.ts\",\"line\":3,\"column\":5}}"
        ).as_bytes());
        n += 1;
    }
    let mut log = b"{\"config\":{},\"suites\":[{\"title\":\"jar.spec.ts\",\"file\":\"jar.spec.ts\",\"specs\":[],\"suites\":[{\"title\":\"cookie jar\",\"file\":\"jar.spec.ts\",\"specs\":[".to_vec();
    log.extend_from_slice(&body);
    log.extend_from_slice(format!(
        "]}}]}}],\"errors\":[],\"stats\":{{\"startTime\":\"2026-01-01T00:00:00.000Z\",\"duration\":1,\"expected\":{expected},\"skipped\":{skipped},\"unexpected\":{unexpected},\"flaky\":0}}}}\n"
    ).as_bytes());
    log
}

fn bun_log(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 4096);
    let (mut n, mut bad) = (0, 0);
    while body.len() < size {
        body.extend_from_slice(format!(
            "      <testcase name=\"reads case {n} &quot;q&quot;\" classname=\"parse [x]\" time=\"0.001\" file=\"test/jar.test.ts\" line=\"8\" assertions=\"1\""
        ).as_bytes());
        match kind(n) {
            b'F' => {
                bad += 1;
                body.extend_from_slice(
                    b">\n        <failure type=\"AssertionError\" />\n      </testcase>\n",
                );
            }
            b'S' => body.extend_from_slice(b">\n        <skipped />\n      </testcase>\n"),
            _ => body.extend_from_slice(b" />\n"),
        }
        n += 1;
    }
    let mut log = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bun test\" tests=\"{n}\" failures=\"{bad}\">\n  <testsuite name=\"test/jar.test.ts\" file=\"test/jar.test.ts\" tests=\"{n}\" failures=\"{bad}\">\n    <testsuite name=\"cookie jar\" tests=\"{n}\" failures=\"{bad}\">\n"
    )
    .into_bytes();
    log.extend_from_slice(&body);
    log.extend_from_slice(b"    </testsuite>\n  </testsuite>\n</testsuites>\n");
    log
}

fn dart_log(size: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(size + 4096);
    let mut n = 0;
    while body.len() < size {
        let id = n + 10;
        let (result, skipped) = match kind(n) {
            b'F' => ("failure", false),
            b'S' => ("success", true),
            _ => ("success", false),
        };
        body.extend_from_slice(format!(
            "{{\"test\":{{\"id\":{id},\"name\":\"cookie jar parse [x] reads case {n} \\\"q\\\"\",\"suiteID\":0,\"groupIDs\":[2,3],\"metadata\":{{\"skip\":{skipped},\"skipReason\":null}},\"line\":10,\"column\":5,\"url\":\"file:///repo/test/jar_test.dart\"}},\"type\":\"testStart\",\"time\":1}}\n{{\"testID\":{id},\"result\":\"{result}\",\"skipped\":{skipped},\"hidden\":false,\"type\":\"testDone\",\"time\":2}}\n"
        ).as_bytes());
        n += 1;
    }
    let mut log = format!(
        "{{\"protocolVersion\":\"0.1.1\",\"runnerVersion\":\"1.25.8\",\"pid\":1,\"type\":\"start\",\"time\":0}}\n{{\"suite\":{{\"id\":0,\"platform\":\"vm\",\"path\":\"test/jar_test.dart\"}},\"type\":\"suite\",\"time\":0}}\n{{\"group\":{{\"id\":2,\"suiteID\":0,\"parentID\":null,\"name\":\"\",\"metadata\":{{\"skip\":false,\"skipReason\":null}},\"testCount\":{n},\"line\":null,\"column\":null,\"url\":null}},\"type\":\"group\",\"time\":1}}\n"
    )
    .into_bytes();
    log.extend_from_slice(&body);
    log.extend_from_slice(b"{\"success\":false,\"type\":\"done\",\"time\":3}\n");
    log
}

fn phpt_log(size: usize) -> Vec<u8> {
    let mut log = b"=====================================================================\nRunning selected tests.\n".to_vec();
    let mut counts = [0usize; 3];
    let mut n = 0;
    while log.len() < size {
        let (word, extra, i) = match kind(n) {
            b'F' => ("FAIL", "", 1),
            b'S' => ("SKIP", " reason: no_such_extension not loaded", 2),
            _ => ("PASS", "", 0),
        };
        counts[i] += 1;
        log.extend_from_slice(
            format!("{word} Cookie jar parses case {n} \"a=b\" [x] [tests/case{n}.phpt]{extra}\n")
                .as_bytes(),
        );
        n += 1;
    }
    log.extend_from_slice(format!(
        "=====================================================================\nTEST RESULT SUMMARY\n---------------------------------------------------------------------\nNumber of tests : {n:4}\nTests skipped   : {:4} (  5.9%) --------\nTests warned    :    0 (  0.0%) (  0.0%)\nTests failed    : {:4} ( 10.0%) ( 10.6%)\nTests passed    : {:4} ( 84.1%) ( 89.4%)\n---------------------------------------------------------------------\nTime taken      :    1 seconds\n=====================================================================\n",
        counts[2], counts[1], counts[0]
    ).as_bytes());
    log
}

fn tcltest_log(size: usize) -> Vec<u8> {
    let mut log = b"Tests running in interp:  /usr/bin/tclsh8.6\nTests located in:  /repo/tests\ncookie.test\n".to_vec();
    let mut counts = [0usize; 3];
    let mut n = 0;
    while log.len() < size {
        match kind(n) {
            b'F' => {
                counts[2] += 1;
                log.extend_from_slice(format!(
                    "\n==== cookie-{n} parses case {n} FAILED\n==== Contents of test case:\n\n    parse_cookie a=b\n\n---- Result was:\na b\n---- Result should have been (exact matching):\na c\n==== cookie-{n} FAILED\n\n"
                ).as_bytes());
            }
            b'S' => {
                counts[1] += 1;
                log.extend_from_slice(format!("++++ cookie-{n} SKIPPED: knownBug\n").as_bytes());
            }
            _ => {
                counts[0] += 1;
                log.extend_from_slice(format!("++++ cookie-{n} PASSED\n").as_bytes());
            }
        }
        n += 1;
    }
    log.extend_from_slice(
        format!(
            "all.tcl:\tTotal\t{n}\tPassed\t{}\tSkipped\t{}\tFailed\t{}\nSourced 1 Test Files.\n",
            counts[0], counts[1], counts[2]
        )
        .as_bytes(),
    );
    log
}
