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
    // The `case "$profile" in` arms that run the line, or call the function around it
    // (directly or through other functions: `run_cdav_library_js` → `run_node_vitest`). A
    // function defined inside a quoted script before the line (case 87's
    // `run_server_install() { … }` in `bash -lc '…'`) is not around it.
    let callers = super::functions::enclosing(lines, i)
        .map(|f| super::functions::with_callers(lines, &f))
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut arm: Option<&str> = None;
    let mut arm_hit = false;
    for (j, (_, line)) in lines.iter().enumerate() {
        let t = line.trim();
        if let Some(pattern) = t
            .strip_suffix(')')
            .filter(|p| !p.is_empty() && !p.contains(' '))
        {
            arm = Some(pattern);
            arm_hit = false;
            continue;
        }
        let Some(pattern) = arm else { continue };
        if t.starts_with(";;") || t == "esac" {
            arm = None;
            continue;
        }
        let calls = t
            .split_whitespace()
            .next()
            .is_some_and(|w| callers.iter().any(|f| f == w));
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
    test_command_noted(script, repos, profiles, repo).map(|(at, line, _)| (at, line))
}

/// [`test_command`], with what the importer resolved to read it (a Python interpreter held
/// in a variable, `interpreter.rs`; a `docker run -w` folder below the repository), one
/// sentence each, for W1108 notes.
pub fn test_command_noted(
    script: &str,
    repos: &[ScriptRepo<'_>],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<(usize, String, Vec<String>)> {
    let lines = logical_lines(script);
    let local_path = repos
        .iter()
        .find(|r| r.name == repo)
        .map(|r| r.local_path)
        .unwrap_or("");
    let mut found: Option<(usize, String, usize, Vec<String>)> = None;
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
                && matches!(
                    super::branch::around(&lines, i, profiles, repo),
                    super::branch::Branch::Free | super::branch::Branch::Taken
                )
        };
        if runs && mine() {
            // What only writes WideSWE's own report (`| tee "$log"`, `2>&1`) is not the
            // command; a test list handed to the function around the line is substituted.
            let line = super::formatter::without_junit_formatter(&without_report_plumbing(line));
            let line = if line.contains('$') {
                with_call_arguments(&lines, i, &line, profiles, repo)
            } else {
                line
            };
            let line = with_defaults(script, &line);
            let (line, mut notes) = super::interpreter::with_python(script, &line);
            // A run of the list after one that already changed into the folder starts
            // there: a second `cd` would be relative to it (case 112's two playwright runs).
            let in_effect = found
                .as_ref()
                .filter(|(_, _, k, _)| same_block(&lines[k + 1..i]))
                .and_then(|(_, _, k, _)| cd_before(&lines, *k));
            let line = match cd_before(&lines, i) {
                Some(dir) if in_effect.as_deref() != Some(dir.as_str()) => {
                    match cd_in_repo(&dir, repos, repo) {
                        Some(dir) => format!("cd {dir} && {}", line.trim()),
                        None => line,
                    }
                }
                Some(_) => line,
                None => match docker_workdir(&lines, i, local_path) {
                    Some(dir) => {
                        notes.push(docker_workdir_note(&dir));
                        format!("cd {dir} && {}", line.trim())
                    }
                    None => line,
                },
            };
            if !has_variable(&line) {
                // Runs one after another in the same block (kibana's two `node
                // scripts/jest.js` groups, case 18) are one list, each run read (bug 13);
                // a run in another block (another branch, function or arm) replaces it.
                found = match found.take() {
                    Some((first, prev, k, mut prev_notes)) if same_block(&lines[k + 1..i]) => {
                        for n in notes {
                            if !prev_notes.contains(&n) {
                                prev_notes.push(n);
                            }
                        }
                        Some((first, format!("{prev}; {}", line.trim()), i, prev_notes))
                    }
                    _ => Some((*at, line.trim().to_string(), i, notes)),
                };
                continue;
            }
        }
        // A script handed to a function as one quoted argument
        // (`run_go_profile "dir" "report" 1800 'go build ./x && go test -json ./x'`): the
        // argument is the command.
        let inner = ws.iter().skip(1).rev().find_map(|w| {
            let w = without_report_plumbing(&without_env_plumbing(w));
            // A one-line script that keeps the run's exit status for its own checks
            // (`set +e; go test -json ./x > r.json; status=$?; test -s r.json; exit
            // "$status"`, case 32): its runs are the command.
            let w = if has_variable(&w) {
                runs_of_script(&w).unwrap_or(w)
            } else {
                w
            };
            let iw = words(&w);
            let refs: Vec<&str> = iw.iter().map(String::as_str).collect();
            if iw.len() < 2 || super::runner::detect(&refs).is_none() {
                return None;
            }
            if !has_variable(&w) {
                return Some(w);
            }
            // A one-line script given the function's arguments (`bash -c '… go test -json
            // "$@" …' -- "$@"`, case 18): its test command, with the arguments of the call
            // that reaches the function (through a second function, too).
            let run = super::forward::forwarded_command(line, &w)?;
            let run =
                with_call_arguments(&lines, i, &without_report_plumbing(&run), profiles, repo);
            let run = with_defaults(script, &run);
            (!has_variable(&run)).then_some(run)
        });
        if let Some(w) = inner {
            if mine() {
                let mut notes = Vec::new();
                let w = match docker_workdir(&lines, i, local_path) {
                    Some(dir) => {
                        notes.push(docker_workdir_note(&dir));
                        format!("cd {dir} && {}", w.trim())
                    }
                    None => w,
                };
                found = Some((*at, w.trim().to_string(), i, notes));
            }
        }
    }
    found.map(|(at, line, _, notes)| (at, line, notes))
}

/// The folder below the repository (`repo`'s `local_path`) that the `docker run -w
/// /workspace/<local_path>/<sub>` around logical line `i` starts in (case 61: transformers.js
/// runs in `packages/transformers`): the line itself, or the line whose quoted script (`bash
/// -lc '`) holds line `i`. `None` at the repository's root, for a folder built from a
/// variable, or when no such `docker run` is found in the block.
fn docker_workdir(lines: &[(usize, String)], i: usize, local_path: &str) -> Option<String> {
    if local_path.is_empty() {
        return None;
    }
    for k in (0..=i).rev() {
        let l = lines[k].1.trim();
        let ws = words(l);
        if k < i {
            let boundary = l == "}"
                || l.starts_with(";;")
                || (l.contains("()") && l.ends_with('{'))
                || (l.ends_with(')') && !l.contains(' ') && !l.contains('('));
            if boundary {
                return None;
            }
        }
        let runs = ws.windows(2).any(|w| w[0] == "docker" && w[1] == "run")
            || ws
                .windows(3)
                .any(|w| w[0] == "docker" && w[1] == "compose" && w[2] == "run");
        if !runs {
            continue;
        }
        // The quoted script of this `docker run` must be what holds line i.
        if k < i && !ws.iter().any(|w| w == "'") {
            return None;
        }
        let dir = ws.windows(2).find_map(|w| {
            if w[0] == "-w" || w[0] == "--workdir" {
                return Some(w[1].clone());
            }
            w[0].strip_prefix("--workdir=")
                .or_else(|| w[0].strip_prefix("-w="))
                .map(str::to_string)
        })?;
        if has_variable(&dir) {
            return None;
        }
        return super::below(&dir, local_path);
    }
    None
}

fn docker_workdir_note(dir: &str) -> String {
    format!(
        "the `docker run -w` folder `{dir}` below the repository (the run starts with `cd {dir}`)"
    )
}

/// Whether `between` (the lines between two test runs) leaves them in one block: no branch,
/// arm or function starts or ends there.
fn same_block(between: &[(usize, String)]) -> bool {
    between.iter().all(|(_, l)| {
        let ws = words(l);
        let first = ws.first().map(String::as_str).unwrap_or("");
        let t = l.trim();
        let keyword = matches!(
            first,
            "if" | "elif"
                | "else"
                | "fi"
                | "case"
                | "esac"
                | "then"
                | "for"
                | "while"
                | "done"
                | "}"
                | "exit"
                | "return"
        );
        let arm = t.ends_with(";;") || t.ends_with(')');
        let function = t.contains("()") && t.ends_with('{');
        !(keyword || arm || function)
    })
}

/// Whether `text` reads a shell variable (`$NAME`, `${…}`, `$@`, `$(…)`); a `$` that
/// anchors a regular expression (`sed '/beats$/d'`) is none.
pub(crate) fn has_variable(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, c)| {
        *c == b'$'
            && b.get(i + 1).is_some_and(|n| {
                n.is_ascii_alphanumeric()
                    || matches!(n, b'_' | b'{' | b'(' | b'@' | b'*' | b'#' | b'?')
            })
    })
}

/// A script handed to `bash -c` without the steps that only set up its shell (`export
/// PATH=…:$PATH`, `set -o pipefail`): what is left runs the tests.
fn without_env_plumbing(script: &str) -> String {
    script
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.starts_with("export ") && !s.starts_with("set "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The commands of a one-line script (`;`-separated) that run a test runner, joined, when
/// every other command only checks or records the run (`mkdir`, `set`, `status=$?`, `test -s
/// …`, `exit "$status"`, …): nothing the runs depend on is left out. `None` otherwise.
fn runs_of_script(script: &str) -> Option<String> {
    let mut runs = Vec::new();
    for command in script.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let ws = words(command);
        let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
        if super::runner::detect(&refs).is_some() {
            runs.push(command);
            continue;
        }
        let first = refs.first().copied().unwrap_or("");
        let check = matches!(
            first,
            "mkdir" | "set" | "test" | "exit" | "echo" | "printf" | "true" | "rm" | "touch"
        ) || status_capture(command);
        if !check {
            return None;
        }
    }
    (!runs.is_empty()).then(|| runs.join("; "))
}

/// Options whose value names a report file of WideSWE's.
const REPORT_OPTIONS: &[&str] = &[
    "--log-junit",
    "--junitxml",
    "--junit-xml",
    "--outputFile",
    "--out",
    "--reporter-outfile",
    "--results-directory",
];

/// `cd <folder>` on a line of the block before the test run `i` (`cd
/// packages/kit/test/apps/async` then `… playwright test …`, case 111): the folder the run
/// starts in, relative to the repository, or absolute when an absolute `cd` chose it (`cd
/// /workspace/repos/nextcloud/server` then `cd apps/spreed`, case 88, is
/// `/workspace/repos/nextcloud/server/apps/spreed`); none when built from a variable.
fn cd_before(lines: &[(usize, String)], i: usize) -> Option<String> {
    let mut relative: Option<String> = None;
    for k in (0..i).rev() {
        let l = lines[k].1.trim();
        // A subshell (`(cd x && tar -cf - .) | (cd apps/x && tar -xf -)`, case 87) is no
        // case arm.
        let subshell = l.starts_with('(') && l.ends_with(')');
        if !(same_block(&lines[k..k + 1]) || subshell) || l.ends_with('\'') || l.ends_with("'\"") {
            return relative;
        }
        let ws = words(l);
        if ws.len() == 2 && ws[0] == "cd" {
            let dir = &ws[1];
            if dir.contains('$') || dir.starts_with('-') {
                return relative;
            }
            if let Some(abs) = dir.strip_prefix('/') {
                let abs = abs.trim_end_matches('/');
                return Some(match relative {
                    Some(rel) => format!("/{abs}/{rel}"),
                    None => format!("/{abs}"),
                });
            }
            if relative.is_some() {
                return relative;
            }
            relative = Some(dir.clone());
            continue;
        }
        if ws.first().map(String::as_str) == Some("'") || l.ends_with('\'') {
            return relative;
        }
    }
    relative
}

/// The `cd` a run of `repo` needs for the folder `dir` ([`cd_before`]): `dir` itself when
/// relative; the part under the repository's `/workspace/<local_path>` when absolute; none
/// when that is the repository itself or a folder outside it (another repository's, which
/// the spec cannot run in: [`foreign_directory`] names it).
fn cd_in_repo(dir: &str, repos: &[ScriptRepo<'_>], repo: &str) -> Option<String> {
    if !dir.starts_with('/') {
        return Some(dir.to_string());
    }
    let root = format!(
        "/workspace/{}",
        repos.iter().find(|r| r.name == repo)?.local_path
    );
    let rest = dir.strip_prefix(&root)?;
    let rest = rest.strip_prefix('/')?;
    (!rest.is_empty()).then(|| rest.to_string())
}

/// The folder outside `repo`'s checkout that the run on the logical line at byte offset
/// `at` starts in, after an absolute `cd` into another repository (case 88: spreed's tests
/// run in a copy of spreed inside `server/apps/spreed`): the spec runs them in the
/// repository's own folder, which the importer notes.
pub fn foreign_directory(
    script: &str,
    at: usize,
    repos: &[ScriptRepo<'_>],
    repo: &str,
) -> Option<String> {
    let lines = logical_lines(script);
    let i = lines.iter().position(|(o, _)| *o == at)?;
    let dir = cd_before(&lines, i)?;
    let root = format!(
        "/workspace/{}",
        repos.iter().find(|r| r.name == repo)?.local_path
    );
    let inside = dir == root || dir.starts_with(&format!("{root}/"));
    (dir.starts_with('/') && !inside).then_some(dir)
}

/// `line` without what only copies its output to WideSWE's report files: a trailing
/// `| tee …`, `2>&1`, and options naming a report file through a shell variable
/// (`--outputFile=/workspace/…/$report`).
pub(crate) fn without_report_plumbing(line: &str) -> String {
    let head = match line.find("| tee ").or_else(|| line.find("|tee ")) {
        Some(k) => &line[..k],
        None => line,
    };
    // Output sent to a file (`go test -json … > "/workspace/…/report.json"`, case 44) is
    // WideSWE's report; taskc's parsers read the run's output. So is a report option's
    // value built from a variable (`--log-junit "/workspace/…/'"$junit_name"'.xml"`, case
    // 74).
    let words: Vec<&str> = head.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        let next = words.get(k + 1).copied().unwrap_or("");
        if REPORT_OPTIONS.contains(&w) && has_variable(next) {
            k += 2;
            continue;
        }
        // `… || status=$?` only keeps the exit status for the script's own `exit` (case 50).
        if w == "||" && status_capture(next) {
            k += 2;
            continue;
        }
        if matches!(w, ">" | "1>" | ">>" | "1>>") {
            // `> /tmp/pip.log;` ends a command of the list: the `;` stays.
            if next.ends_with(';') {
                out.push(";");
            }
            k += 2;
            continue;
        }
        k += 1;
        let to_file = w.starts_with('>') || w.starts_with("1>");
        // A `$` that ends a regular expression (`--testNamePattern="^(?!x$).*"`, case 112)
        // reads no variable: the option is the runner's, kept.
        let report = w.starts_with("--") && w.contains('=') && has_variable(w);
        if !to_file && !report && w.trim_end_matches(';') != "2>&1" {
            out.push(w);
        } else if w.ends_with(';') {
            // `python -m pip install -e . >/tmp/pip.log; python -m pytest …` (case 61).
            out.push(";");
        }
    }
    out.join(" ")
}

/// `status=$?` or `rc=1`: an assignment that records a run's exit status.
fn status_capture(word: &str) -> bool {
    word.trim_end_matches(';')
        .split_once('=')
        .is_some_and(|(name, value)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && (value == "$?"
                    || (!value.is_empty() && value.chars().all(|c| c.is_ascii_digit())))
        })
}

/// `line` with each `${NAME}` / `$NAME` the script gives a default (`${NAME:-420}`)
/// anywhere replaced by that default.
fn with_defaults(script: &str, line: &str) -> String {
    let mut out = line.to_string();
    let mut rest = script;
    while let Some(k) = rest.find("${") {
        let after = &rest[k + 2..];
        let Some(end) = after.find('}') else { break };
        let inner = &after[..end];
        rest = &after[end..];
        let Some((name, default)) = inner.split_once(":-") else {
            continue;
        };
        let plain = !default.is_empty()
            && !default.contains(['$', '"', '\'', ' ', '`'])
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            for form in [
                format!("\"${{{name}}}\""),
                format!("${{{name}}}"),
                format!("\"${{{name}:-{default}}}\""),
                format!("${{{name}:-{default}}}"),
            ] {
                out = out.replace(&form, default);
            }
        }
    }
    out
}

/// `line` (logical line `i`, inside a shell function) with the variable that holds the
/// function's remaining arguments (`local tests=("$@")`, `printf -v test_args '%q '
/// "${tests[@]}"`, after `shift N`) replaced by the arguments the `case "$profile"` arm of
/// `repo`'s profile passes. `line` unchanged when it is not that shape.
fn with_call_arguments(
    lines: &[(usize, String)],
    i: usize,
    line: &str,
    profiles: &[(String, String)],
    repo: &str,
) -> String {
    // The function around line i and its body.
    let Some(start) = lines[..i].iter().rposition(|(_, l)| {
        let t = l.trim_start().trim_start_matches("function ").trim();
        t.contains("()") && t.ends_with('{')
    }) else {
        return line.to_string();
    };
    // A line of a script written by a heredoc inside the function: its `"$@"` is that
    // script's (case 62), filled by whoever runs it (`runner_script.rs`).
    let region = super::runner_script::heredoc_of(lines, i);
    if region != super::runner_script::heredoc_of(lines, start) {
        return line.to_string();
    }
    let head = lines[start].1.trim_start().trim_start_matches("function ");
    let name = head.split("()").next().unwrap_or("").trim().to_string();
    if name.is_empty() {
        return line.to_string();
    }
    let body = &lines[start + 1..i];
    let mut shifted = 0usize;
    let mut vars: Vec<String> = Vec::new();
    for (_, l) in body {
        let ws = words(l);
        if ws.first().map(String::as_str) == Some("shift") {
            shifted += ws.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
        }
        let derived =
            l.contains("\"$@\"") || vars.iter().any(|v| l.contains(&format!("${{{v}[@]}}")));
        if derived {
            let assigned = ws.iter().find_map(|w| {
                let w = w.trim_start_matches("local ");
                w.split_once('=').map(|(k, _)| k.to_string())
            });
            let printed = ws.windows(2).find(|w| w[0] == "-v").map(|w| w[1].clone());
            for v in assigned.into_iter().chain(printed) {
                if v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !vars.contains(&v) {
                    vars.push(v);
                }
            }
        }
    }
    if vars.is_empty() && !line.contains("\"$@\"") {
        return line.to_string();
    }
    // The call in the arm of one of `repo`'s profiles.
    let mut arm: Option<&str> = None;
    let mut args: Option<Vec<String>> = None;
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
        if ours && ws.first() == Some(&name) {
            args = Some(ws.into_iter().skip(1 + shifted).collect());
            break;
        }
    }
    // A function defined and called in the same script outside the profile arms (a helper
    // inside the quoted script `docker run … bash -lc '…'` runs, case 20): its one call.
    let args = args.or_else(|| {
        let calls: Vec<Vec<String>> = lines[i + 1..]
            .iter()
            .map(|(_, l)| words(l.trim()))
            .filter(|ws| ws.first() == Some(&name))
            .collect();
        match calls.as_slice() {
            [one] => Some(one.iter().skip(1 + shifted).cloned().collect()),
            _ => None,
        }
    });
    // Called by another function that the profile's arm calls (`run_package_spec` →
    // `run_go_json repos/x report.json ./pkg…`, case 18).
    let args = args.or_else(|| {
        super::forward::through_caller(lines, &name, profiles, repo)
            .map(|a| a.into_iter().skip(shifted).collect())
    });
    let Some(args) = args else {
        return line.to_string();
    };
    if args.iter().any(|a| a.contains('$')) {
        return line.to_string();
    }
    let quoted: Vec<String> = args
        .iter()
        .map(|a| taskc_compiler::lower::shell_quote(a))
        .collect();
    let list = quoted.join(" ");
    let mut out = line.replace("\"$@\"", &list);
    for v in &vars {
        for form in [
            format!("\"${{{v}[@]}}\""),
            format!("${{{v}[@]}}"),
            format!("${{{v}}}"),
            format!("${v}"),
        ] {
            out = out.replace(&form, &list);
        }
    }
    out
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
    fn a_line_after_an_array_closed_in_an_arm_stays_in_the_arm() {
        // `)` closing `TESTS=(…)` is no case arm (case 116): the test line after it is the
        // arm's repository's, not every repository's.
        let repos = [
            ScriptRepo {
                name: "ext",
                local_path: "repos/o/ext",
            },
            ScriptRepo {
                name: "lib",
                local_path: "repos/o/lib",
            },
        ];
        let profiles = vec![
            ("ext-hidden".to_string(), "ext".to_string()),
            ("lib-hidden".to_string(), "lib".to_string()),
        ];
        let script = "case \"$profile\" in\n  ext-hidden)\n    T=(\n      tests/a.phpt\n    )\n    python -m pytest tests/test_ext.py\n    ;;\n  lib-hidden)\n    echo none\n    ;;\nesac\n";
        let lines = logical_lines(script);
        let i = lines
            .iter()
            .position(|(_, l)| l.contains("pytest"))
            .expect("line");
        assert_eq!(attribute(&lines, i, &repos, &profiles), ["ext"]);
        assert_eq!(test_command(script, &repos, &profiles, "lib"), None);
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

    #[test]
    fn shell_setup_and_regex_anchors_are_no_variables() {
        assert!(!has_variable(
            "sed -i '/^replace x => \\.\\/beats$/d' go.mod"
        ));
        assert!(has_variable("go test \"$@\""));
        assert!(has_variable("RELAY_BIN=\"$PWD/x\" pytest"));
        assert_eq!(
            without_env_plumbing("export PATH=/go/bin:$PATH; set -o pipefail; go test -json ./x"),
            "go test -json ./x"
        );
        // Shaped like WideSWE's hf-csi-driver case: the tests in `bash -lc '…'`.
        let repos = [ScriptRepo {
            name: "drv",
            local_path: "repos/o/drv",
        }];
        let profiles = vec![("drv-hidden".to_string(), "drv".to_string())];
        let script = "case \"$profile\" in\n  drv-hidden)\n    docker run --rm \\\n      -w /workspace/repos/o/drv \\\n      \"$go_image\" \\\n      bash -lc 'export PATH=/go/bin:/usr/local/go/bin:$PATH; set -o pipefail; go test -count=1 -json ./pkg/webhook | tee /workspace/r.json'\n    ;;\nesac\n";
        let (_, cmd) = test_command(script, &repos, &profiles, "drv").expect("found");
        assert_eq!(cmd, "go test -count=1 -json ./pkg/webhook");
    }

    #[test]
    fn a_test_list_passed_to_the_function_and_its_report_plumbing() {
        let script = "run_vitest() {\n  local workdir=\"$1\"\n  local report=\"$2\"\n  shift 2\n  local tests=(\"$@\")\n  printf -v test_args '%q ' \"${tests[@]}\"\n  docker run img bash -c \"\n    yarn install --immutable\n    yarn vitest run $test_args --reporter=junit --outputFile=/w/$report\n  \"\n}\ncase \"$profile\" in\n  a-hidden)\n    run_vitest \"repos/o/a\" \"a.xml\" \"t/x.test.ts\" \"t/y.test.ts\"\n    ;;\n  b-hidden)\n    run_vitest \"repos/o/b\" \"b.xml\" \"t/z.test.ts\"\n    ;;\nesac\n";
        let repos = [
            ScriptRepo {
                name: "a",
                local_path: "repos/o/a",
            },
            ScriptRepo {
                name: "b",
                local_path: "repos/o/b",
            },
        ];
        let profiles = vec![
            ("a-hidden".to_string(), "a".to_string()),
            ("b-hidden".to_string(), "b".to_string()),
        ];
        let (_, a) = test_command(script, &repos, &profiles, "a").expect("a's command");
        assert_eq!(
            a,
            "yarn vitest run t/x.test.ts t/y.test.ts --reporter=junit"
        );
        let (_, b) = test_command(script, &repos, &profiles, "b").expect("b's command");
        assert_eq!(b, "yarn vitest run t/z.test.ts --reporter=junit");
        let django = "case \"$profile\" in\n  d-hidden)\n    python tests/runtests.py signals --verbosity 2 2>&1 | tee \"$log\"\n    ;;\nesac\n";
        let repos = [ScriptRepo {
            name: "d",
            local_path: "repos/o/d",
        }];
        let profiles = vec![("d-hidden".to_string(), "d".to_string())];
        let (_, d) = test_command(django, &repos, &profiles, "d").expect("d's command");
        assert_eq!(d, "python tests/runtests.py signals --verbosity 2");
    }
}
