//! A test runner run once per element of a shell `for` loop (`for test_path in "$@"; do
//! ./vendor/bin/phpunit … "$test_path"; done`, WideSWE's cases 48 and 49).
//!
//! A spec's `run` is one command whose output its parser reads once; a command list may run
//! the runner several times (`chain.rs`: each run gets the parser's option, and a log parser
//! reads every report the list prints). So a loop over a list the script writes literally —
//! in the `for` line, or as the arguments a `case "$profile"` arm passes to the function the
//! loop is in — is unrolled into one run of the runner per element ([`unroll`]), in order,
//! the list's exit status failing when any run fails (as the loop's own `failed=1` does).
//!
//! It is unrolled only when the runs' test ids cannot be confused: the elements are
//! distinct literal paths, none inside another (`tests/Unit` and `tests/Unit/ATest.php` would
//! report the same tests twice), and the loop body does nothing but run the runner and
//! record its status. An id two runs still report alike (two files declaring one class) is
//! kept once with its worst outcome and listed as a duplicate by the parser
//! (`ParsedLog::record`), never counted passing when one run failed it. Anything else — a
//! list built at run time, a body that also runs other commands, a run in a folder the
//! importer cannot tell — leaves the profile refused, the loop named with the reason.

use super::script::{
    attribute, has_variable, logical_lines, without_report_plumbing, words, ScriptRepo,
};

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

/// A loop unrolled into one run of its runner per element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unrolled {
    /// The loop (its `for` line's offset, as written, and the runner).
    pub found: RunnerLoop,
    /// The elements, in the loop's order.
    pub elements: Vec<String>,
    /// The runs as one command list (`r1 || taskc_failed=1; r2 || …; [ "$taskc_failed" -eq 0 ]`).
    pub run: String,
}

/// What became of a runner loop attributed to a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unroll {
    Taken(Unrolled),
    /// The loop is not taken: why (a sentence fragment, for the note).
    Refused(RunnerLoop, String),
}

/// The variable a loop's list fails on, recording each run's status.
const FAILED: &str = "taskc_failed";

/// The loop of `script` whose body runs a test runner of `repo` once per element, unrolled
/// when its list is literal and its runs' ids cannot be confused (module docs); `None` when
/// the script has no such loop for `repo`.
pub(crate) fn unroll(
    script: &str,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<Unroll> {
    let lines = logical_lines(script);
    for (i, (at, line)) in lines.iter().enumerate() {
        let w = words(line);
        if w.first().map(String::as_str) != Some("for")
            || w.get(2).map(String::as_str) != Some("in")
        {
            continue;
        }
        let var = w[1].clone();
        let list: Vec<String> = w[3..]
            .iter()
            .take_while(|x| *x != ";" && *x != "do")
            .cloned()
            .collect();
        let Some((body, runner_at)) = body_of(&lines, i, &var) else {
            continue;
        };
        if !attribute(&lines, runner_at, repos, profiles)
            .iter()
            .any(|r| r == repo)
        {
            continue;
        }
        let runner_words = words(&lines[runner_at].1);
        let runner = runner_words
            .iter()
            .find(|x| RUNNERS.contains(&x.rsplit('/').next().unwrap_or(x)))
            .cloned()
            .unwrap_or_default();
        let found = RunnerLoop {
            at: *at,
            header: line.trim().to_string(),
            runner,
        };
        let refuse = |why: String| Some(Unroll::Refused(found.clone(), why));
        let local_path = repos
            .iter()
            .find(|r| r.name == repo)
            .map_or("", |r| r.local_path);
        let call = arm_call(&lines, i, profiles, repo);
        let elements = match elements_of(&lines, i, &list, call.as_ref()) {
            Ok(e) => e,
            Err(why) => return refuse(why),
        };
        if let Err(why) = distinct_paths(&elements) {
            return refuse(why);
        }
        if let Some(other) = body
            .iter()
            .filter(|k| **k != runner_at)
            .find_map(|k| (!records_only(&lines[*k].1)).then(|| lines[*k].1.trim().to_string()))
        {
            return refuse(format!(
                "its body also runs `{other}`, which the runs may depend on"
            ));
        }
        if let Err(why) = runs_in_checkout(&lines, i, call.as_ref(), local_path) {
            return refuse(why);
        }
        if let Some(cd) = arm_changes_folder(&lines, profiles, repo) {
            return refuse(format!(
                "the profile's `case` arm runs `{cd}` before it, a folder the importer does not follow"
            ));
        }
        let command = without_report_plumbing(&without_report_values(&lines[runner_at].1));
        let command = super::formatter::without_junit_formatter(&command);
        let runs: Vec<String> = elements
            .iter()
            .map(|e| with_element(command.trim(), &var, e))
            .collect();
        if let Some(r) = runs.iter().find(|r| has_variable(r)) {
            return refuse(format!(
                "a run of it, `{r}`, is still built from shell variables"
            ));
        }
        let run = match runs.as_slice() {
            [one] => one.clone(),
            _ => format!(
                "{FAILED}=0; {}; [ \"${FAILED}\" -eq 0 ]",
                runs.iter()
                    .map(|r| format!("{r} || {FAILED}=1"))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        };
        return Some(Unroll::Taken(Unrolled {
            found,
            elements,
            run,
        }));
    }
    None
}

/// The logical lines of the body of the loop whose `for` line is `i` (its `do` line and
/// `done` left out), and the one that runs a test runner with the loop variable `var`.
fn body_of(lines: &[(usize, String)], i: usize, var: &str) -> Option<(Vec<usize>, usize)> {
    let uses = [format!("${var}"), format!("${{{var}}}")];
    let mut depth = 0usize;
    let mut body = Vec::new();
    let mut runner = None;
    for (k, (_, l)) in lines.iter().enumerate().skip(i + 1) {
        let bw = words(l);
        match bw.first().map(String::as_str) {
            Some("do") if body.is_empty() && depth == 0 => continue,
            Some("for" | "while" | "until") => depth += 1,
            Some("done") if depth == 0 => return runner.map(|r| (body, r)),
            Some("done") => depth -= 1,
            _ => {}
        }
        let runs = bw
            .iter()
            .any(|x| RUNNERS.contains(&x.rsplit('/').next().unwrap_or(x)));
        if runs && uses.iter().any(|u| l.contains(u.as_str())) && runner.is_none() {
            runner = Some(k);
        }
        body.push(k);
    }
    None
}

/// The logical line of the header of the function around logical line `i`.
fn function_start(lines: &[(usize, String)], i: usize) -> Option<usize> {
    let name = super::functions::enclosing(lines, i)?;
    lines[..i].iter().rposition(|(_, l)| {
        let t = l.trim().trim_start_matches("function ");
        t.starts_with(&name) && t.ends_with('{')
    })
}

/// The arguments of the call, in the `case "$profile"` arm of one of `repo`'s profiles, of the
/// function around logical line `i` (`run_phpunit_each "$workspace/repos/x" "$profile"
/// tests/A.php …`), with the number of `shift`s its body makes before line `i`.
fn arm_call(
    lines: &[(usize, String)],
    i: usize,
    profiles: &[(String, String)],
    repo: &str,
) -> Option<(Vec<String>, usize)> {
    let name = super::functions::enclosing(lines, i)?;
    let start = function_start(lines, i)?;
    let shifted = lines[start + 1..i]
        .iter()
        .map(|(_, l)| words(l))
        .filter(|ws| ws.first().map(String::as_str) == Some("shift"))
        .map(|ws| ws.get(1).and_then(|n| n.parse::<usize>().ok()).unwrap_or(1))
        .sum();
    let args = super::branch::call_arguments(lines, &name, profiles, repo)?;
    Some((args, shifted))
}

/// The loop's elements: its literal list, or the arguments the profile's arm passes for
/// `"$@"` (after the function's `shift`s). A list built at run time is the reason not to
/// unroll.
fn elements_of(
    lines: &[(usize, String)],
    i: usize,
    list: &[String],
    call: Option<&(Vec<String>, usize)>,
) -> Result<Vec<String>, String> {
    let header = lines[i].1.trim();
    let elements: Vec<String> = match list {
        [all] if all == "$@" => {
            let Some((ws, shifted)) = call else {
                return Err(format!(
                    "no `case \"$profile\"` arm of the profile calls the function around `{header}` with its list"
                ));
            };
            ws.iter().skip(*shifted).cloned().collect()
        }
        _ => list.to_vec(),
    };
    if let Some(e) = elements.iter().find(|e| e.contains('$') || e.contains('`')) {
        return Err(format!(
            "its list holds `{e}`, a value computed when the script runs"
        ));
    }
    if elements.is_empty() {
        return Err("its list is empty".to_string());
    }
    Ok(elements)
}

/// Whether the runs of `elements` report different tests: distinct literal paths, no glob,
/// none a folder holding another (its tests would be reported by both runs).
fn distinct_paths(elements: &[String]) -> Result<(), String> {
    if let Some(e) = elements.iter().find(|e| e.contains(['*', '?', '['])) {
        return Err(format!(
            "its element `{e}` is a pattern, which may name the files of another element"
        ));
    }
    for (k, a) in elements.iter().enumerate() {
        for b in &elements[k + 1..] {
            let (a, b) = (a.trim_end_matches('/'), b.trim_end_matches('/'));
            let inside = |x: &str, y: &str| y.starts_with(&format!("{x}/"));
            if a == b || inside(a, b) || inside(b, a) {
                return Err(format!(
                    "its elements `{a}` and `{b}` name the same tests, which two runs would report alike"
                ));
            }
        }
    }
    Ok(())
}

/// Whether a line of a loop body only records or checks a run (`code=$?`, `set +e`, `if [[
/// "$code" -ne 0 ]]; then`, `failed=1`, `fi`, `index=$((index + 1))`, `echo …`).
fn records_only(line: &str) -> bool {
    let ws = words(line);
    let Some(first) = ws.first().map(String::as_str) else {
        return true;
    };
    let assignment = first.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let test = |w: Option<&String>| w.is_some_and(|w| matches!(w.as_str(), "[[" | "[" | "test"));
    assignment
        || matches!(
            first,
            "local" | "set" | "then" | "fi" | "else" | "echo" | "printf" | "mkdir" | ":" | "true"
        )
        || (matches!(first, "if" | "elif") && test(ws.get(1)))
        || matches!(first, "[[" | "[")
}

/// Whether the loop on line `i` runs in `repo`'s own checkout (`local_path`): no `cd` before
/// it in its function, or a `cd` into a variable that holds an argument the arm passes as the
/// repository's folder (`cd "$repo_dir"`, `repo_dir="$1"`, the arm passing
/// `"$workspace/repos/o/x"`). Anything else is the reason not to unroll.
fn runs_in_checkout(
    lines: &[(usize, String)],
    i: usize,
    call: Option<&(Vec<String>, usize)>,
    local_path: &str,
) -> Result<(), String> {
    let Some(start) = function_start(lines, i) else {
        return Ok(());
    };
    let body = &lines[start + 1..i];
    for (_, l) in body {
        let ws = words(l);
        let Some(dir) = ws
            .windows(2)
            .find(|p| p[0] == "cd" || p[0] == "(cd")
            .map(|p| p[1].clone())
        else {
            continue;
        };
        let var = dir
            .strip_prefix('$')
            .map(|v| v.trim_start_matches('{').trim_end_matches('}').to_string());
        let positional = var.as_ref().and_then(|v| {
            body.iter().find_map(|(_, l)| {
                words(l).iter().find_map(|w| {
                    let (name, value) = w.split_once('=')?;
                    (name == v).then(|| value.strip_prefix('$')?.parse::<usize>().ok())?
                })
            })
        });
        let passed = positional
            .zip(call)
            .and_then(|(n, (args, _))| args.get(n.checked_sub(1)?).cloned());
        let own = passed.as_deref().is_some_and(|p| {
            let p = p.trim_end_matches('/');
            !local_path.is_empty() && (p == local_path || p.ends_with(&format!("/{local_path}")))
        });
        if !own {
            return Err(format!(
                "it runs after `cd {dir}`, a folder the importer cannot tell is the repository's checkout"
            ));
        }
    }
    Ok(())
}

/// A `cd` (or `pushd`) line of the `case "$profile"` arm of one of `repo`'s profiles: the runs
/// the arm makes start in another folder than the repository's.
fn arm_changes_folder(
    lines: &[(usize, String)],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<String> {
    let mut ours = false;
    for (_, l) in lines {
        let t = l.trim();
        if let Some(pattern) = t
            .strip_suffix(')')
            .filter(|p| !p.is_empty() && !p.contains(' '))
        {
            ours = pattern
                .split('|')
                .any(|p| profiles.iter().any(|(n, r)| n == p && r == repo));
            continue;
        }
        if t.starts_with(";;") || t == "esac" {
            ours = false;
            continue;
        }
        let first = words(t).into_iter().next().unwrap_or_default();
        if ours && matches!(first.as_str(), "cd" | "pushd" | "(cd") {
            return Some(t.to_string());
        }
    }
    None
}

/// `line` without report options whose value is built by the script (`--log-junit
/// "$dir/$(printf '%02d' "$index")-${name}.xml"`: one shell word with quotes and a command
/// substitution inside), which a whitespace split cannot drop whole.
fn without_report_values(line: &str) -> String {
    const OPTIONS: &[&str] = &["--log-junit", "--junitxml", "--junit-xml", "--outputFile"];
    let mut out = line.to_string();
    for option in OPTIONS {
        let pattern = format!("{option} ");
        let Some(k) = out.find(&pattern) else {
            continue;
        };
        let value_at = k + pattern.len();
        let rest = &out[value_at..];
        let value_at = value_at + (rest.len() - rest.trim_start().len());
        let end = word_end(&out, value_at);
        if has_variable(&out[value_at..end]) {
            out.replace_range(k..end, "");
        }
    }
    out
}

/// The end of the shell word starting at byte `at` of `s`: quotes, `$(…)` and backslashes
/// followed, the word ending at the first blank outside them.
fn word_end(s: &str, at: usize) -> usize {
    let b = s.as_bytes();
    let (mut k, mut depth) = (at, 0usize);
    let (mut single, mut double) = (false, false);
    while k < b.len() {
        let c = b[k];
        match c {
            _ if single => single = c != b'\'',
            b'\\' => k += 1,
            b'\'' if !double => single = true,
            b'"' if depth == 0 => double = !double,
            b'$' if b.get(k + 1) == Some(&b'(') => {
                depth += 1;
                k += 1;
            }
            b'(' if depth > 0 => depth += 1,
            b')' if depth > 0 => depth -= 1,
            b' ' | b'\t' if depth == 0 && !double => return k,
            _ => {}
        }
        k += 1;
    }
    b.len()
}

/// The runner's command with the loop variable replaced by one element, quoted.
fn with_element(command: &str, var: &str, element: &str) -> String {
    let quoted = taskc_compiler::lower::shell_quote(element);
    let mut out = command.to_string();
    for form in [
        format!("\"${{{var}}}\""),
        format!("\"${var}\""),
        format!("${{{var}}}"),
        format!("${var}"),
    ] {
        out = out.replace(&form, &quoted);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repos() -> [ScriptRepo<'static>; 1] {
        [ScriptRepo {
            name: "core",
            local_path: "repos/o/core",
        }]
    }

    fn profiles() -> Vec<(String, String)> {
        vec![("core-hidden".to_string(), "core".to_string())]
    }

    /// A function running phpunit once per argument, its arm passing `args`.
    fn script(args: &str) -> String {
        format!(
            "run_each() {{\n  local repo_dir=\"$1\"\n  shift\n  (\n    cd \"$repo_dir\"\n    for test_path in \"$@\"; do\n      n=$((n + 1))\n      set +e\n      ./vendor/bin/phpunit \\\n        --colors=never \\\n        --log-junit \"$w/$(printf '%02d' \"$n\")-${{safe}}.xml\" \\\n        \"$test_path\"\n      code=$?\n      set -e\n      if [[ \"$code\" -ne 0 ]]; then\n        failed=1\n      fi\n    done\n    exit \"$failed\"\n  )\n}}\ncase \"$profile\" in\n  core-hidden)\n    run_each \"$workspace/repos/o/core\" {args}\n    ;;\nesac\n"
        )
    }

    fn unrolled(s: &str) -> Option<Unroll> {
        unroll(s, &repos(), &profiles(), "core")
    }

    #[test]
    fn a_loop_over_the_arms_files_is_one_run_per_file() {
        let Some(Unroll::Taken(u)) = unrolled(&script("tests/A.php tests/B.php")) else {
            panic!("not unrolled");
        };
        assert_eq!(u.found.header, "for test_path in \"$@\"; do");
        assert_eq!(u.found.runner, "./vendor/bin/phpunit");
        assert_eq!(u.elements, ["tests/A.php", "tests/B.php"]);
        assert_eq!(
            u.run,
            "taskc_failed=0; ./vendor/bin/phpunit --colors=never tests/A.php || taskc_failed=1; ./vendor/bin/phpunit --colors=never tests/B.php || taskc_failed=1; [ \"$taskc_failed\" -eq 0 ]"
        );
        // One element: the run itself.
        let Some(Unroll::Taken(u)) = unrolled(&script("tests/A.php")) else {
            panic!("not unrolled");
        };
        assert_eq!(u.run, "./vendor/bin/phpunit --colors=never tests/A.php");
        // A literal list in the `for` line.
        let s = "for f in tests/a_test.py tests/b_test.py; do\n  python -m pytest \"$f\"\ndone\n";
        let Some(Unroll::Taken(u)) = unrolled(s) else {
            panic!("not unrolled");
        };
        assert_eq!(u.elements, ["tests/a_test.py", "tests/b_test.py"]);
    }

    #[test]
    fn runs_whose_ids_could_be_confused_are_refused_with_the_reason() {
        let why = |s: &str| match unrolled(s) {
            Some(Unroll::Refused(_, why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(why(&script("tests/Unit tests/Unit/ATest.php")).contains("name the same tests"));
        assert!(why(&script("tests/A.php tests/A.php")).contains("name the same tests"));
        assert!(why(&script("'tests/*Test.php'")).contains("pattern"));
        assert!(why(&script("\"$FILES\"")).contains("computed when the script runs"));
        let extra =
            script("tests/A.php").replace("      set +e\n", "      cp fixture.php tests/\n");
        assert!(
            why(&extra).contains("cp fixture.php tests/"),
            "{}",
            why(&extra)
        );
        let elsewhere = script("tests/A.php").replace("\"$workspace/repos/o/core\"", "/tmp/x");
        assert!(
            why(&elsewhere).contains("cd $repo_dir"),
            "{}",
            why(&elsewhere)
        );
        let moved =
            script("tests/A.php").replace("  core-hidden)\n", "  core-hidden)\n    cd sub\n");
        assert!(
            why(&moved).contains("runs `cd sub` before it"),
            "{}",
            why(&moved)
        );
    }

    #[test]
    fn a_loop_without_a_runner_or_its_variable_is_not_one() {
        assert_eq!(unrolled("for f in a b; do\n  echo \"$f\"\ndone\n"), None);
        assert_eq!(unrolled("for f in a b; do\n  phpunit tests\ndone\n"), None);
        assert_eq!(unrolled("phpunit tests\n"), None);
    }
}
