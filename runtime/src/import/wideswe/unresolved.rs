//! The test line of a repository that `run_profile.sh` builds from values it computes when it
//! runs (case 116: `make test TESTS="${TESTS[*]}" TEST_PHP_ARGS="-q -d
//! extension=$bcmath_so"`, `bcmath_so` from `$(php -r …)`; case 118's `php "$testbin" …`):
//! the importer never takes such a line, and its refusal names the line and the values
//! instead of saying that no test command was found.

use super::script::{
    attribute, has_variable, logical_lines, without_report_plumbing, words, ScriptRepo,
};

/// The last line of `script` attributed to `repo` that runs a test runner but is still
/// built from shell variables once WideSWE's report plumbing is dropped, with those
/// variables (`${TESTS[*]}`, `$bcmath_so`) in order.
pub(crate) fn test_line(
    script: &str,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<(String, Vec<String>)> {
    let lines = logical_lines(script);
    let mut found = None;
    for (i, (_, line)) in lines.iter().enumerate() {
        let ws = words(line);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        let first = refs.first().copied().unwrap_or("");
        // A condition that picks the runner (`if [ -z "$testbin" ]; then
        // testbin=vendor/bin/phpunit; fi`, case 116) runs no tests.
        let runs = super::runner::detect(&refs).is_some()
            && !refs.windows(2).any(|w| w == ["docker", "run"])
            && !matches!(
                first,
                "echo" | "printf" | "'" | "if" | "elif" | "while" | "until" | "[" | "[["
            );
        if !runs {
            continue;
        }
        let command = without_report_plumbing(line);
        if !has_variable(&command) {
            continue;
        }
        let mine = attribute(&lines, i, repos, profiles)
            .iter()
            .any(|r| r == repo)
            && matches!(
                super::branch::around(&lines, i, profiles, repo),
                super::branch::Branch::Free | super::branch::Branch::Taken
            );
        if mine {
            found = Some((command.trim().to_string(), variables(&command)));
        }
    }
    found
}

/// The shell variables `text` reads (`$name`, `${…}`, `$(…)` as written), each once.
fn variables(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut k = 0;
    while k < b.len() {
        if b[k] != b'$' {
            k += 1;
            continue;
        }
        let end = match b.get(k + 1) {
            Some(b'{') => text[k..].find('}').map(|e| k + e + 1),
            Some(b'(') => text[k..].find(')').map(|e| k + e + 1),
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => Some(
                k + 1
                    + text[k + 1..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(text.len() - k - 1),
            ),
            Some(b'@' | b'*') => Some(k + 2),
            _ => None,
        };
        match end {
            Some(e) => {
                let v = text[k..e].to_string();
                if !out.contains(&v) {
                    out.push(v);
                }
                k = e;
            }
            None => k += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_line_built_at_run_time_is_named_with_its_values() {
        let repos = [ScriptRepo {
            name: "ext",
            local_path: "repos/o/ext",
        }];
        let profiles = vec![("ext-hidden".to_string(), "ext".to_string())];
        let script = "case \"$profile\" in\n  ext-hidden)\n    run '\n      bcmath_so=\"$(php -r x)/bcmath.so\"\n      make test TESTS=\"${TESTS[*]}\" TEST_PHP_ARGS=\"-q -d extension=$bcmath_so\" > /tmp/out 2>&1\n    '\n    ;;\nesac\n";
        let (line, vars) = test_line(script, &repos, &profiles, "ext").expect("named");
        assert!(line.starts_with("make test TESTS="), "{line}");
        assert_eq!(vars, ["${TESTS[*]}", "$bcmath_so"]);
        assert_eq!(test_line(script, &repos, &profiles, "other"), None);
        // A line without variables is the importer's to take, not this.
        let plain = script.replace(
            "TESTS=\"${TESTS[*]}\" TEST_PHP_ARGS=\"-q -d extension=$bcmath_so\"",
            "TESTS=tests/a.phpt TEST_PHP_ARGS=-q",
        );
        assert_eq!(test_line(&plain, &repos, &profiles, "ext"), None);
        // A condition choosing the runner's path is no test line.
        let pick = script.replace(
            "      make test",
            "      if [ -z \"$bin\" ]; then bin=vendor/bin/phpunit; fi\n      make test",
        );
        let (line, _) = test_line(&pick, &repos, &profiles, "ext").expect("named");
        assert!(line.starts_with("make test"), "{line}");
        let only_pick = "case \"$profile\" in\n  ext-hidden)\n    if [ -z \"$bin\" ]; then bin=vendor/bin/phpunit; fi\n    ;;\nesac\n";
        assert_eq!(test_line(only_pick, &repos, &profiles, "ext"), None);
    }
}
