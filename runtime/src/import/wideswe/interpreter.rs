//! A Python interpreter named through a shell variable at the start of a test command
//! (WideSWE cases 5 and 52): `"$venv/bin/python" -m pytest …` (a virtual environment's
//! interpreter, wherever the script puts it) and `"${python_cmd[@]}" -m pytest …` where every
//! assignment of `python_cmd` in the script is a Python interpreter (`python_cmd=(python)`,
//! `python_cmd=(uv run python)`, `python_cmd=("$venv/bin/python")`). WideSWE keeps one
//! virtual environment per profile; taskc's environment has one Python, so the command runs
//! `python` there (a W1108 note says what was replaced). A variable with any other value
//! (`runner=(./vendor/bin/pest)`, a value computed by `$(…)`) is left alone, so the line
//! stays "built from shell variables" and is never taken.

/// `line` with the interpreter variables at the start of its commands replaced by `python`,
/// and a description of each replacement (for the note). `script` is the whole
/// `run_profile.sh`, where the variables' assignments are looked up.
pub(crate) fn with_python(script: &str, line: &str) -> (String, Vec<String>) {
    let mut notes = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut command_start = true;
    for token in line.split(' ') {
        if token.is_empty() {
            out.push(String::new());
            continue;
        }
        let replaced = command_start
            .then(|| interpreter_word(script, token))
            .flatten();
        match replaced {
            Some(why) => {
                notes.push(why);
                out.push("python".to_string());
            }
            None => out.push(token.to_string()),
        }
        let t = token.trim_start_matches('(');
        command_start = matches!(t, ";" | "&&" | "||" | "|" | "")
            || t.ends_with(';')
            || (command_start && is_assignment(t));
    }
    (out.join(" "), notes)
}

/// `NAME=value` before a command (`PYTHONPATH=… "$venv/bin/python" …`).
fn is_assignment(token: &str) -> bool {
    token.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Why `token` (one word of a command, quotes included) names a Python interpreter, if it
/// does through a variable.
fn interpreter_word(script: &str, token: &str) -> Option<String> {
    let t = token.trim_start_matches('(');
    let bare = t.trim_matches('"');
    if !bare.starts_with('$') {
        return None;
    }
    // `"$venv/bin/python"`, `${VENV}/bin/python3`: a virtual environment's interpreter.
    if let Some((head, tail)) = bare.split_once("/bin/") {
        if is_python(tail) && variable_name(head).is_some() {
            return Some(format!(
                "`{t}` (a virtual environment's Python) as `python`"
            ));
        }
        return None;
    }
    // `"${python_cmd[@]}"`, `"$PYTHON"`: a variable every assignment of which is one.
    let name = variable_name(bare)?;
    let values = assignments(script, &name);
    (!values.is_empty() && values.iter().all(|v| interpreter_value(v))).then(|| {
        let shown: Vec<String> = values
            .iter()
            .map(|v| format!("`{}`", v.join(" ")))
            .collect();
        format!(
            "`{t}` (set to {} in the script) as `python`",
            shown.join(", ")
        )
    })
}

/// The variable `$NAME`, `${NAME}`, `${NAME[@]}` or `${NAME[*]}` names (nothing else).
fn variable_name(text: &str) -> Option<String> {
    let inner = text.strip_prefix('$')?;
    let inner = match inner.strip_prefix('{') {
        Some(braced) => {
            let body = braced.strip_suffix('}')?;
            body.strip_suffix("[@]")
                .or_else(|| body.strip_suffix("[*]"))
                .unwrap_or(body)
        }
        None => inner,
    };
    (!inner.is_empty()
        && !inner.starts_with(|c: char| c.is_ascii_digit())
        && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then(|| inner.to_string())
}

/// `python`, `python3`, `python3.12`.
pub(crate) fn is_python(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("python") else {
        return false;
    };
    rest.is_empty()
        || rest
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// The words of an assigned value that run a Python interpreter: `python`, `python3`,
/// `.venv/bin/python`, `"$venv/bin/python"`, `uv run python`.
fn interpreter_value(words: &[String]) -> bool {
    let program = |w: &str| {
        let base = w.rsplit('/').next().unwrap_or(w);
        is_python(base) && !w.contains("$(") && !w.contains('`')
    };
    match words {
        [one] => program(one),
        [uv, run, p] => uv == "uv" && run == "run" && program(p),
        _ => false,
    }
}

/// Every value the script assigns to `name` (`name=(a b)`, `local name="a"`, `export
/// name=a`), as words with their quotes removed.
fn assignments(script: &str, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in script.lines() {
        let mut t = line.trim();
        for keyword in ["local ", "export ", "declare -a ", "readonly "] {
            t = t.strip_prefix(keyword).unwrap_or(t).trim_start();
        }
        let Some(value) = t.strip_prefix(name).and_then(|rest| rest.strip_prefix('=')) else {
            continue;
        };
        let words = match value.strip_prefix('(') {
            Some(array) => {
                let Some(end) = array.find(')') else {
                    // A multi-line array: not an interpreter.
                    out.push(vec![value.to_string(), "…".into()]);
                    continue;
                };
                super::script::words(&array[..end])
            }
            None => super::script::words(value)
                .into_iter()
                .take_while(|w| !matches!(w.as_str(), ";" | "&&" | "||" | "|"))
                .collect(),
        };
        out.push(words);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_environments_python_runs_as_python() {
        let (line, notes) = with_python("", "\"$venv/bin/python\" -m pytest -q a.py");
        assert_eq!(line, "python -m pytest -q a.py");
        assert_eq!(notes.len(), 1, "{notes:?}");
        // Not at the start of a command: an argument, kept.
        let (line, notes) = with_python("", "uv pip install --python \"$venv/bin/python\" x");
        assert_eq!(line, "uv pip install --python \"$venv/bin/python\" x");
        assert!(notes.is_empty());
        // Another program of the environment is not Python.
        let (line, _) = with_python("", "\"$venv/bin/pytest\" a.py");
        assert_eq!(line, "\"$venv/bin/pytest\" a.py");
    }

    #[test]
    fn an_array_is_python_only_when_every_assignment_is() {
        let script = "python_cmd=(python)\nif x; then\n  python_cmd=(\"$venv/bin/python\")\nfi\nelse\n  python_cmd=(uv run python)\n";
        let (line, notes) = with_python(script, "\"${python_cmd[@]}\" -m pytest -q \"$@\"");
        assert_eq!(line, "python -m pytest -q \"$@\"");
        assert!(notes[0].contains("`uv run python`"), "{notes:?}");
        let script = "python_cmd=(python)\npython_cmd=(./vendor/bin/pest)\n";
        let (line, _) = with_python(script, "\"${python_cmd[@]}\" -m pytest");
        assert_eq!(line, "\"${python_cmd[@]}\" -m pytest");
        let script = "PY=\"$(command -v python3)\"\n";
        let (line, _) = with_python(script, "\"$PY\" -m pytest");
        assert_eq!(line, "\"$PY\" -m pytest");
        // Never assigned: nothing to read.
        let (line, _) = with_python("", "\"$PY\" -m pytest");
        assert_eq!(line, "\"$PY\" -m pytest");
    }
}
