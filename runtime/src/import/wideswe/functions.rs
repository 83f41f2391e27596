//! The shell functions of WideSWE's `run_profile.sh`, read as text: where each one's body
//! starts and ends, the function a line is in, and the functions that call one. A function
//! may be defined inside the quoted script a `docker run … bash -lc '…'` runs (a helper such
//! as `run_server_install() { … }` in case 87): its body ends at the `}` of its own
//! indentation, so a line after it is in the function around the `docker run`, not in it.

/// A function of the script: its name and the logical lines its body spans (the header and
/// the closing `}` included).
struct Function {
    name: String,
    start: usize,
    end: usize,
}

/// `name() {` or `function name {` (any indentation): the name.
fn header(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t.strip_prefix("function ").unwrap_or(t);
    let t = t.strip_suffix('{')?.trim_end();
    let name = t.strip_suffix("()").unwrap_or(t).trim_end();
    let simple = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (simple && (t.ends_with("()") || line.trim_start().starts_with("function ")))
        .then(|| name.to_string())
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Every function of the script, nested ones included, each ending at the first later `}`
/// line of its header's indentation (the end of the script when there is none).
fn functions(lines: &[(usize, String)]) -> Vec<Function> {
    let mut out = Vec::new();
    for (k, (_, line)) in lines.iter().enumerate() {
        let Some(name) = header(line) else { continue };
        let at = indent(line);
        let end = lines[k + 1..]
            .iter()
            .position(|(_, l)| l.trim() == "}" && indent(l) == at)
            .map_or(lines.len().saturating_sub(1), |p| k + 1 + p);
        out.push(Function {
            name,
            start: k,
            end,
        });
    }
    out
}

/// The innermost function whose body holds logical line `i`; `None` at the top level.
pub(crate) fn enclosing(lines: &[(usize, String)], i: usize) -> Option<String> {
    functions(lines)
        .into_iter()
        .filter(|f| f.start < i && i < f.end)
        .min_by_key(|f| f.end - f.start)
        .map(|f| f.name)
}

/// `name` and every function that calls it, directly or through other functions (a line of
/// its body starting with the callee's name): the functions a `case "$profile"` arm may call
/// to run a line of `name`.
pub(crate) fn with_callers(lines: &[(usize, String)], name: &str) -> Vec<String> {
    let all = functions(lines);
    let mut found = vec![name.to_string()];
    let mut k = 0;
    while k < found.len() {
        let callee = found[k].clone();
        for f in &all {
            let calls = lines[f.start + 1..f.end]
                .iter()
                .any(|(_, l)| l.split_whitespace().next() == Some(callee.as_str()));
            if calls && !found.contains(&f.name) {
                found.push(f.name.clone());
            }
        }
        k += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::wideswe::script::logical_lines;

    const SCRIPT: &str = "run_vitest() {\n  npx vitest run \"$@\"\n}\nrun_lib() {\n  run_vitest a.test.js\n}\nrun_server() {\n  docker run img bash -lc '\n      install() {\n        php occ install\n      }\n      install\n      phpunit tests/ATest.php\n    '\n}\ncase \"$profile\" in\n  lib-hidden)\n    run_lib\n    ;;\nesac\n";

    #[test]
    fn a_line_after_a_nested_function_is_in_the_function_around_it() {
        let lines = logical_lines(SCRIPT);
        let at = |needle: &str| lines.iter().position(|(_, l)| l.contains(needle)).unwrap();
        assert_eq!(
            enclosing(&lines, at("phpunit")).as_deref(),
            Some("run_server")
        );
        assert_eq!(enclosing(&lines, at("php occ")).as_deref(), Some("install"));
        assert_eq!(
            enclosing(&lines, at("npx vitest")).as_deref(),
            Some("run_vitest")
        );
        assert_eq!(enclosing(&lines, at("lib-hidden)")), None);
    }

    #[test]
    fn callers_are_followed_through_functions() {
        let lines = logical_lines(SCRIPT);
        assert_eq!(
            with_callers(&lines, "run_vitest"),
            ["run_vitest", "run_lib"]
        );
        assert_eq!(with_callers(&lines, "install"), ["install", "run_server"]);
    }
}
