//! A WideSWE test profile's in-container command as a taskc `test { run … parser … }`.
//!
//! The importer reads the profile's `command` (not the `docker run` wrapper of
//! `run_profile.sh`) and names its runner ([`super::runner`]): pytest (made to print `-rA`
//! results, read by the `pytest` parser; `--junitxml` dropped, as taskc reads the log), `go
//! test` (with `-json`, `go-test-json`), `cargo test` (`cargo`), and every other runner of
//! WideSWE's census through its own parser when taskc has it, else through an existing parser
//! that reads one of the runner's reporters. A command written as prose (`install local
//! packaging, then python -m pytest …`) keeps the command after `then` and reports the prose
//! as a note. A command that runs no runner is `E1104`; a runner no parser reads is `E1400`:
//! never a guessed command.

use super::chain;
use super::runner::{self, Choice, Runner};

/// The test step a profile becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCommand {
    pub run: String,
    pub runner: Runner,
    pub parser: &'static str,
    /// Set when an existing parser stands in for the runner's own: the option added and the
    /// parser the runner's default output needs.
    pub fallback: Option<(&'static str, &'static str)>,
    /// Prose the importer set aside (a note for the curator).
    pub prose: Option<String>,
}

/// Why a profile's command cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// No test runner the importer knows.
    Command(String),
    /// A runner no parser of this taskc reads; the parser it needs.
    NoParser {
        runner: Runner,
        native: &'static str,
    },
}

/// Read `command`; `paths` maps WideSWE workspace paths (`/workspace/repos/x`) to taskc's
/// (`/work/x`); `known` are the parsers that exist (`LogParser::WORDS`).
pub fn read(
    command: &str,
    paths: &[(String, String)],
    known: &[&str],
) -> Result<TestCommand, Unreadable> {
    let mut text = command.trim().to_string();
    let mut prose = None;
    if let Some(i) = text.find(", then ") {
        prose = Some(text[..i].trim().to_string());
        text = text[i + ", then ".len()..].trim().to_string();
    }
    if text.contains('\n') {
        return Err(Unreadable::Command(
            "the command spans several lines; the importer reads one test command".into(),
        ));
    }
    for (from, to) in paths {
        text = text.replace(from.as_str(), to);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    // `--jwt-keypair-file=<generated>` (case 4): a value WideSWE's script computes at run
    // time; in a shell the brackets are redirections (`> tests/x.py` would empty a test
    // file), so the command is not taken.
    if let Some(p) = words.iter().find_map(|w| placeholder(w)) {
        return Err(Unreadable::Command(format!(
            "its command holds the placeholder `{p}`, a value WideSWE's script computes when it runs the tests"
        )));
    }
    let Some(found) = runner::detect(&words) else {
        // A plain test script whose exit status is the result (case 60): read by the
        // `exit-status` parser where this taskc has it.
        if super::plain_script::in_words(&words).is_some() {
            let parser = Runner::PlainScript.native();
            if !known.contains(&parser) {
                return Err(Unreadable::NoParser {
                    runner: Runner::PlainScript,
                    native: parser,
                });
            }
            return Ok(TestCommand {
                run: text,
                runner: Runner::PlainScript,
                parser,
                fallback: None,
                prose,
            });
        }
        // A package script nothing in the case names the runner of (cases 29–31 name jest
        // by its options: `runner::jest_package_script`).
        if let Some((script, _)) = runner::package_script(&words) {
            return Err(Unreadable::Command(format!(
                "it runs the package script `{script}` of the repository's package.json, and nothing in the case says which test runner that script runs (it is handed no option only one runner takes)"
            )));
        }
        if is_prose(command) {
            return Err(Unreadable::Command(format!(
                "its command is prose, not a shell command: \"{}\"",
                command.trim()
            )));
        }
        return Err(Unreadable::Command(format!(
            "`{}` runs no test runner the importer reads",
            words.first().copied().unwrap_or("")
        )));
    };
    let done = |run: String, parser: &'static str| TestCommand {
        run,
        runner: found,
        parser,
        fallback: None,
        prose: prose.clone(),
    };
    match found {
        // Each run of the runner in a list (`pytest a; pytest b`) is made to print what
        // the parser reads (bug 13).
        Runner::Pytest => {
            let (run, _) = chain::rewrite_runs(&text, found, |segment, _| pytest_run(segment));
            Ok(done(run, "pytest"))
        }
        Runner::GoTest => {
            let (run, _) = chain::rewrite_runs(&text, found, |segment, _| {
                if segment.split_whitespace().any(|w| w == "-json") {
                    segment.to_string()
                } else {
                    segment.replacen("go test", "go test -json", 1)
                }
            });
            if !run.contains("-json") {
                return Err(Unreadable::Command(
                    "`go test` is not written as `go test`; the importer cannot add `-json`".into(),
                ));
            }
            Ok(done(run, "go-test-json"))
        }
        Runner::CargoTest => Ok(done(text.clone(), "cargo")),
        other => match runner::choose(other, &without_report_options(&words), known) {
            Choice::Chosen {
                parser,
                run,
                option,
                instead_of,
            } => {
                let mut c = done(run, parser);
                c.fallback = instead_of.map(|n| (option.unwrap_or(""), n));
                Ok(c)
            }
            Choice::Missing { native } => Err(Unreadable::NoParser {
                runner: other,
                native,
            }),
        },
    }
}

/// The `<name>` placeholder in `word` (`<generated>`, `--key=<generated>`), if any.
fn placeholder(word: &str) -> Option<&str> {
    let start = word.find('<')?;
    let rest = &word[start..];
    let end = rest.find('>')?;
    let inner = &rest[1..end];
    (!inner.is_empty()
        && inner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')))
    .then_some(&rest[..=end])
}

/// One pytest run printing its `-rA` summary (read by the `pytest` parser), WideSWE's
/// `--junitxml` dropped.
fn pytest_run(segment: &str) -> String {
    let words: Vec<&str> = segment.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut skip = false;
    let mut added = words.contains(&"-rA");
    for w in &words {
        if skip {
            skip = false;
            continue;
        }
        if *w == "--junitxml" || *w == "--junit-xml" {
            skip = true;
            continue;
        }
        if w.starts_with("--junitxml=") || w.starts_with("--junit-xml=") {
            continue;
        }
        out.push((*w).to_string());
        if !added && (*w == "pytest" || w.ends_with("/pytest")) {
            out.push("-rA".into());
            added = true;
        }
    }
    out.join(" ")
}

/// Whether `command` is an English sentence rather than a shell command (WideSWE's "Start
/// only the Elasticsearch compose service, then run the existing … selection."): it starts
/// with a capitalised word or ends with a full stop, and most of its words are plain words.
fn is_prose(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let plain = words
        .iter()
        .filter(|w| {
            let w = w.trim_end_matches(['.', ',', ':']);
            !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        })
        .count();
    let sentence = command.trim_end().ends_with('.')
        || words
            .first()
            .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_uppercase()));
    words.len() >= 6 && sentence && plain * 3 >= words.len() * 2
}

/// The command without the options that make a runner write WideSWE's own report
/// (`--reporter=junit`, `--reporter-outfile=…`, `--outputFile=…`, `--log-junit FILE`,
/// `--logger trx…`, mocha's `--reporter-option output=FILE`, which sends any reporter's output
/// to that file, case 62), in the `=` form as in the space form: taskc adds the option its
/// parser reads.
fn without_report_options(words: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skip = false;
    for w in words {
        if skip {
            skip = false;
            continue;
        }
        if matches!(
            *w,
            "--reporter"
                | "--reporter-outfile"
                | "--outputFile"
                | "--log-junit"
                | "--logger"
                | "--results-directory"
                | "--test-reporter-destination"
                | "--reporter-file"
                | "--reporter-option"
                | "--reporter-options"
        ) {
            skip = true;
            continue;
        }
        if [
            "--reporter=",
            "--reporter-outfile=",
            "--outputFile=",
            "--outputFile.",
            "--log-junit=",
            "--logger=",
            "--results-directory=",
            "--test-reporter-destination=",
            "--reporter-file=",
            "--reporter-option=",
            "--reporter-options=",
        ]
        .iter()
        .any(|p| w.starts_with(p))
        {
            // `--outputFile=report.json;` ends a run of a list: the `;` stays.
            if w.ends_with(';') {
                out.push(";");
            }
            continue;
        }
        out.push(w);
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &[
        "bun",
        "cargo",
        "go-test-json",
        "jest-json",
        "junit-xml",
        "pytest",
        "tap",
    ];

    #[test]
    fn pytest_profiles_print_results_and_drop_junit() {
        let paths = vec![(
            "/workspace/repos/pypa/packaging".to_string(),
            "/work/packaging".to_string(),
        )];
        let c = read(
            "python -m pytest tests/test_metadata.py --junitxml /workspace/.ecosyncbench/test-reports/p.xml",
            &paths,
            KNOWN,
        )
        .unwrap();
        assert_eq!(c.run, "python -m pytest -rA tests/test_metadata.py");
        assert_eq!(c.parser, "pytest");
        let c = read(
            "install local packaging, then python -m pytest -q tests/t.py --junitxml=/x.xml",
            &paths,
            KNOWN,
        )
        .unwrap();
        assert_eq!(c.run, "python -m pytest -rA -q tests/t.py");
        assert_eq!(c.prose.as_deref(), Some("install local packaging"));
    }

    #[test]
    fn other_runners_and_prose() {
        assert_eq!(
            read("go test ./pkg/...", &[], KNOWN).unwrap().run,
            "go test -json ./pkg/..."
        );
        assert_eq!(read("cargo test -p x", &[], KNOWN).unwrap().parser, "cargo");
        assert!(read("npm test", &[], KNOWN).is_err());
        assert!(read("make check", &[], KNOWN).is_err());
        // Case 60: a plain Python test script is scored by its exit status, the command
        // kept as written; without the `exit-status` parser it names the parser it needs.
        let plain = "cargo build --manifest-path hf_xet/Cargo.toml; python3 hf_xet/tests/request_headers_contract.py";
        let c = read(plain, &[], &["exit-status"]).unwrap();
        assert_eq!((c.run.as_str(), c.parser), (plain, "exit-status"));
        assert_eq!(c.runner, Runner::PlainScript);
        assert_eq!(
            read(plain, &[], KNOWN),
            Err(Unreadable::NoParser {
                runner: Runner::PlainScript,
                native: "exit-status"
            })
        );
        // WideSWE's beats and prisma profiles describe their tests in English.
        for prose in [
            "Start only the Elasticsearch compose service, then run the existing filestream Python integration test selection with the querylog module scope.",
            "pnpm install/build @prisma/config, then run the upstream-touched loadConfigFromFile Vitest module.",
        ] {
            match read(prose, &[], KNOWN) {
                Err(Unreadable::Command(why)) => assert!(why.contains("is prose"), "{why}"),
                other => panic!("{other:?}"),
            }
        }
        assert!(!is_prose("make check"));
        assert_eq!(
            read("bundle exec rspec spec/a_spec.rb", &[], KNOWN),
            Err(Unreadable::NoParser {
                runner: Runner::Rspec,
                native: "rspec-json"
            })
        );
        let c = read("npx vitest run src/a.test.ts", &[], KNOWN).unwrap();
        assert_eq!(c.run, "npx vitest run src/a.test.ts --reporter=json");
        assert_eq!(c.parser, "jest-json");
        assert_eq!(c.fallback, Some(("--reporter=json", "vitest")));
    }

    #[test]
    fn report_options_in_the_equals_form_are_dropped() {
        // Case 62: mocha's xunit reporter writing to a file. `--reporter-option output=…`
        // would send the JSON reporter's output there too, and its `--reporter-` prefix kept
        // the JSON reporter from being added.
        let c = read(
            "../../node_modules/.bin/mocha test/a.spec.ts --ui bdd --reporter xunit --reporter-option output=/workspace/r.xml",
            &[],
            &["mocha-json"],
        )
        .unwrap();
        assert_eq!(
            c.run,
            "../../node_modules/.bin/mocha test/a.spec.ts --ui bdd --reporter json"
        );
        let c = read(
            "bun test src/tunnel.test.ts --reporter=junit --reporter-outfile=/workspace/.ecosyncbench/test-reports/expo-mcp-tunnel.xml",
            &[],
            KNOWN,
        )
        .unwrap();
        assert_eq!(
            c.run,
            "bun test src/tunnel.test.ts --reporter=junit --reporter-outfile \"$TASKC_REPORT\""
        );
        let c = read(
            "bun test a.test.ts --reporter junit --reporter-outfile /workspace/r.xml",
            &[],
            KNOWN,
        )
        .unwrap();
        assert_eq!(
            c.run,
            "bun test a.test.ts --reporter=junit --reporter-outfile \"$TASKC_REPORT\""
        );
        let c = read(
            "npx jest a.test.js --json --outputFile=/workspace/.ecosyncbench/test-reports/j.json",
            &[],
            KNOWN,
        )
        .unwrap();
        assert_eq!(c.run, "npx jest a.test.js --json");
        let c = read(
            "vendor/bin/phpunit tests/ATest.php --log-junit=/workspace/.ecosyncbench/test-reports/p.xml",
            &[],
            &["junit-xml"],
        )
        .unwrap();
        assert!(!c.run.contains("/workspace/"), "{}", c.run);
    }
}
