//! The runs of one runner in a shell command list (`yarn vitest run a.test.ts -t x; yarn vitest
//! run b.test.ts`), each given what the parser needs (issue 24, bug 13).
//!
//! A WideSWE profile may run its runner more than once, the runs joined with `;`, `&&` or
//! `||`. What taskc adds to make the runner print what its parser reads (`-rA`, `-json`,
//! `--json`, `--reporter=json --outputFile="$TASKC_REPORT"`) belongs to every run, not to
//! the end of the list, where only the last run would get it and the others' results would
//! be lost. A runner that writes a report *file* writes one per run
//! (`"$TASKC_REPORT".1`, `"$TASKC_REPORT".2`, …), and the files are joined into
//! `$TASKC_REPORT` when the list ends, keeping the list's exit status: the parsers that read
//! a report file read every report it holds.

use std::ops::Range;

use super::runner::{self, Runner};

/// The simple commands of `text` (byte ranges, trimmed), split at the list and pipe
/// operators (`;`, `&&`, `||`, `|`, a newline) that are outside quotes, `$(…)` and `(…)`.
pub(crate) fn segments(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut depth, mut i) = (0usize, 0usize, 0usize);
    let (mut single, mut double) = (false, false);
    let push = |from: usize, to: usize, out: &mut Vec<Range<usize>>| {
        let seg = &text[from..to];
        let lead = seg.len() - seg.trim_start().len();
        let trimmed = seg.trim();
        if !trimmed.is_empty() {
            out.push(from + lead..from + lead + trimmed.len());
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if single {
            single = b != b'\'';
            i += 1;
            continue;
        }
        if b == b'\\' {
            i += 2;
            continue;
        }
        if double {
            double = b != b'"';
            i += 1;
            continue;
        }
        match b {
            b'\'' => single = true,
            b'"' => double = true,
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b';' | b'\n' | b'|' if depth == 0 => {
                push(start, i, &mut out);
                let two = bytes.get(i + 1) == Some(&b'|') && b == b'|';
                i += if two { 2 } else { 1 };
                start = i;
                continue;
            }
            b'&' if depth == 0 && bytes.get(i + 1) == Some(&b'&') => {
                push(start, i, &mut out);
                i += 2;
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    push(start, bytes.len(), &mut out);
    out
}

/// The ranges of `text`'s simple commands that run `runner`.
pub(crate) fn runs(text: &str, runner: Runner) -> Vec<Range<usize>> {
    segments(text)
        .into_iter()
        .filter(|r| {
            let words: Vec<&str> = text[r.clone()].split_whitespace().collect();
            runner::detect(&words) == Some(runner)
        })
        .collect()
}

/// The runners other than `runner` that simple commands of `text` run (`vitest …; cd e2e &&
/// playwright test …`, case 112), each once: the profile's parser reads `runner`'s output
/// only, so their tests are not scored.
pub(crate) fn other_runners(text: &str, runner: Runner) -> Vec<Runner> {
    let mut out = Vec::new();
    for r in segments(text) {
        let words: Vec<&str> = text[r].split_whitespace().collect();
        if let Some(other) = runner::detect(&words).filter(|o| *o != runner) {
            if !out.contains(&other) {
                out.push(other);
            }
        }
    }
    out
}

/// `text` with every run of `runner` replaced by `f(run, n)` (`n` counts the runs from 1,
/// and is 0 when there is only one), the rest kept byte for byte. When no simple command
/// runs `runner` on its own (the runner is only found across the whole text), `f` is
/// given the whole text.
pub(crate) fn rewrite_runs(
    text: &str,
    runner: Runner,
    mut f: impl FnMut(&str, usize) -> String,
) -> (String, usize) {
    let found = runs(text, runner);
    if found.is_empty() {
        return (f(text, 0), 1);
    }
    let several = found.len() > 1;
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for (k, r) in found.iter().enumerate() {
        out.push_str(&text[at..r.start]);
        out.push_str(&f(&text[r.clone()], if several { k + 1 } else { 0 }));
        at = r.end;
    }
    out.push_str(&text[at..]);
    (out, found.len())
}

/// The shell words that point run `n` of several at its own report file, where an option
/// names `$TASKC_REPORT` (`--outputFile="$TASKC_REPORT"` → `--outputFile="$TASKC_REPORT".2`).
pub(crate) fn numbered(option: &str, n: usize) -> String {
    if n == 0 {
        return option.to_string();
    }
    option
        .replace("\"$TASKC_REPORT\"", &format!("\"$TASKC_REPORT\".{n}"))
        .replace("=$TASKC_REPORT", &format!("=$TASKC_REPORT.{n}"))
}

/// The list `run` followed by the joining of its runs' numbered report files into
/// `$TASKC_REPORT`, keeping the list's exit status.
pub(crate) fn join_reports(run: &str) -> String {
    format!(
        "{run}; s=$?; for f in \"$TASKC_REPORT\".[0-9]*; do cat \"$f\"; echo; done > \"$TASKC_REPORT\"; exit $s"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(text: &str) -> Vec<&str> {
        segments(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn lists_split_outside_quotes_and_subshells() {
        assert_eq!(
            parts("cd a && yarn vitest run x -t 'a; b' ; yarn vitest run y || true"),
            [
                "cd a",
                "yarn vitest run x -t 'a; b'",
                "yarn vitest run y",
                "true"
            ]
        );
        assert_eq!(
            parts("go test ./... 2>&1 | tee \"$log\""),
            ["go test ./... 2>&1", "tee \"$log\""]
        );
        assert_eq!(
            parts("X=\"$(a; b)\" pytest q\npytest r"),
            ["X=\"$(a; b)\" pytest q", "pytest r"]
        );
        assert_eq!(parts("echo a\\;b"), ["echo a\\;b"]);
    }

    #[test]
    fn every_run_is_rewritten_the_rest_kept() {
        let (out, n) = rewrite_runs(
            "cd code && yarn vitest run a.test.ts --testNamePattern=x;yarn vitest run b.test.ts",
            Runner::Vitest,
            |s, n| format!("{s} <{n}>"),
        );
        assert_eq!(n, 2);
        assert_eq!(
            out,
            "cd code && yarn vitest run a.test.ts --testNamePattern=x <1>;yarn vitest run b.test.ts <2>"
        );
        let (one, n) = rewrite_runs("cd code && npx vitest run", Runner::Vitest, |s, n| {
            format!("{s} <{n}>")
        });
        assert_eq!((one.as_str(), n), ("cd code && npx vitest run <0>", 1));
    }

    #[test]
    fn report_files_are_numbered_per_run() {
        assert_eq!(
            numbered("--reporter=json --outputFile=\"$TASKC_REPORT\"", 2),
            "--reporter=json --outputFile=\"$TASKC_REPORT\".2"
        );
        assert_eq!(
            numbered("--logger \"trx;LogFileName=$TASKC_REPORT\"", 1),
            "--logger \"trx;LogFileName=$TASKC_REPORT.1\""
        );
        assert_eq!(numbered("--json", 3), "--json");
    }
}
