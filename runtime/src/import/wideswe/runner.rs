//! The test runner a WideSWE profile command runs, and the log parser the importer chooses for
//! it.
//!
//! Every runner of WideSWE's census is named here ([`Runner`]). Each has the parser name a
//! dedicated parser carries (`native`) and, where taskc's existing parsers read one of the
//! runner's own output formats, a fallback: the command gets the reporter option that prints
//! that format (`vitest --reporter=json` → `jest-json`, `phpunit --log-junit php://stdout` →
//! `junit-xml`, `mocha --reporter tap` → `tap`, …). Which parsers exist is asked of
//! `taskc_stdlib::PARSERS` at import time, so the native parser is chosen as soon as it is
//! there. A runner with neither is a refusal that names the parser it needs.

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
}

/// How a runner's log is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The runner's own parser; the command as written.
    Native { parser: &'static str },
    /// An existing parser reads a format the runner prints with `option`; the command gets it.
    Fallback {
        parser: &'static str,
        run: String,
        option: &'static str,
        /// The dedicated parser that would read the runner's default output.
        native: &'static str,
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
        }
    }

    /// The parser name a dedicated parser for this runner carries (the word a spec writes).
    pub fn native(self) -> &'static str {
        match self {
            Runner::Pytest => "pytest",
            Runner::GoTest => "go-test-json",
            Runner::CargoTest => "cargo",
            Runner::Vitest => "vitest",
            Runner::Jest => "jest",
            Runner::Phpunit => "phpunit",
            Runner::Pest => "pest",
            Runner::Playwright => "playwright",
            Runner::Mocha => "mocha",
            Runner::NodeTest => "node-test",
            Runner::NodeTap => "tap",
            Runner::Gradle => "gradle",
            Runner::Maven => "surefire",
            Runner::Dotnet => "dotnet",
            Runner::Minitest => "minitest",
            Runner::Rspec => "rspec",
            Runner::Phpt => "phpt",
            Runner::Unittest => "unittest",
            Runner::Django => "django",
            Runner::Tcl => "tcl",
            Runner::Bun => "bun",
            Runner::Dart => "dart",
            Runner::Flutter => "flutter",
        }
    }

    /// An existing parser and the option that makes the runner print what it reads.
    fn fallback(self) -> Option<(&'static str, &'static str)> {
        match self {
            Runner::Vitest => Some(("jest-json", "--reporter=json")),
            Runner::Jest => Some(("jest-json", "--json")),
            Runner::Phpunit | Runner::Pest => Some(("junit-xml", "--log-junit php://stdout")),
            Runner::Playwright => Some(("junit-xml", "--reporter=junit")),
            Runner::Mocha => Some(("tap", "--reporter tap")),
            Runner::NodeTest => Some(("tap", "--test-reporter=tap")),
            _ => None,
        }
    }
}

/// The runner `words` (one shell command, split) runs, if any.
pub fn detect(words: &[&str]) -> Option<Runner> {
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
    if word(&|w| base(w, "jest")) {
        return Some(Runner::Jest);
    }
    if word(&|w| base(w, "pest")) {
        return Some(Runner::Pest);
    }
    if word(&|w| base(w, "phpunit") || base(w, "simple-phpunit")) {
        return Some(Runner::Phpunit);
    }
    if word(&|w| base(w, "run-tests.php")) {
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
    if has(&["flutter", "test"]) || has(&["flutter", "drive"]) {
        return Some(Runner::Flutter);
    }
    if has(&["dart", "test"]) {
        return Some(Runner::Dart);
    }
    if (word(&|w| base(w, "ruby")) && words.iter().any(|w| w.contains("test")))
        || (word(&|w| base(w, "rake") || base(w, "rails")) && word(&|w| w == "test"))
    {
        return Some(Runner::Minitest);
    }
    None
}

/// The parser for `runner` given the parsers that exist (`known`), and the command to run.
pub fn choose(runner: Runner, run: &str, known: &[&str]) -> Choice {
    let native = runner.native();
    if known.contains(&native) {
        return Choice::Native { parser: native };
    }
    match runner.fallback() {
        Some((parser, option)) if known.contains(&parser) => {
            let run = if run.contains(option.split_whitespace().next().unwrap_or(option)) {
                run.to_string()
            } else {
                format!("{run} {option}")
            };
            Choice::Fallback {
                parser,
                run,
                option,
                native,
            }
        }
        _ => Choice::Missing { native },
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
            Choice::Fallback {
                parser: "jest-json",
                run: "npx vitest run --reporter=json".into(),
                option: "--reporter=json",
                native: "vitest",
            }
        );
        assert_eq!(
            choose(Runner::Vitest, "npx vitest run", &["vitest"]),
            Choice::Native { parser: "vitest" }
        );
        assert_eq!(
            choose(Runner::Rspec, "rspec", &known),
            Choice::Missing { native: "rspec" }
        );
        assert!(matches!(
            choose(Runner::Jest, "jest", &known),
            Choice::Fallback {
                parser: "jest-json",
                ..
            }
        ));
    }
}
