//! Reading WideSWE's `run_profile.sh` as text, never running it: logical lines (with
//! `\`-continuations joined), shell words, and which repositories a line belongs to — the
//! repository an enclosing `if`/`elif` condition quotes, else the profiles whose
//! `case "$profile"` arm runs the line or calls the function around it, else every
//! profile's repository. The install steps (`install.rs`) and the in-container test
//! command of a profile whose `command` is the script itself ([`test_command`]) are read
//! with it.

/// A repository of the case as the script names it.
pub struct ScriptRepo<'a> {
    pub name: &'a str,
    /// `repos/pypa/packaging`: the script writes `/workspace/<local_path>`.
    pub local_path: &'a str,
}

/// The script's lines with `\`-continuations joined, each with its byte offset.
pub(crate) fn logical_lines(script: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    let mut offset = 0;
    for raw in script.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let (start, mut text) = pending.take().unwrap_or((offset, String::new()));
        if let Some(head) = line.strip_suffix('\\') {
            text.push_str(head);
            text.push(' ');
            pending = Some((start, text));
        } else {
            text.push_str(line);
            out.push((start, text));
        }
        offset += raw.len();
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// Shell words of one line: quotes removed, `'`/`"` spans kept whole. A quote left open
/// at the end of the line (a multi-line `bash -c '…'`) is taken as closed there, and an
/// unquoted `'` that opens one is also a word of its own, so `bash -c '` ends a command.
pub(crate) fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' if !any && cur.is_empty() => break,
            ' ' | '\t' => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            '\'' => {
                let mut closed = false;
                let mut inner = String::new();
                for d in chars.by_ref() {
                    if d == '\'' {
                        closed = true;
                        break;
                    }
                    inner.push(d);
                }
                if !closed {
                    // An opening quote of a multi-line string: what follows is another
                    // script's text.
                    if any {
                        out.push(std::mem::take(&mut cur));
                    }
                    out.push("'".into());
                    out.extend(words(&inner));
                    return out;
                }
                cur.push_str(&inner);
                any = true;
            }
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                cur.push(e);
                            }
                        }
                        _ => cur.push(d),
                    }
                }
                any = true;
            }
            '\\' => {
                if let Some(e) = chars.next() {
                    cur.push(e);
                    any = true;
                }
            }
            ';' | '|' | '&' | ')' => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
                let mut op = c.to_string();
                if (c == '&' || c == '|') && chars.peek() == Some(&c) {
                    op.push(c);
                    chars.next();
                }
                out.push(op);
            }
            _ => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The repositories the command on logical line `i` is attributed to.
pub(crate) fn attribute(
    lines: &[(usize, String)],
    i: usize,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
) -> Vec<String> {
    let quoted = |text: &str, name: &str| {
        text.contains(&format!("\"{name}\""))
            || text.contains(&format!("'{name}'"))
            || text.split_whitespace().any(|w| w == name)
    };
    let by_name = |text: &str| -> Vec<String> {
        let mut found: Vec<String> = repos
            .iter()
            .filter(|r| quoted(text, r.name))
            .map(|r| r.name.to_string())
            .collect();
        for (p, r) in profiles {
            if quoted(text, p) && !found.contains(r) {
                found.push(r.clone());
            }
        }
        found
    };
    // The innermost `if`/`elif` branch around line i.
    let mut depth = 0usize;
    for (_, line) in lines[..i].iter().rev() {
        let t = line.trim_start();
        let first = t.split_whitespace().next().unwrap_or("");
        match first {
            "fi" | "fi;" => depth += 1,
            "if" if depth > 0 => depth -= 1,
            "else" if depth == 0 => break,
            "if" | "elif" if depth == 0 => {
                let found = by_name(t);
                if !found.is_empty() {
                    return found;
                }
                if first == "if" {
                    break;
                }
            }
            _ => {}
        }
    }
    // The `case "$profile" in` arms that run the line, or call the function around it.
    let function = lines[..=i].iter().rev().find_map(|(_, line)| {
        if line == "}" {
            return Some(None);
        }
        let t = line.trim_start().trim_start_matches("function ").trim();
        let name = t.split("()").next()?;
        (t.contains("()")
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| Some(name.to_string()))
    });
    let function = function.flatten();
    let mut found = Vec::new();
    let mut arm: Option<&str> = None;
    let mut arm_hit = false;
    for (j, (_, line)) in lines.iter().enumerate() {
        let t = line.trim();
        if let Some(pattern) = t.strip_suffix(')').filter(|p| !p.contains(' ')) {
            arm = Some(pattern);
            arm_hit = false;
            continue;
        }
        let Some(pattern) = arm else { continue };
        if t.starts_with(";;") || t == "esac" {
            arm = None;
            continue;
        }
        let calls = function
            .as_deref()
            .is_some_and(|f| t.split_whitespace().next() == Some(f));
        if (j == i || calls) && !arm_hit {
            arm_hit = true;
            for p in pattern.split('|') {
                if let Some((_, r)) = profiles.iter().find(|(name, _)| name == p) {
                    if !found.contains(r) {
                        found.push(r.clone());
                    }
                }
            }
        }
    }
    if found.is_empty() {
        for (_, r) in profiles {
            if !found.contains(r) {
                found.push(r.clone());
            }
        }
    }
    found
}

/// The in-container test command of `profile` (of repository `repo`), for a profile whose
/// `command` runs the script itself (`./environment/run_profile.sh <profile>`): the last line
/// attributed to `repo` that runs pytest, `go test` or `cargo test` as a command (not inside
/// a quoted string) that runs a test runner ([`super::runner::detect`]), with its offset. `None` when there is none.
pub fn test_command(
    script: &str,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<(usize, String)> {
    let lines = logical_lines(script);
    let mut found = None;
    for (i, (at, line)) in lines.iter().enumerate() {
        let ws = words(line);
        let has = |seq: &[&str]| ws.windows(seq.len()).any(|w| w == seq);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        let runs = super::runner::detect(&refs).is_some()
            && !has(&["docker", "run"])
            && !refs.first().is_some_and(|w| *w == "echo" || *w == "printf");
        // A command built from shell variables (`"$VENV/bin/python" -m pytest "$@"`) is
        // not the profile's own: never taken.
        let mine = || {
            attribute(&lines, i, repos, profiles)
                .iter()
                .any(|r| r == repo)
        };
        if runs && !line.contains('$') && mine() {
            found = Some((*at, line.trim().to_string()));
            continue;
        }
        // A script handed to a function as one quoted argument
        // (`run_go_profile "dir" "report" 1800 'go build ./x && go test -json ./x'`): the
        // argument is the command.
        let inner = ws.iter().skip(1).rev().find(|w| {
            let iw = words(w);
            let refs: Vec<&str> = iw.iter().map(String::as_str).collect();
            iw.len() > 1 && !w.contains('$') && super::runner::detect(&refs).is_some()
        });
        if let Some(w) = inner {
            if mine() {
                found = Some((*at, w.trim().to_string()));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            words(r#"uv pip install --python "$V/bin/python" -e . "pytest<9" x\ y && echo"#),
            [
                "uv",
                "pip",
                "install",
                "--python",
                "$V/bin/python",
                "-e",
                ".",
                "pytest<9",
                "x y",
                "&&",
                "echo"
            ]
        );
        assert_eq!(words("bash -c 'set -e"), ["bash", "-c", "'", "set", "-e"]);
    }

    #[test]
    fn the_test_command_of_a_wrapped_profile() {
        let repos = [ScriptRepo {
            name: "lib",
            local_path: "repos/o/lib",
        }];
        let profiles = vec![("lib-hidden".to_string(), "lib".to_string())];
        let script = "run_lib() {\n  docker run --rm img bash -lc 'python -c \"import pytest\"'\n  docker run img bash -lc '\n    python -m pip install -e .\n    python -m pytest test/test_a.py --junitxml=/x.xml\n  '\n}\ncase \"$profile\" in\n  lib-hidden)\n    run_lib\n    ;;\nesac\n";
        let (at, cmd) = test_command(script, &repos, &profiles, "lib").expect("found");
        assert_eq!(cmd, "python -m pytest test/test_a.py --junitxml=/x.xml");
        assert_eq!(&script[at..at + 6], "    py");
        assert_eq!(test_command(script, &repos, &profiles, "other"), None);
    }

    #[test]
    fn a_test_script_passed_as_one_quoted_argument() {
        let repos = [ScriptRepo {
            name: "lib",
            local_path: "repos/o/lib",
        }];
        let profiles = vec![("lib-hidden".to_string(), "lib".to_string())];
        let script = "run_go() {\n  docker run img bash -lc \"${4} | tee r.json\"\n}\ncase \"$profile\" in\n  lib-hidden)\n    run_go \"repos/o/lib\" \"r.json\" \"${T:-60}\" \\\n      '/usr/local/go/bin/go build ./x && /usr/local/go/bin/go test -count=1 -json ./x'\n    ;;\nesac\n";
        let (_, cmd) = test_command(script, &repos, &profiles, "lib").expect("found");
        assert_eq!(
            cmd,
            "/usr/local/go/bin/go build ./x && /usr/local/go/bin/go test -count=1 -json ./x"
        );
    }
}
