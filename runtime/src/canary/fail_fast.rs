//! A `cargo test` run that stopped at its first failing test binary (cargo's fail-fast):
//! the test binaries and doc-tests after it never ran, so their tests are missing from a
//! log that otherwise looks whole. taskc runs cargo with `--no-fail-fast` when it places
//! canaries (`Framework::runs_everything`); a log that still stopped early (a command
//! taskc could not rewrite, a `cargo test` inside a script) is not an oracle.

/// Cargo's line after a failing test target, with and without `--no-fail-fast`.
const TARGET_FAILED: &str = "error: test failed, to rerun pass";

/// Why the cargo log `log` of `command` shows a run stopped by fail-fast: its last failing
/// target is followed by no other target (`Running …`, `Doc-tests …`) and by no summary of
/// failed targets (`error: N target(s) failed`, printed only when cargo went on). `None`
/// when it ran everything — also when `command` is one `cargo test` that selects a single
/// test target (`--test X`, `--lib`, `--bin X`, `--doc`, …, in one package): there were no
/// others to skip (WideSWE case 106's `cargo test --test testsuite …`).
pub fn stopped_early(command: &str, log: &str) -> Option<String> {
    if selects_one_target(command) {
        return None;
    }
    let at = log.rfind(TARGET_FAILED)?;
    let line_end = log[at..].find('\n').map_or(log.len(), |e| at + e);
    let after = &log[line_end..];
    let went_on = after.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("Running ")
            || l.starts_with("Doc-tests ")
            || (l.starts_with("error: ")
                && (l.contains(" targets failed") || l.contains(" target failed")))
    });
    if went_on {
        return None;
    }
    Some(format!(
        "cargo stopped at its first failing test target (`{}`) without running the others (fail-fast): the tests of the test binaries and doc-tests after it never ran, so this run cannot be an oracle — run cargo with `--no-fail-fast`",
        log[at..line_end].trim_end()
    ))
}

/// Whether `command` runs `cargo test` once, selecting exactly one test target of at most
/// one package. Anything else (two `cargo test`s, `--workspace`, several `-p`, a target kind
/// in the plural, no selector) may run several targets.
fn selects_one_target(command: &str) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    let starts: Vec<usize> = words
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w[0].ends_with("cargo") && w[1] == "test")
        .map(|(i, _)| i + 2)
        .collect();
    let [start] = starts.as_slice() else {
        return false;
    };
    let mut selectors = 0;
    let mut packages = 0;
    for w in &words[*start..] {
        match *w {
            "--" | "&&" | "||" | ";" | "|" => break,
            "--lib" | "--doc" | "--test" | "--bin" | "--example" | "--bench" => selectors += 1,
            "--tests" | "--bins" | "--examples" | "--benches" | "--all-targets" | "--workspace"
            | "--all" => return false,
            "-p" | "--package" => packages += 1,
            _ if w.starts_with("--package=") || w.starts_with("-p") && w.len() > 2 => packages += 1,
            _ if w.starts_with("--test=") || w.starts_with("--bin=") => selectors += 1,
            _ => {}
        }
    }
    selectors == 1 && packages <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_at_the_first_failing_binary_is_seen() {
        let stopped = "     Running unittests src/lib.rs (target/debug/deps/ff-1)\n\nrunning 1 test\ntest lib_fails ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed\n\nerror: test failed, to rerun pass `--lib`\n";
        let why = stopped_early("cargo test", stopped).expect("stopped");
        assert!(
            why.contains("`error: test failed, to rerun pass `--lib``"),
            "{why}"
        );
        let went_on = "     Running unittests src/lib.rs (target/debug/deps/ff-1)\nerror: test failed, to rerun pass `--lib`\n     Running tests/a.rs (target/debug/deps/a-1)\n   Doc-tests ff\nerror: 1 target failed:\n    `--lib`\n";
        assert_eq!(stopped_early("cargo test --no-fail-fast", went_on), None);
        let last_failed = "     Running tests/b.rs (x)\nerror: test failed, to rerun pass `--test b`\nerror: 2 targets failed:\n    `--lib`\n    `--test b`\n";
        assert_eq!(stopped_early("cargo test", last_failed), None);
        assert_eq!(
            stopped_early("cargo test", "test result: ok. 3 passed\n"),
            None
        );
    }

    /// WideSWE case 106: a base run of `cargo test --test testsuite …` whose one target fails
    /// ends with cargo's line and nothing after it, and nothing was skipped.
    #[test]
    fn one_selected_target_that_fails_is_not_a_stop() {
        let log = "     Running tests/testsuite/main.rs (target/debug/deps/testsuite-1)\n\nrunning 9 tests\ntest rustup::a ... FAILED\n\ntest result: FAILED. 6 passed; 3 failed\n\nerror: test failed, to rerun pass `--test testsuite`\n";
        for one in [
            "cargo test --test testsuite rustup:: -- --exact",
            "cd sub && cargo test --lib",
            "cargo test -p rustup --test test_bonanza",
            "cargo test --package=x --bin=y",
        ] {
            assert_eq!(stopped_early(one, log), None, "{one}");
        }
        for several in [
            "cargo test",
            "cargo test --tests",
            "cargo test --workspace --test testsuite",
            "cargo test -p a -p b --lib",
            "cargo test --lib --test t",
            "cargo test --test a; cargo test --test b",
        ] {
            assert!(stopped_early(several, log).is_some(), "{several}");
        }
    }
}
