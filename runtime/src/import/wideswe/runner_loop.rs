//! A test runner run once per element of a shell `for` loop (`for test_path in "$@"; do
//! ./vendor/bin/phpunit … "$test_path"; done`, WideSWE's cases 48 and 49). A spec's `run` is
//! one command whose report its parser reads once, and phpunit 9 takes one test path per
//! run, so neither one run per element nor one run with every file keeps WideSWE's tests as
//! it runs them: the importer does not take the loop, and its refusal names it.

use super::script::{logical_lines, words};

/// Runner words a loop body may run per element.
const RUNNERS: &[&str] = &[
    "phpunit", "pest", "pytest", "jest", "mocha", "vitest", "rspec",
];

/// A `for` loop of `script` whose body runs a test runner with the loop's variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunnerLoop {
    /// Byte offset of the `for` line.
    pub at: usize,
    /// The `for` line as written (`for test_path in "$@"; do`).
    pub header: String,
    /// The runner the body runs (`./vendor/bin/phpunit`).
    pub runner: String,
}

/// The first loop of `script` that runs a test runner once per element.
pub(crate) fn find(script: &str) -> Option<RunnerLoop> {
    let lines = logical_lines(script);
    for (i, (at, line)) in lines.iter().enumerate() {
        let w = words(line);
        let (Some(f), Some(var), Some(kw)) = (w.first(), w.get(1), w.get(2)) else {
            continue;
        };
        if f != "for" || kw != "in" {
            continue;
        }
        let uses = [format!("${var}"), format!("${{{var}}}")];
        let mut depth = 0usize;
        for (_, body) in &lines[i + 1..] {
            let bw = words(body);
            match bw.first().map(String::as_str) {
                Some("for" | "while" | "until") => depth += 1,
                Some("done") if depth == 0 => break,
                Some("done") => depth -= 1,
                _ => {}
            }
            let runner = bw.iter().find(|x| {
                let base = x.rsplit('/').next().unwrap_or(x);
                RUNNERS.contains(&base)
            });
            if let Some(runner) = runner {
                if uses.iter().any(|u| body.contains(u.as_str())) {
                    return Some(RunnerLoop {
                        at: *at,
                        header: line.trim().to_string(),
                        runner: runner.clone(),
                    });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runner_per_element_is_found() {
        let s = "f() {\n  for test_path in \"$@\"; do\n    n=1\n    ./vendor/bin/phpunit \\\n      --colors=never \\\n      \"$test_path\"\n  done\n}\n";
        let l = find(s).expect("loop");
        assert_eq!(l.header, "for test_path in \"$@\"; do");
        assert_eq!(l.runner, "./vendor/bin/phpunit");
        assert!(
            s[l.at..].trim_start().starts_with("for test_path"),
            "{}",
            &s[l.at..]
        );
    }

    #[test]
    fn a_loop_without_a_runner_or_its_variable_is_not() {
        assert_eq!(find("for f in a b; do\n  echo \"$f\"\ndone\n"), None);
        assert_eq!(find("for f in a b; do\n  phpunit tests\ndone\n"), None);
        assert_eq!(find("phpunit tests\n"), None);
    }
}
