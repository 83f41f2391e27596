//! A `cargo test` run that stopped at its first failing test binary (cargo's fail-fast):
//! the test binaries and doc-tests after it never ran, so their tests are missing from a
//! log that otherwise looks whole. taskc runs cargo with `--no-fail-fast` when it places
//! canaries (`Framework::runs_everything`); a log that still stopped early (a command
//! taskc could not rewrite, a `cargo test` inside a script) is not an oracle.

/// Cargo's line after a failing test target, with and without `--no-fail-fast`.
const TARGET_FAILED: &str = "error: test failed, to rerun pass";

/// Why the cargo log `log` shows a run stopped by fail-fast: its last failing target is
/// followed by no other target (`Running …`, `Doc-tests …`) and by no summary of failed
/// targets (`error: N target(s) failed`, printed only when cargo went on). `None` when it
/// ran everything.
pub fn stopped_early(log: &str) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_at_the_first_failing_binary_is_seen() {
        let stopped = "     Running unittests src/lib.rs (target/debug/deps/ff-1)\n\nrunning 1 test\ntest lib_fails ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed\n\nerror: test failed, to rerun pass `--lib`\n";
        let why = stopped_early(stopped).expect("stopped");
        assert!(
            why.contains("`error: test failed, to rerun pass `--lib``"),
            "{why}"
        );
        let went_on = "     Running unittests src/lib.rs (target/debug/deps/ff-1)\nerror: test failed, to rerun pass `--lib`\n     Running tests/a.rs (target/debug/deps/a-1)\n   Doc-tests ff\nerror: 1 target failed:\n    `--lib`\n";
        assert_eq!(stopped_early(went_on), None);
        let last_failed = "     Running tests/b.rs (x)\nerror: test failed, to rerun pass `--test b`\nerror: 2 targets failed:\n    `--lib`\n    `--test b`\n";
        assert_eq!(stopped_early(last_failed), None);
        assert_eq!(stopped_early("test result: ok. 3 passed\n"), None);
    }
}
