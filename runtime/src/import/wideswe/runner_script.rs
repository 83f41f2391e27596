//! A runner script `run_profile.sh` writes with a heredoc (`cat > "$workspace/.ecosyncbench/
//! run-go-test.sh" <<'SH' … go test -count=1 -json "$@" … SH`) and that a compose service of
//! the case runs with the test list (`command: bash -lc 'bash /opt/ecosync/run-go-test.sh
//! boxo-hidden ./pkg/a ./pkg/b'`, WideSWE case 62). The script's test line gets the
//! arguments of the service named after `repo`'s profile, less those the script `shift`s
//! away; the script is matched by its file name (the compose service sees it mounted
//! elsewhere). A test line whose `"$@"` no such service fills is not read.

use super::script::words;

/// A heredoc of the script: the file it writes (its base name) and its body's logical lines.
struct Heredoc {
    name: String,
    body: std::ops::Range<usize>,
}

/// The body of the heredoc that holds logical line `i`, if any: its text is another
/// script's, so its `"$@"` is that script's arguments, not the function's around it.
pub(crate) fn heredoc_of(lines: &[(usize, String)], i: usize) -> Option<std::ops::Range<usize>> {
    heredocs(lines)
        .into_iter()
        .map(|h| h.body)
        .find(|b| b.contains(&i))
}

/// The heredocs `cat > FILE <<'TAG'` of `lines` (logical lines of `run_profile.sh`).
fn heredocs(lines: &[(usize, String)]) -> Vec<Heredoc> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let l = &lines[k].1;
        let ws = words(l);
        let tag = ws.iter().find_map(|w| w.strip_prefix("<<")).map(|t| {
            t.trim_start_matches('-')
                .trim_matches(|c| c == '\'' || c == '"')
                .to_string()
        });
        let file = ws
            .windows(2)
            .find(|w| w[0] == ">" || (w[0] == "cat" && w[1].starts_with('>') && w[1].len() > 1))
            .map(|w| w[1].trim_start_matches('>').to_string());
        let (Some(tag), Some(file)) = (tag, file) else {
            k += 1;
            continue;
        };
        let tag = if tag.is_empty() {
            // `<< 'SH'`: the tag is the next word.
            ws.iter()
                .skip_while(|w| !w.starts_with("<<"))
                .nth(1)
                .cloned()
                .unwrap_or_default()
        } else {
            tag
        };
        let Some(end) = (k + 1..lines.len()).find(|&j| lines[j].1.trim() == tag) else {
            break;
        };
        let name = file.rsplit('/').next().unwrap_or(&file).to_string();
        if !tag.is_empty() {
            out.push(Heredoc {
                name,
                body: k + 1..end,
            });
        }
        k = end + 1;
    }
    out
}

/// `(service, command)` of each compose service with a `command`, as written (a list's
/// items joined by spaces).
pub(crate) fn compose_commands(compose: &str) -> Vec<(String, String)> {
    let Ok(doc) = crate::import::yaml::parse(compose) else {
        return Vec::new();
    };
    let Some(services) = doc.get("services") else {
        return Vec::new();
    };
    services
        .entries()
        .iter()
        .filter_map(|(name, _, body)| {
            let c = body.get("command")?;
            let text = match c.as_str() {
                Some(s) => s.to_string(),
                None => c
                    .items()
                    .iter()
                    .filter_map(|i| i.as_str())
                    .map(|s| {
                        if s.contains(' ') {
                            format!("'{s}'")
                        } else {
                            s.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            Some((name.to_string(), text))
        })
        .collect()
}

/// The test command of `repo` inside a heredoc runner script that a compose service named
/// after one of `repo`'s profiles runs, with the offset of its line in `script` and a note
/// for the curator. `None` when the shape is not there.
pub(crate) fn test_command(
    script: &str,
    compose: &[(String, String)],
    profiles: &[(String, String)],
    repo: &str,
) -> Option<(usize, String, Vec<String>)> {
    let lines = super::script::logical_lines(script);
    for doc in heredocs(&lines)
        .into_iter()
        .filter(|h| h.name.ends_with(".sh"))
    {
        // The arguments a service of `repo`'s profiles runs the script with.
        let call = compose.iter().find_map(|(service, command)| {
            let ours = profiles.iter().any(|(p, r)| p == service && r == repo);
            if !ours {
                return None;
            }
            arguments_after(command, &doc.name).map(|a| (service.clone(), a))
        });
        let Some((service, args)) = call else {
            continue;
        };
        let mut shifted = 0usize;
        for i in doc.body.clone() {
            let (at, line) = &lines[i];
            let ws = words(line);
            if ws.first().map(String::as_str) == Some("shift") {
                shifted += ws.get(1).and_then(|n| n.parse().ok()).unwrap_or(1);
                continue;
            }
            let refs: Vec<&str> = ws.iter().map(String::as_str).collect();
            if super::runner::detect(&refs).is_none() || !line.contains("\"$@\"") {
                continue;
            }
            let rest: Vec<String> = args.iter().skip(shifted).cloned().collect();
            if rest.iter().any(|a| a.contains('$')) {
                return None;
            }
            let list: Vec<String> = rest
                .iter()
                .map(|a| taskc_compiler::lower::shell_quote(a))
                .collect();
            let run =
                super::script::without_report_plumbing(line).replace("\"$@\"", &list.join(" "));
            if super::script::has_variable(&run) {
                return None;
            }
            let note = format!(
                "the runner script `{}` that `{}` writes with a heredoc, run by the compose service `{service}` with the arguments `{}`",
                doc.name,
                "environment/run_profile.sh",
                args.join(" ")
            );
            return Some((*at, run.trim().to_string(), vec![note]));
        }
    }
    None
}

/// The words after the one naming the script `name` (`/opt/x/name`, `name`) in `command`,
/// looking into a quoted `bash -lc '…'` script too.
fn arguments_after(command: &str, name: &str) -> Option<Vec<String>> {
    let ws = words(command);
    let names = |w: &str| w == name || w.ends_with(&format!("/{name}"));
    if let Some(k) = ws.iter().position(|w| names(w)) {
        return Some(ws[k + 1..].to_vec());
    }
    ws.iter()
        .filter(|w| w.contains(' ') && w.contains(name))
        .find_map(|w| arguments_after(w, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heredoc_script_run_by_a_compose_service() {
        let script = "write() {\n  cat > \"$w/.x/run-go.sh\" <<'SH'\n#!/usr/bin/env bash\nprofile=\"${1:?}\"\nshift\ngo test -count=1 -json \"$@\" | tee \"/w/${profile}.json\"\nSH\n}\n";
        let compose = compose_commands("services:\n  lib-hidden:\n    image: x\n    command: bash -lc 'bash /opt/e/run-go.sh lib-hidden ./a ./b/c'\n");
        let profiles = vec![("lib-hidden".to_string(), "lib".to_string())];
        let (at, run, notes) = test_command(script, &compose, &profiles, "lib").expect("read");
        assert_eq!(run, "go test -count=1 -json ./a ./b/c");
        assert!(script[at..].starts_with("go test"));
        assert_eq!(notes.len(), 1);
        // Another repository's service does not fill it.
        assert_eq!(test_command(script, &compose, &profiles, "other"), None);
        // Nor does a service that runs another script.
        let compose = compose_commands(
            "services:\n  lib-hidden:\n    command: [\"/opt/e/other.sh\", \"./a\"]\n",
        );
        assert_eq!(test_command(script, &compose, &profiles, "lib"), None);
    }
}
