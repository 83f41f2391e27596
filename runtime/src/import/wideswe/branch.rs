//! Whether a profile takes the `if`/`elif`/`else` branch a test line of `run_profile.sh` is
//! in, when the branch is chosen by an argument of the function around it (case 75:
//! `local runner="$4"` … `if [[ "$runner" == "pest" ]]; then pest …; else phpunit …; fi`,
//! the runner named by the profile's `case "$profile"` arm). The argument is resolved when
//! the arm passes a literal; otherwise the branch is undecided, and the importer refuses the
//! profile rather than pick one of the runners.

use super::script::words;

/// What the branch around a test line is, for one repository's profile.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Branch {
    /// Not in a branch chosen by function arguments: read as before.
    Free,
    /// Every condition of the branch resolved: the profile takes it.
    Taken,
    /// Every condition resolved: the profile does not take it.
    NotTaken,
    /// A condition reads this function argument (`runner`, `$4`), and the profile's arm
    /// passes no literal for it.
    Undecided(String),
}

/// `[[ "$x" == "lit" ]]` / `[ "$x" = lit ]` / `!=` (any quoting, the quotes of a script
/// inside `'…'` included): the variable read, the literal, and whether it is `!=`.
fn comparison(condition: &str) -> Option<(String, String, bool)> {
    let strip = |s: &str| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
    let inner = condition
        .split_once("[[")
        .map(|(_, r)| r.split_once("]]").map_or(r, |(l, _)| l))
        .or_else(|| {
            condition
                .split_once('[')
                .map(|(_, r)| r.split_once(']').map_or(r, |(l, _)| l))
        })?;
    let (left, right, negated) = [(" != ", true), (" == ", false), (" = ", false)]
        .iter()
        .find_map(|(op, neg)| inner.split_once(op).map(|(l, r)| (l, r, *neg)))?;
    let left = strip(left);
    let var = left.strip_prefix('$')?;
    let var = var
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(var);
    let right = strip(right);
    (!right.contains('$') && !var.is_empty()).then(|| (var.to_string(), right, negated))
}

/// The position (1-based) of the function argument `var` names inside the function whose
/// body is `body`: `$4` itself, or a variable assigned from it (`local runner="$4"`) before
/// any `shift`.
fn argument_position(body: &[(usize, String)], var: &str) -> Option<usize> {
    if let Ok(n) = var.parse::<usize>() {
        return Some(n);
    }
    for (_, l) in body {
        let ws = words(l);
        if ws.first().map(String::as_str) == Some("shift") {
            return None;
        }
        let ws = match ws.first().map(String::as_str) {
            Some("local" | "declare" | "readonly") => &ws[1..],
            _ => &ws[..],
        };
        for w in ws {
            if let Some((k, v)) = w.split_once('=') {
                if k == var {
                    let v = v.trim_start_matches('$');
                    let v = v
                        .strip_prefix('{')
                        .and_then(|v| v.strip_suffix('}'))
                        .unwrap_or(v);
                    return v.parse().ok();
                }
            }
        }
    }
    None
}

/// The branch around logical line `i` for `repo`'s profiles (`profiles`: profile name →
/// repository), resolved through the arguments the profile's `case "$profile"` arm passes
/// to the function around the line.
pub(crate) fn around(
    lines: &[(usize, String)],
    i: usize,
    profiles: &[(String, String)],
    repo: &str,
) -> Branch {
    // The conditions of the innermost chain: (condition, is the line's own branch).
    let mut chain: Vec<(&str, bool)> = Vec::new();
    let mut own_seen = false;
    let mut depth = 0usize;
    for (_, line) in lines[..i].iter().rev() {
        let t = line.trim_start();
        match t.split_whitespace().next().unwrap_or("") {
            "fi" | "fi;" => depth += 1,
            "if" if depth > 0 => depth -= 1,
            "else" if depth == 0 => own_seen = true,
            first @ ("if" | "elif") if depth == 0 => {
                chain.push((t, !own_seen));
                own_seen = true;
                if first == "if" {
                    break;
                }
            }
            _ => {}
        }
    }
    if chain.is_empty() {
        return Branch::Free;
    }
    let Some(function) = super::functions::enclosing(lines, i) else {
        return Branch::Free;
    };
    let Some(start) = lines[..i].iter().rposition(|(_, l)| {
        let t = l.trim_start().trim_start_matches("function ");
        t.starts_with(function.as_str()) && t.trim_end().ends_with('{')
    }) else {
        return Branch::Free;
    };
    let body = &lines[start + 1..i];
    // Each condition: the argument it reads and the literal it compares with.
    let mut read = Vec::new();
    for (cond, own) in &chain {
        let Some((var, literal, negated)) = comparison(cond) else {
            return Branch::Free;
        };
        let Some(n) = argument_position(body, &var) else {
            return Branch::Free;
        };
        read.push((var, n, literal, negated, *own));
    }
    // The literal the arm of one of `repo`'s profiles passes at each position.
    let call = call_arguments(lines, &function, profiles, repo);
    let mut own_true = chain.iter().all(|(_, own)| !own); // the `else` branch
    let mut earlier_true = false;
    for (var, n, literal, negated, own) in read {
        let Some(value) = call
            .as_ref()
            .and_then(|args| args.get(n - 1).filter(|a| !a.contains('$')).cloned())
        else {
            return Branch::Undecided(var);
        };
        let holds = (value == literal) != negated;
        if own {
            own_true = holds;
        } else if holds {
            earlier_true = true;
        }
    }
    if own_true && !earlier_true {
        Branch::Taken
    } else {
        Branch::NotTaken
    }
}

/// The function argument that leaves a test line of `repo` undecided (its branch chosen by
/// an argument the profile's arm passes no literal for), if there is one: the importer
/// names it when it refuses the profile.
pub(crate) fn undecided(
    script: &str,
    repos: &[super::script::ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<String> {
    let lines = super::script::logical_lines(script);
    lines.iter().enumerate().find_map(|(i, (_, l))| {
        let ws = words(l);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        super::runner::detect(&refs)?;
        if !super::script::attribute(&lines, i, repos, profiles)
            .iter()
            .any(|r| r == repo)
        {
            return None;
        }
        match around(&lines, i, profiles, repo) {
            Branch::Undecided(v) => Some(v),
            _ => None,
        }
    })
}

/// The words after `function` in its call in the `case "$profile"` arm of one of `repo`'s
/// profiles; `None` when no arm calls it directly.
pub(crate) fn call_arguments(
    lines: &[(usize, String)],
    function: &str,
    profiles: &[(String, String)],
    repo: &str,
) -> Option<Vec<String>> {
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
        let Some(pattern) = arm else { continue };
        let ours = pattern
            .split('|')
            .any(|p| profiles.iter().any(|(n, r)| n == p && r == repo));
        let ws = words(t);
        if ours && ws.first().map(String::as_str) == Some(function) {
            return Some(ws.into_iter().skip(1).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::wideswe::script::logical_lines;

    const SCRIPT: &str = "run_php() {\n  local dir=\"$1\"\n  local runner=\"$2\"\n  shift 2\n  docker run img bash -lc '\n    if [[ \"'\"$runner\"'\" == \"pest\" ]]; then\n      ./vendor/bin/pest \"$@\"\n    else\n      ./vendor/bin/phpunit \"$@\"\n    fi\n  ' bash \"$@\"\n}\ncase \"$profile\" in\n  a-hidden)\n    run_php repos/o/a pest tests/A.php\n    ;;\n  b-hidden)\n    run_php repos/o/b phpunit tests/B.php\n    ;;\n  c-hidden)\n    run_php repos/o/c \"$RUNNER\" tests/C.php\n    ;;\nesac\n";

    fn profiles() -> Vec<(String, String)> {
        ["a", "b", "c"]
            .iter()
            .map(|r| (format!("{r}-hidden"), r.to_string()))
            .collect()
    }

    #[test]
    fn the_branch_a_literal_argument_chooses_is_taken() {
        let lines = logical_lines(SCRIPT);
        let at = |needle: &str| lines.iter().position(|(_, l)| l.contains(needle)).unwrap();
        let (pest, phpunit) = (at("vendor/bin/pest"), at("vendor/bin/phpunit"));
        assert_eq!(around(&lines, pest, &profiles(), "a"), Branch::Taken);
        assert_eq!(around(&lines, phpunit, &profiles(), "a"), Branch::NotTaken);
        assert_eq!(around(&lines, pest, &profiles(), "b"), Branch::NotTaken);
        assert_eq!(around(&lines, phpunit, &profiles(), "b"), Branch::Taken);
        assert_eq!(
            around(&lines, pest, &profiles(), "c"),
            Branch::Undecided("runner".into())
        );
        assert_eq!(
            around(&lines, at("docker run"), &profiles(), "a"),
            Branch::Free
        );
    }

    #[test]
    fn comparisons_are_read_in_any_quoting() {
        assert_eq!(
            comparison("if [[ \"'\"$runner\"'\" == \"pest\" ]]; then"),
            Some(("runner".into(), "pest".into(), false))
        );
        assert_eq!(
            comparison("elif [ \"${kind}\" != unit ]; then"),
            Some(("kind".into(), "unit".into(), true))
        );
        assert_eq!(comparison("if [[ -f composer.lock ]]; then"), None);
    }
}
