//! A test that is a plain script whose exit status is its only result (WideSWE case 60:
//! `python3 hf_xet/tests/request_headers_contract.py "$test_name"`, once per test name in a
//! loop, the JUnit report written by WideSWE's own code from the exit statuses). A profile
//! whose `command` runs such a script as WideSWE runs it is read by the `exit-status` parser
//! (one test, passed iff the command exits 0); one whose `run_profile.sh` runs the script
//! otherwise (with arguments the command lacks, or built from variables) stays refused
//! (E1104), the refusal naming the script and the line.

use super::script::{attribute, logical_lines, words, ScriptRepo};

/// The test script (`hf_xet/tests/request_headers_contract.py`) a line of `script`
/// attributed to `repo` runs with a Python interpreter, when that line runs no test runner.
pub(crate) fn test_script(
    script: &str,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<String> {
    let lines = logical_lines(script);
    for (i, (_, line)) in lines.iter().enumerate() {
        let ws = words(line);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        if super::runner::detect(&refs).is_some() {
            continue;
        }
        let Some(path) = in_words(&refs) else {
            continue;
        };
        if attribute(&lines, i, repos, profiles)
            .iter()
            .any(|r| r == repo)
        {
            return Some(path);
        }
    }
    None
}

/// The test script a command (its words) runs with a Python interpreter
/// (`python3 hf_xet/tests/request_headers_contract.py`), if any; the caller has found no test
/// runner in it.
pub(crate) fn in_words(words: &[&str]) -> Option<String> {
    words.windows(2).find_map(|w| {
        let program = w[0].rsplit('/').next().unwrap_or(w[0]);
        let file = w[1].rsplit('/').next().unwrap_or(w[1]);
        (super::interpreter::is_python(program)
            && w[1].ends_with(".py")
            && !w[1].contains('$')
            && (file.starts_with("test") || w[1].contains("tests/") || w[1].contains("test/")))
        .then(|| w[1].to_string())
    })
}

/// The arguments `words` pass to the script at `path` (up to a list operator or a
/// redirection).
fn arguments<'a>(words: &'a [&'a str], path: &str) -> Option<Vec<&'a str>> {
    let k = words.iter().position(|w| *w == path)?;
    Some(
        words[k + 1..]
            .iter()
            .take_while(|w| {
                !matches!(**w, ";" | "&&" | "||" | "|" | "&")
                    && !w.starts_with('>')
                    && !w.starts_with("2>")
                    && !w.starts_with("1>")
            })
            .copied()
            .collect(),
    )
}

/// A line of `script` (WideSWE's `run_profile.sh`) that runs the test script `path` with
/// other arguments than the profile's `command` (its words) passes it — case 60's
/// `python3 hf_xet/tests/request_headers_contract.py "$test_name"`, once per test name,
/// where the profile's command runs it with none: the command is then not what WideSWE
/// runs, and a spec from it would be a guess.
pub(crate) fn run_otherwise(script: &str, path: &str, command: &[&str]) -> Option<String> {
    let ours = arguments(command, path)?;
    logical_lines(script).into_iter().find_map(|(_, line)| {
        let ws = words(&line);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        let theirs = arguments(&refs, path)?;
        (theirs != ours).then(|| line.trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_test_script_is_named() {
        let repos = [ScriptRepo {
            name: "core",
            local_path: "repos/o/core",
        }];
        let profiles = vec![("core-hidden".to_string(), "core".to_string())];
        let script = "case \"$profile\" in\n  core-hidden)\n    run '\n      for t in \"${tests[@]}\"; do\n        X=1 timeout 30s python3 lib/tests/contract.py \"$t\" >> \"$log\" 2>&1 || status=$?\n      done\n    '\n    ;;\nesac\n";
        assert_eq!(
            test_script(script, &repos, &profiles, "core").as_deref(),
            Some("lib/tests/contract.py")
        );
        // Run with a test name the command does not pass: that line.
        let line = run_otherwise(
            script,
            "lib/tests/contract.py",
            &["python3", "lib/tests/contract.py"],
        );
        assert!(
            line.is_some_and(|l| l.starts_with("X=1 timeout 30s python3 lib/tests/contract.py"))
        );
        assert_eq!(
            run_otherwise(
                script,
                "lib/tests/contract.py",
                &["python3", "lib/tests/contract.py", "$t"]
            ),
            None
        );
        // A runner (`python -m pytest`) or a helper that is not a test is not one.
        let script = "python3 tools/make_keys.py\npython -m pytest tests/test_a.py\n";
        assert_eq!(test_script(script, &repos, &profiles, "core"), None);
    }
}
