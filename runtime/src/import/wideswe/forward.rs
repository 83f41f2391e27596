//! Test arguments forwarded through functions of `run_profile.sh` (WideSWE case 18): the
//! profile's `case` arm calls a function without arguments (`run_package_spec`), which calls
//! the function running the tests with the test list (`run_go_json repos/x report.json
//! ./pkg/a ./pkg/b`), which hands it on as `"$@"` (to `bash -c '… go test -json "$@" …' --
//! "$@"`). [`through_caller`] finds that call; the shifts of the inner function are applied
//! by its caller (`script::with_call_arguments`).

use super::script::words;

/// The arguments of the one call of function `name` made inside another function that the
/// `case` arm of one of `repo`'s profiles calls (`arm → caller → name args…`), each word as
/// written. `None` when there is no such call, when there are several, or when the caller is
/// called from no arm of `repo`.
pub(crate) fn through_caller(
    lines: &[(usize, String)],
    name: &str,
    profiles: &[(String, String)],
    repo: &str,
) -> Option<Vec<String>> {
    let mut found: Vec<Vec<String>> = Vec::new();
    for (j, (_, l)) in lines.iter().enumerate() {
        let ws = words(l.trim());
        if ws.first().map(String::as_str) != Some(name) {
            continue;
        }
        let Some(caller) = enclosing_function(lines, j) else {
            continue;
        };
        if caller != name && arm_calls(lines, &caller, profiles, repo) {
            found.push(ws.into_iter().skip(1).collect());
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The function whose body holds logical line `j` (`name() {` … `}` at the line's start).
pub(crate) fn enclosing_function(lines: &[(usize, String)], j: usize) -> Option<String> {
    for (_, l) in lines[..j].iter().rev() {
        if l.trim_end() == "}" {
            return None;
        }
        let t = l.trim_start().trim_start_matches("function ").trim();
        if t.contains("()") && t.ends_with('{') {
            let name = t.split("()").next().unwrap_or("").trim();
            return (!name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .then(|| name.to_string());
        }
    }
    None
}

/// Whether a `case` arm of one of `repo`'s profiles calls `function`.
fn arm_calls(
    lines: &[(usize, String)],
    function: &str,
    profiles: &[(String, String)],
    repo: &str,
) -> bool {
    let mut arm: Option<&str> = None;
    for (_, l) in lines {
        let t = l.trim();
        if let Some(pattern) = t
            .strip_suffix(')')
            .filter(|p| !p.is_empty() && !p.contains(' '))
        {
            arm = Some(pattern);
            continue;
        }
        if t.starts_with(";;") || t == "esac" {
            arm = None;
            continue;
        }
        let Some(pattern) = arm else { continue };
        let ours = pattern
            .split('|')
            .any(|p| profiles.iter().any(|(n, r)| n == p && r == repo));
        if ours && words(t).first().map(String::as_str) == Some(function) {
            return true;
        }
    }
    false
}

/// The test command inside a one-line script handed to a shell with the function's
/// arguments after it (`bash -c 'set -e; mkdir -p r; go test -json "$@" > r/x.json; status=$?;
/// exit "$status"' -- "$@"`, case 18; `bash -lc '…' bash "$@"`): the one `;`-separated
/// command of `script` that runs a test runner, when the line hands the script `"$@"`.
pub(crate) fn forwarded_command(line: &str, script: &str) -> Option<String> {
    let tail = line.trim_end();
    let forwards = ["-- \"$@\"", "bash \"$@\"", "_ \"$@\"", "sh \"$@\""]
        .iter()
        .any(|f| tail.ends_with(f));
    if !forwards || !script.contains("\"$@\"") {
        return None;
    }
    let runs: Vec<&str> = script
        .split(';')
        .map(str::trim)
        .filter(|s| {
            let ws = words(s);
            let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
            super::runner::detect(&refs).is_some()
        })
        .collect();
    match runs.as_slice() {
        [one] => Some((*one).to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::wideswe::script::logical_lines;

    #[test]
    fn a_call_made_by_the_function_an_arm_calls() {
        let script = "run_go() {\n  shift 2\n  go test \"$@\"\n}\nrun_a() {\n  run_go repos/o/a a.json ./x ./y\n}\nrun_b() {\n  run_go repos/o/b b.json ./z\n}\ncase \"$profile\" in\n  a-hidden)\n    run_a\n    ;;\n  b-hidden)\n    run_b\n    ;;\nesac\n";
        let lines = logical_lines(script);
        let profiles = vec![
            ("a-hidden".to_string(), "a".to_string()),
            ("b-hidden".to_string(), "b".to_string()),
        ];
        assert_eq!(
            through_caller(&lines, "run_go", &profiles, "a"),
            Some(vec![
                "repos/o/a".into(),
                "a.json".into(),
                "./x".into(),
                "./y".into()
            ])
        );
        assert_eq!(
            through_caller(&lines, "run_go", &profiles, "b"),
            Some(vec!["repos/o/b".into(), "b.json".into(), "./z".into()])
        );
        assert_eq!(through_caller(&lines, "run_go", &profiles, "c"), None);
    }

    #[test]
    fn the_test_command_of_a_one_line_script_given_the_arguments() {
        let line = "docker run img bash -c 'set -e; go test -json \"$@\" > \"/w/$R\"; status=$?; exit \"$status\"' -- \"$@\"";
        let script = "set -e; go test -json \"$@\" > \"/w/$R\"; status=$?; exit \"$status\"";
        assert_eq!(
            forwarded_command(line, script).as_deref(),
            Some("go test -json \"$@\" > \"/w/$R\"")
        );
        // Without the arguments handed on, `"$@"` is the shell's own (empty).
        assert_eq!(
            forwarded_command("docker run img bash -c '…'", script),
            None
        );
    }
}
