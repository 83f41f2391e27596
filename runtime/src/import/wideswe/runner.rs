//! The test runner a WideSWE profile command runs, and the log parser the importer chooses for
//! it.
//!
//! Every runner of WideSWE's census is named here ([`Runner`]). Each has the parser name a
//! dedicated parser carries (`native`) and, where taskc's existing parsers read one of the
//! runner's own output formats, a fallback: the command gets the reporter option that prints
//! that format (`vitest --reporter=json` → `jest-json`, `phpunit --log-junit php://stdout` →
//! `junit-xml`, `mocha --reporter tap` → `tap`, …). Which parsers exist is asked of
//! `LogParser::WORDS` at import time, so the native parser is chosen as soon as it is
//! there. A runner with neither is a refusal that names the parser it needs.

use super::chain;

/// A test runner WideSWE's profiles use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Runner {
    Pytest,
    GoTest,
    CargoTest,
    Vitest,
    Jest,
    Phpunit,
    Pest,
    Playwright,
    Mocha,
    NodeTest,
    NodeTap,
    Gradle,
    Maven,
    Dotnet,
    Minitest,
    Rspec,
    Phpt,
    Unittest,
    Django,
    Tcl,
    Bun,
    Dart,
    Flutter,
    /// `flutter drive`: prints the driver's log, not `flutter test --machine`'s event
    /// stream; no parser reads it.
    FlutterDrive,
    /// A plain test script whose exit status is its only result (`python3
    /// tests/contract.py`, case 60; `plain_script.rs`): never detected among runners.
    PlainScript,
}

/// How a runner's log is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// A parser of this taskc reads the runner's output; `run` is the command with the
    /// reporter option it needs (if any).
    Chosen {
        parser: &'static str,
        run: String,
        option: Option<&'static str>,
        /// Set when an existing parser stands in for the runner's own: the one it needs.
        instead_of: Option<&'static str>,
    },
    /// No parser of this taskc reads the runner: the parser it needs.
    Missing { native: &'static str },
}

impl Runner {
    /// The runner's name as WideSWE's census writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Runner::Pytest => "pytest",
            Runner::GoTest => "go test",
            Runner::CargoTest => "cargo test",
            Runner::Vitest => "vitest",
            Runner::Jest => "jest",
            Runner::Phpunit => "phpunit",
            Runner::Pest => "pest",
            Runner::Playwright => "playwright",
            Runner::Mocha => "mocha",
            Runner::NodeTest => "node --test",
            Runner::NodeTap => "tap",
            Runner::Gradle => "gradle",
            Runner::Maven => "mvn",
            Runner::Dotnet => "dotnet test",
            Runner::Minitest => "minitest",
            Runner::Rspec => "rspec",
            Runner::Phpt => "phpt",
            Runner::Unittest => "unittest",
            Runner::Django => "django runtests",
            Runner::Tcl => "tcl runtest",
            Runner::Bun => "bun test",
            Runner::Dart => "dart test",
            Runner::Flutter => "flutter test",
            Runner::FlutterDrive => "flutter drive",
            Runner::PlainScript => "plain script",
        }
    }

    /// The parsers that read this runner, its own first, each with the option that makes
    /// the runner print what the parser reads (the words a spec writes).
    pub fn parsers(self) -> &'static [(&'static str, Option<&'static str>)] {
        match self {
            Runner::Pytest => &[("pytest", None)],
            Runner::GoTest => &[("go-test-json", None)],
            Runner::CargoTest => &[("cargo", None)],
            Runner::Vitest => &[
                (
                    "vitest",
                    Some("--reporter=json --outputFile=\"$TASKC_REPORT\""),
                ),
                ("jest-json", Some("--reporter=json")),
            ],
            Runner::Jest => &[("jest-json", Some("--json"))],
            Runner::Phpunit | Runner::Pest => &[
                ("phpunit-junit", Some("--log-junit php://stdout")),
                ("junit-xml", Some("--log-junit php://stdout")),
            ],
            Runner::Playwright => &[
                ("playwright-json", Some("--reporter=json")),
                ("junit-xml", Some("--reporter=junit")),
            ],
            Runner::Mocha => &[
                ("mocha-json", Some("--reporter json")),
                ("tap", Some("--reporter tap")),
            ],
            Runner::NodeTest => &[("tap", Some("--test-reporter=tap"))],
            // node-tap prints its own summary unless told to print TAP (since v15); node
            // core's `tools/test.py -p tap` already prints TAP (see `option_for`).
            Runner::NodeTap => &[("tap", Some("--reporter=tap"))],
            Runner::Gradle => &[("gradle", None)],
            Runner::Maven => &[("surefire", None)],
            Runner::Dotnet => &[(
                "dotnet-trx",
                Some("--logger \"trx;LogFileName=$TASKC_REPORT\""),
            )],
            Runner::Minitest => &[("minitest", Some("-v"))],
            Runner::Rspec => &[("rspec-json", Some("--format json"))],
            Runner::Phpt => &[("phpt", None)],
            Runner::Unittest => &[("unittest", Some("-v"))],
            Runner::Django => &[("unittest", Some("--verbosity 2"))],
            Runner::Tcl => &[("tcltest", None)],
            Runner::Bun => &[(
                "bun",
                Some("--reporter=junit --reporter-outfile \"$TASKC_REPORT\""),
            )],
            Runner::Dart => &[("dart-json", Some("--reporter json"))],
            Runner::Flutter => &[("dart-json", Some("--machine"))],
            // What `flutter drive` prints is the app driver's log (`All tests passed!`),
            // not a report: the parser it needs does not exist.
            Runner::FlutterDrive => &[("flutter-drive", None)],
            // Its exit status, as the harness records it, is the one test.
            Runner::PlainScript => &[("exit-status", None)],
        }
    }

    /// `option` as one run of the runner (`segment`) takes it: none for a run that already
    /// prints the format (node core's `tools/test.py -p tap`, which takes no reporter).
    fn option_for(self, option: Option<&'static str>, segment: &str) -> Option<&'static str> {
        let words: Vec<&str> = segment.split_whitespace().collect();
        let core_tap = self == Runner::NodeTap
            && words.iter().any(|w| w.ends_with("test.py"))
            && words.windows(2).any(|w| w == ["-p", "tap"]);
        option.filter(|_| !core_tap)
    }

    /// The parser word this runner's own parser carries.
    pub fn native(self) -> &'static str {
        self.parsers().first().map_or("", |p| p.0)
    }
}

/// Whether `segment` (one simple command of a chain) installs packages rather than runs
/// tests (`python -m pip install pytest pytest-django`, `npm install jest`, `apt-get install
/// …`): the runner's name in it is a package name.
fn installs(segment: &[&str]) -> bool {
    let names: Vec<&str> = segment
        .iter()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    let has = |seq: &[&str]| names.windows(seq.len()).any(|w| w == seq);
    const INSTALLERS: &[&str] = &[
        "pip",
        "pip3",
        "uv",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "apt-get",
        "apt",
        "gem",
        "composer",
        "cargo",
        "go",
        // `pnpm exec playwright install chromium` downloads a browser (case 111).
        "playwright",
    ];
    const VERBS: &[&str] = &["install", "add", "i", "ci", "require"];
    names.windows(2).any(|w| {
        (INSTALLERS.contains(&w[0]) || w[0].starts_with("python") || w[0] == "bundle")
            && VERBS.contains(&w[1])
    }) || has(&["-m", "pip", "install"])
        || has(&["pip", "install"])
        || has(&["uv", "pip", "install"])
}

/// Whether `segment` is a shell condition (`[ -x vendor/bin/phpunit ]`, `if test -f …`).
fn condition(segment: &[&str]) -> bool {
    let tests = |w: &&str| matches!(*w, "[" | "[[" | "test");
    match segment {
        [first, ..] if tests(first) => true,
        [kw, second, ..] if matches!(*kw, "if" | "elif" | "while" | "until" | "!") => tests(second),
        _ => false,
    }
}

/// The runner `words` (one shell command, split) runs, if any. Segments of a chain that
/// install packages (`pip install pytest`) run none.
pub fn detect(words: &[&str]) -> Option<Runner> {
    let mut kept: Vec<&str> = Vec::new();
    for segment in words.split(|w| matches!(*w, "&&" | "||" | ";" | "|" | "&")) {
        // `vendor/bin/simple-phpunit --version` only probes the tool, and `if [ -x
        // vendor/bin/simple-phpunit ]` only tests that it is there (case 116).
        if !installs(segment) && !segment.contains(&"--version") && !condition(segment) {
            kept.extend_from_slice(segment);
            kept.push(";");
        }
    }
    detect_in(&kept)
}

fn detect_in(words: &[&str]) -> Option<Runner> {
    // `/usr/local/go/bin/go test` runs `go test`: sequences are matched on base names.
    let names: Vec<&str> = words
        .iter()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    let has = |seq: &[&str]| names.windows(seq.len()).any(|w| w == seq);
    let word = |f: &dyn Fn(&str) -> bool| words.iter().any(|w| f(w));
    let base = |w: &str, name: &str| w == name || w.ends_with(&format!("/{name}"));
    if word(&|w| base(w, "pytest") || base(w, "py.test")) || has(&["-m", "pytest"]) {
        return Some(Runner::Pytest);
    }
    if has(&["go", "test"]) {
        return Some(Runner::GoTest);
    }
    if has(&["cargo", "test"]) || has(&["cargo", "nextest"]) {
        return Some(Runner::CargoTest);
    }
    if word(&|w| base(w, "vitest")) {
        return Some(Runner::Vitest);
    }
    // Kibana runs jest through `node scripts/jest.js` (cases 18, 20, 21).
    if word(&|w| base(w, "jest") || base(w, "jest.js")) {
        return Some(Runner::Jest);
    }
    // A package script handed jest's own options (case 29: `corepack yarn --cwd
    // packages/eui test-unit … --runInBand --json`): the case's command says the script
    // runs jest.
    if jest_package_script(words).is_some() {
        return Some(Runner::Jest);
    }
    if word(&|w| base(w, "pest")) {
        return Some(Runner::Pest);
    }
    if word(&|w| base(w, "phpunit") || base(w, "simple-phpunit")) {
        return Some(Runner::Phpunit);
    }
    // PHP's `make test TESTS="tests/a.phpt …"` runs run-tests.php (cases 116, 117).
    // … also with the test list in a variable (`make test TESTS="${TESTS[*]}"
    // TEST_PHP_ARGS=…`, cases 116–118).
    if word(&|w| base(w, "run-tests.php"))
        || (has(&["make", "test"])
            && word(&|w| w.contains(".phpt") || w.starts_with("TEST_PHP_ARGS=")))
    {
        return Some(Runner::Phpt);
    }
    if word(&|w| base(w, "playwright")) {
        return Some(Runner::Playwright);
    }
    if word(&|w| base(w, "mocha")) {
        return Some(Runner::Mocha);
    }
    if has(&["node", "--test"]) {
        return Some(Runner::NodeTest);
    }
    if word(&|w| base(w, "tap")) {
        return Some(Runner::NodeTap);
    }
    if word(&|w| base(w, "gradle") || base(w, "gradlew")) {
        return Some(Runner::Gradle);
    }
    if word(&|w| base(w, "mvn") || base(w, "mvnw")) {
        return Some(Runner::Maven);
    }
    if has(&["dotnet", "test"]) {
        return Some(Runner::Dotnet);
    }
    if word(&|w| base(w, "rspec")) {
        return Some(Runner::Rspec);
    }
    if word(&|w| base(w, "runtests.py")) {
        return Some(Runner::Django);
    }
    if has(&["-m", "unittest"]) {
        return Some(Runner::Unittest);
    }
    if word(&|w| base(w, "runtest")) {
        return Some(Runner::Tcl);
    }
    if has(&["bun", "test"]) {
        return Some(Runner::Bun);
    }
    if has(&["flutter", "test"]) {
        return Some(Runner::Flutter);
    }
    if has(&["flutter", "drive"]) {
        return Some(Runner::FlutterDrive);
    }
    if has(&["dart", "test"]) {
        return Some(Runner::Dart);
    }
    if word(&|w| w == "bin/test" || w.ends_with("/bin/test"))
        || (word(&|w| base(w, "ruby")) && words.iter().any(|w| w.contains("test")))
        || (word(&|w| base(w, "rake") || base(w, "rails")) && word(&|w| w == "test"))
    {
        return Some(Runner::Minitest);
    }
    None
}

/// Options only jest takes (vitest, mocha and the package managers take none of them).
const JEST_ONLY: &[&str] = &["--runInBand", "--testPathPattern", "--testPathPatterns"];

/// The package script (`test-unit`) that `words` run through a package manager that hands
/// it the words after its name (`yarn [--cwd dir] <script> …`, `corepack yarn …`, `npm run
/// <script> -- …`, `pnpm [run] <script> …`), and the words it hands the script. `None` for
/// a package manager's own command (`install`, `exec`, …) or a runner it names (`yarn
/// jest`).
pub fn package_script<'a>(words: &[&'a str]) -> Option<(String, Vec<&'a str>)> {
    let names: Vec<&str> = words
        .iter()
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect();
    let at = names
        .iter()
        .position(|w| matches!(*w, "yarn" | "npm" | "pnpm"))?;
    let manager = names[at];
    let mut rest = words[at + 1..].iter().copied();
    let mut script = None;
    while let Some(w) = rest.next() {
        match w {
            "--cwd" | "--dir" | "-C" | "--prefix" => {
                rest.next();
            }
            "run" | "run-script" if script.is_none() => {}
            _ if w.starts_with('-') => {}
            _ => {
                script = Some(w);
                break;
            }
        }
    }
    let script = script?;
    const OWN: &[&str] = &[
        "jest", "vitest", "mocha", "install", "add", "exec", "dlx", "ci", "i", "build",
    ];
    if OWN.contains(&script) || script.contains('=') {
        return None;
    }
    let after: Vec<&str> = rest.collect();
    // npm hands the script only what follows `--`.
    let passed = if manager == "npm" {
        let k = after.iter().position(|w| *w == "--")?;
        after[k + 1..].to_vec()
    } else {
        after
    };
    Some((script.to_string(), passed))
}

/// The package script `words` run ([`package_script`]) when they hand it an option only jest
/// takes (`--runInBand`): the case's own command says the script runs jest, and an option
/// taskc appends reaches jest the same way. `None` otherwise.
pub fn jest_package_script(words: &[&str]) -> Option<String> {
    let (script, passed) = package_script(words)?;
    passed
        .iter()
        .any(|w| {
            JEST_ONLY
                .iter()
                .any(|o| w == o || w.starts_with(&format!("{o}=")))
        })
        .then_some(script)
}

/// The parser for `runner` given the parsers that exist (`known`), and the command to run.
pub fn choose(runner: Runner, run: &str, known: &[&str]) -> Choice {
    let candidates = runner.parsers();
    let Some((k, (parser, option))) = candidates
        .iter()
        .enumerate()
        .find(|(_, (p, _))| known.contains(p))
    else {
        return Choice::Missing {
            native: runner.native(),
        };
    };
    // Every run of the runner gets the option (and a report file of its own), not only the
    // list's last (bug 13).
    let (run, runs) = chain::rewrite_runs(run, runner, |segment, n| {
        let segment = match runner.option_for(*option, segment) {
            Some(o) if !segment.contains(o.split_whitespace().next().unwrap_or(o)) => {
                format!("{segment} {}", chain::numbered(o, n))
            }
            _ => segment.to_string(),
        };
        run_plumbing(parser, segment, n)
    });
    let joined = runs > 1
        && (*parser == "playwright-json" || option.is_some_and(|o| o.contains("$TASKC_REPORT")));
    let run = if joined {
        chain::join_reports(&run)
    } else {
        report_plumbing(parser, run)
    };
    Choice::Chosen {
        parser,
        run,
        option: *option,
        instead_of: (k > 0).then(|| runner.native()),
    }
}

/// One run of the runner as the parser needs it: playwright's JSON reporter writes where an
/// environment variable of that run says (run `n` of several to its own numbered file).
fn run_plumbing(parser: &str, run: String, n: usize) -> String {
    match parser {
        "playwright-json" if !run.contains("PLAYWRIGHT_JSON_OUTPUT_NAME") => {
            let path = chain::numbered("\"$TASKC_REPORT\"", n);
            format!("PLAYWRIGHT_JSON_OUTPUT_NAME={path} {run}")
        }
        _ => run,
    }
}

/// The command around `run` that leaves the report a report-file parser reads at the
/// per-run `$TASKC_REPORT` path (docs/parsers.md), where an appended option cannot: maven and
/// gradle write their XML reports into folders of the build (every module's are collected,
/// whatever the run's exit status, which the command keeps), playwright's JSON reporter
/// writes where an environment variable says.
fn report_plumbing(parser: &str, run: String) -> String {
    let collect = |pattern: &str| {
        format!(
            "{run}; s=$?; find . -path '{pattern}' -name 'TEST-*.xml' -exec cat {{}} + > \"$TASKC_REPORT\"; exit $s"
        )
    };
    match parser {
        "surefire" => collect("*/surefire-reports/*"),
        "gradle" => collect("*/build/test-results/*"),
        _ => run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<Runner> {
        detect(&s.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn runners_of_the_census() {
        assert_eq!(d("npx vitest run src/a.test.ts"), Some(Runner::Vitest));
        assert_eq!(d("yarn jest packages/x"), Some(Runner::Jest));
        assert_eq!(d("vendor/bin/phpunit tests/A.php"), Some(Runner::Phpunit));
        assert_eq!(d("./vendor/bin/pest --filter x"), Some(Runner::Pest));
        assert_eq!(d("./gradlew :server:test"), Some(Runner::Gradle));
        assert_eq!(d("dotnet test X.csproj"), Some(Runner::Dotnet));
        assert_eq!(d("bundle exec rspec spec/a_spec.rb"), Some(Runner::Rspec));
        assert_eq!(d("bin/rails test test/a_test.rb"), Some(Runner::Minitest));
        assert_eq!(d("python -m unittest discover"), Some(Runner::Unittest));
        assert_eq!(d("./tests/runtests.py auth"), Some(Runner::Django));
        assert_eq!(d("./runtest --single unit/type"), Some(Runner::Tcl));
        assert_eq!(d("node --test test/a.js"), Some(Runner::NodeTest));
        assert_eq!(
            d("/usr/local/go/bin/go test -json ./x"),
            Some(Runner::GoTest)
        );
        assert_eq!(d("make check"), None);
    }

    #[test]
    fn an_install_line_runs_no_runner() {
        // Case 82 of WideSWE: the line before the tests installs pytest.
        assert_eq!(d("python -m pip install pytest pytest-django"), None);
        assert_eq!(d("uv pip install --python $V pytest"), None);
        assert_eq!(d("npm install --no-save jest"), None);
        assert_eq!(
            d("pip install pytest && python -m pytest tests"),
            Some(Runner::Pytest)
        );
        assert_eq!(d("yarn install && yarn jest a"), Some(Runner::Jest));
        assert_eq!(d("go install ./cmd/x && go test ./x"), Some(Runner::GoTest));
        // A version probe runs no tests either.
        assert_eq!(
            d("if [ -x vendor/bin/simple-phpunit ]; then vendor/bin/simple-phpunit --version >/dev/null 2>&1 || true; fi"),
            None
        );
        assert_eq!(
            detect(&[
                "if",
                "[",
                "-x",
                "vendor/bin/simple-phpunit",
                "]",
                ";",
                "then",
                "vendor/bin/phpunit",
                "tests"
            ]),
            Some(Runner::Phpunit)
        );
        assert_eq!(detect(&["[", "-x", "vendor/bin/phpunit", "]"]), None);
    }

    #[test]
    fn a_package_script_given_jests_own_options_runs_jest() {
        assert_eq!(
            d("corepack yarn --cwd packages/eui test-unit src/a.test.ts --runInBand --json"),
            Some(Runner::Jest)
        );
        assert_eq!(
            jest_package_script(&["yarn", "--cwd", "packages/eui", "test-unit", "--runInBand"]),
            Some("test-unit".to_string())
        );
        assert_eq!(
            d("npm run test:unit -- --runInBand a.test.js"),
            Some(Runner::Jest)
        );
        // npm keeps an option before `--` for itself; no jest option, no jest.
        assert_eq!(d("npm run test:unit --runInBand"), None);
        assert_eq!(d("yarn --cwd packages/eui test-unit src/a.test.ts"), None);
    }

    #[test]
    fn flutter_drive_is_not_flutter_test() {
        assert_eq!(
            d("flutter drive --driver=test_driver/t.dart --target=integration_test/a.dart -d web-server"),
            Some(Runner::FlutterDrive)
        );
        assert_eq!(
            d("flutter test --machine test/a_test.dart"),
            Some(Runner::Flutter)
        );
        assert_eq!(
            choose(Runner::FlutterDrive, "flutter drive", &["dart-json"]),
            Choice::Missing {
                native: "flutter-drive"
            }
        );
    }

    #[test]
    fn native_first_then_fallback_then_missing() {
        let known = [
            "cargo",
            "go-test-json",
            "jest-json",
            "junit-xml",
            "pytest",
            "tap",
        ];
        assert_eq!(
            choose(Runner::Vitest, "npx vitest run", &known),
            Choice::Chosen {
                parser: "jest-json",
                run: "npx vitest run --reporter=json".into(),
                option: Some("--reporter=json"),
                instead_of: Some("vitest"),
            }
        );
        assert_eq!(
            choose(Runner::Vitest, "npx vitest run", &["vitest"]),
            Choice::Chosen {
                parser: "vitest",
                run: "npx vitest run --reporter=json --outputFile=\"$TASKC_REPORT\"".into(),
                option: Some("--reporter=json --outputFile=\"$TASKC_REPORT\""),
                instead_of: None,
            }
        );
        assert_eq!(
            choose(Runner::Rspec, "rspec", &known),
            Choice::Missing {
                native: "rspec-json"
            }
        );
        assert_eq!(
            choose(Runner::Rspec, "bundle exec rspec", &["rspec-json"]),
            Choice::Chosen {
                parser: "rspec-json",
                run: "bundle exec rspec --format json".into(),
                option: Some("--format json"),
                instead_of: None,
            }
        );
        assert!(matches!(
            choose(Runner::Jest, "jest", &known),
            Choice::Chosen {
                parser: "jest-json",
                instead_of: None,
                ..
            }
        ));
    }

    #[test]
    fn report_file_parsers_leave_their_report_at_the_per_run_path() {
        let run = |r: Runner, cmd: &str| match choose(r, cmd, &[r.native()]) {
            Choice::Chosen { run, .. } => run,
            Choice::Missing { .. } => String::new(),
        };
        assert_eq!(
            run(Runner::Maven, "mvn -B test -pl core"),
            "mvn -B test -pl core; s=$?; find . -path '*/surefire-reports/*' -name 'TEST-*.xml' -exec cat {} + > \"$TASKC_REPORT\"; exit $s"
        );
        assert!(run(Runner::Gradle, "./gradlew :server:test")
            .contains("-path '*/build/test-results/*'"));
        assert_eq!(
            run(Runner::Playwright, "npx playwright test"),
            "PLAYWRIGHT_JSON_OUTPUT_NAME=\"$TASKC_REPORT\" npx playwright test --reporter=json"
        );
        assert_eq!(
            run(Runner::Dotnet, "dotnet test X.csproj"),
            "dotnet test X.csproj --logger \"trx;LogFileName=$TASKC_REPORT\""
        );
        assert!(run(Runner::Bun, "bun test").ends_with("--reporter-outfile \"$TASKC_REPORT\""));
    }
}
