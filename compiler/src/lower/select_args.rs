//! Narrowing by the runner's own selection arguments ([`Narrowing::Arguments`]): the
//! arguments each runner documents for running tests by name, built from the ids, and the
//! one place in the curator's command they go — appended to the one simple command that
//! invokes the runner. Pure text work: the command is read as bash would split it into
//! simple commands (quotes, escapes, `;`, `&&`, `||`, `|`, `&`, newlines), never run.
//!
//! [`Narrowing::Arguments`]: crate::parser::Narrowing::Arguments

use crate::parser::Selector;

use super::shell_word::quote;

/// The byte range of each simple command of `command` (separators excluded), or why the
/// command is not read (command substitution, process substitution, subshells, groups,
/// here-documents: where arguments would land is then not plain).
fn simple_commands(command: &str) -> Result<Vec<(usize, usize)>, String> {
    let b = command.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0usize, 0usize);
    let (mut single, mut double) = (false, false);
    let refuse = |what: &str| {
        Err(format!(
            "the test command uses {what}, so taskc cannot tell where the runner's selection arguments go"
        ))
    };
    while i < b.len() {
        let c = b[i];
        if single {
            if c == b'\'' {
                single = false;
            }
            i += 1;
            continue;
        }
        match c {
            b'\\' => {
                i += 2;
                continue;
            }
            b'`' => return refuse("a backquoted command substitution"),
            b'$' if b.get(i + 1) == Some(&b'(') => return refuse("a `$(…)` command substitution"),
            b'"' => double = !double,
            _ if double => {}
            b'\'' => single = true,
            b'<' | b'>' if b.get(i + 1) == Some(&b'(') => return refuse("a process substitution"),
            b'<' if b.get(i + 1) == Some(&b'<') => return refuse("a here-document"),
            b'(' | b')' => return refuse("a subshell"),
            b'{' | b'}'
                if (i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b';')
                    && b.get(i + 1)
                        .is_none_or(|n| n.is_ascii_whitespace() || *n == b';') =>
            {
                return refuse("a `{ …; }` group")
            }
            b'#' if i == 0 || b[i - 1].is_ascii_whitespace() => {
                // A comment runs to the end of the line.
                let end = command[i..].find('\n').map_or(b.len(), |n| i + n);
                out.push((start, i));
                start = end;
                i = end;
                continue;
            }
            b'&' if i > 0 && (b[i - 1] == b'>' || b[i - 1] == b'<') => {}
            b'&' if b.get(i + 1) == Some(&b'>') => {}
            b'|' if i > 0 && b[i - 1] == b'>' => {}
            b';' | b'&' | b'|' | b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if single || double {
        return refuse("an unclosed quote");
    }
    out.push((start, b.len()));
    Ok(out
        .into_iter()
        .filter(|(s, e)| s < e && !command[*s..*e].trim().is_empty())
        .collect())
}

/// The words of a simple command with quotes removed (enough to name its program).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut has = false;
    let (mut single, mut double) = (false, false);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => {
                single = !single;
                has = true;
            }
            '"' if !single => {
                double = !double;
                has = true;
            }
            '\\' if !single => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                    has = true;
                }
            }
            c if c.is_whitespace() && !single && !double => {
                if has {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            c => {
                cur.push(c);
                has = true;
            }
        }
    }
    if has {
        out.push(cur);
    }
    out
}

/// Whether the words of a simple command invoke `selector`'s runner: assignments
/// (`A=b`) skipped, then a launcher (`npx`, `yarn`, `pnpm` with `exec`, `bunx`, `exec`,
/// `env`), then the program by its last path component and its sub-command.
fn invokes(words: &[String], selector: Selector) -> bool {
    let assignment = |w: &str| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut i = 0;
    while i < words.len() && assignment(words[i]) {
        i += 1;
    }
    while i < words.len() && matches!(words[i], "npx" | "yarn" | "bunx" | "exec" | "env" | "pnpm") {
        // A launcher, its options, `exec` (`pnpm exec`) and assignments (`env A=b`).
        i += 1;
        while i < words.len()
            && (words[i].starts_with('-') || words[i] == "exec" || assignment(words[i]))
        {
            i += 1;
        }
    }
    let Some(program) = words.get(i) else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    selector.programs().iter().any(|(p, sub)| {
        *p == name
            && match sub {
                None => true,
                Some(s) => words.get(i + 1) == Some(s),
            }
    })
}

/// Where the runner's selection arguments go in `command`: the end of its one simple
/// command that invokes the runner (trailing white space left after them), or why there
/// is no such single place.
pub fn locate_invocation(command: &str, selector: Selector) -> Result<usize, String> {
    let found: Vec<usize> = simple_commands(command)?
        .into_iter()
        .filter(|(s, e)| invokes(&words(&command[*s..*e]), selector))
        .map(|(s, e)| s + command[s..e].trim_end().len())
        .collect();
    let names: Vec<&str> = selector.programs().iter().map(|(p, _)| *p).collect();
    match found.as_slice() {
        [at] => Ok(*at),
        [] => Err(format!(
            "the test command does not invoke `{}` as a simple command taskc can append its selection arguments to",
            names.join("`, `")
        )),
        _ => Err(format!(
            "the test command invokes `{}` {} times: taskc cannot tell which run to narrow",
            names.join("`, `"),
            found.len()
        )),
    }
}

/// `s` escaped for a regular expression (PCRE, JavaScript, .NET, Dart): every
/// metacharacter behind a backslash, `/` too (phpunit's delimiter), a line break as `\n`.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' | '^' | '$' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
            | '/' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// One anchored alternation of `names`, escaped.
fn anchored(names: &[String]) -> String {
    let alts: Vec<String> = names.iter().map(|n| regex_escape(n)).collect();
    format!("^(?:{})$", alts.join("|"))
}

/// The part of an id after its first `::` (the file's part before it), or the id.
fn after_file(id: &str) -> &str {
    id.split_once("::").map_or(id, |(_, t)| t)
}

/// A `describe > describe > title` path as the runner's full name (joined by spaces).
fn full_name(path: &str) -> String {
    path.split(" > ").collect::<Vec<_>>().join(" ")
}

/// A test name as a Tcl list element that `string match` matches only against itself:
/// the glob characters escaped for `string match`, then every character Tcl's list
/// syntax reads specially escaped again.
fn tcl_element(name: &str) -> String {
    let mut pattern = String::new();
    for c in name.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    let mut out = String::new();
    for c in pattern.chars() {
        if c.is_whitespace() || matches!(c, '{' | '}' | '[' | ']' | '$' | '"' | ';' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The escaped value of a `dotnet test --filter` property: `\` before the filter's
/// operators and grouping characters.
fn dotnet_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if matches!(c, '\\' | '(' | ')' | '&' | '|' | '=' | '!' | '~' | ',') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A JVM id (`classname::name`) as (class, method): the method name before any
/// parameter list or display suffix (`parses(String)[2]` → `parses`).
fn jvm_parts(id: &str) -> (&str, &str) {
    let (class, name) = id.split_once("::").unwrap_or(("", id));
    let method = name
        .split(|c: char| c == '(' || c == '[' || c.is_whitespace())
        .next()
        .unwrap_or(name);
    (class, method)
}

/// The arguments (as shell words, already quoted) that make `selector`'s runner run the
/// tests `ids` name (sorted and deduplicated by the caller).
pub fn selector_arguments(selector: Selector, ids: &[String]) -> String {
    let words: Vec<String> = match selector {
        Selector::TclMatch => {
            let list: Vec<String> = ids.iter().map(|i| tcl_element(i)).collect();
            vec!["-match".into(), quote(&list.join(" "))]
        }
        Selector::PhpunitFilter => vec!["--filter".into(), quote(&format!("/{}/", anchored(ids)))],
        Selector::MochaGrep => {
            let titles: Vec<String> = ids.iter().map(|i| after_file(i).to_string()).collect();
            vec!["--grep".into(), quote(&anchored(&titles))]
        }
        Selector::VitestName | Selector::BunName | Selector::DartName => {
            let names: Vec<String> = ids.iter().map(|i| full_name(after_file(i))).collect();
            let flag = match selector {
                Selector::DartName => "--name",
                _ => "-t",
            };
            vec![flag.into(), quote(&anchored(&names))]
        }
        Selector::PlaywrightGrep => {
            // The title path ends with the file, the describe blocks and the title.
            let paths: Vec<String> = ids
                .iter()
                .map(|i| {
                    let plain = i
                        .strip_prefix('[')
                        .and_then(|r| r.split_once("] "))
                        .map_or(i.as_str(), |(_, r)| r);
                    let (file, path) = plain.split_once("::").unwrap_or(("", plain));
                    regex_escape(format!("{file} {}", full_name(path)).trim())
                })
                .collect();
            vec![
                "-g".into(),
                quote(&format!("(?:^| )(?:{})$", paths.join("|"))),
            ]
        }
        Selector::DotnetFilter => {
            let mut names: Vec<String> = ids
                .iter()
                .map(|i| {
                    let name = i.split('(').next().unwrap_or(i);
                    format!("FullyQualifiedName={}", dotnet_escape(name))
                })
                .collect();
            names.dedup();
            vec!["--filter".into(), quote(&names.join("|"))]
        }
        Selector::SurefireTest => {
            let mut classes: Vec<(String, Vec<String>)> = Vec::new();
            for id in ids {
                let (class, method) = jvm_parts(id);
                // JUnit 4's parametrised names are `method[index: name]`, and surefire
                // matches the pattern against all of it: `method*` (the JUnit platform
                // matches JUnit 5's `method(String)[1]` by the method name alone).
                let name = id.split_once("::").map_or(id.as_str(), |(_, n)| n);
                let method = if name[method.len()..].starts_with('[') {
                    format!("{method}*")
                } else {
                    method.to_string()
                };
                let method = method.as_str();
                match classes.iter_mut().find(|(c, _)| c == class) {
                    Some((_, methods)) => {
                        if !methods.iter().any(|m| m == method) {
                            methods.push(method.to_string());
                        }
                    }
                    None => classes.push((class.to_string(), vec![method.to_string()])),
                }
            }
            let spec: Vec<String> = classes
                .iter()
                .map(|(c, m)| format!("{c}#{}", m.join("+")))
                .collect();
            vec![
                quote(&format!("-Dtest={}", spec.join(","))),
                "-Dsurefire.failIfNoSpecifiedTests=false".into(),
            ]
        }
        Selector::GradleTests => {
            let mut out: Vec<String> = Vec::new();
            for id in ids {
                let (class, method) = jvm_parts(id);
                let w = quote(&format!("{class}.{method}"));
                if !out.contains(&w) {
                    out.push("--tests".into());
                    out.push(w);
                }
            }
            out
        }
    };
    words.join(" ")
}

/// `command` with `selector`'s arguments for `ids` appended to its runner's invocation.
pub fn insert_arguments(
    command: &str,
    selector: Selector,
    ids: &[String],
) -> Result<String, String> {
    let at = locate_invocation(command, selector)?;
    Ok(format!(
        "{} {}{}",
        &command[..at],
        selector_arguments(selector, ids),
        &command[at..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments_go_after_the_one_invocation_of_the_runner() {
        let one = ids(&["com.example.JarTest::parses"]);
        assert_eq!(
            insert_arguments(
                "mvn -B -o test; s=$?; cat target/surefire-reports/TEST-*.xml > \"$TASKC_REPORT\"; exit $s",
                Selector::SurefireTest,
                &one
            )
            .unwrap(),
            "mvn -B -o test '-Dtest=com.example.JarTest#parses' -Dsurefire.failIfNoSpecifiedTests=false; s=$?; cat target/surefire-reports/TEST-*.xml > \"$TASKC_REPORT\"; exit $s"
        );
        assert_eq!(
            insert_arguments(
                "cd sub && tclsh tests/all.tcl -verbose ps 2>&1\n",
                Selector::TclMatch,
                &ids(&["a-1.1"])
            )
            .unwrap(),
            "cd sub && tclsh tests/all.tcl -verbose ps 2>&1 -match a-1.1\n"
        );
        assert_eq!(
            insert_arguments(
                "PLAYWRIGHT_JSON_OUTPUT_NAME=\"$TASKC_REPORT\" npx playwright test --reporter=json",
                Selector::PlaywrightGrep,
                &ids(&["tests/a.spec.ts::jar > sets it"])
            )
            .unwrap(),
            "PLAYWRIGHT_JSON_OUTPUT_NAME=\"$TASKC_REPORT\" npx playwright test --reporter=json -g '(?:^| )(?:tests\\/a\\.spec\\.ts jar sets it)$'"
        );
        // A `;` inside quotes is no separator.
        assert_eq!(
            insert_arguments(
                "dotnet test --logger \"trx;LogFileName=$TASKC_REPORT\"",
                Selector::DotnetFilter,
                &ids(&["Ns.C.M(x: 1)", "Ns.C.M(x: 2)", "Ns.C.N"])
            )
            .unwrap(),
            "dotnet test --logger \"trx;LogFileName=$TASKC_REPORT\" --filter 'FullyQualifiedName=Ns.C.M|FullyQualifiedName=Ns.C.N'"
        );
    }

    #[test]
    fn commands_without_one_plain_invocation_are_refused() {
        for (cmd, why) in [
            ("make test", "does not invoke"),
            ("vitest run a; vitest run b", "2 times"),
            ("bash -c \"$(cat run.sh)\"", "command substitution"),
            ("(cd x && vitest run)", "subshell"),
            ("vitest run `ls`", "backquoted"),
            ("vitest run <<EOF\nx\nEOF", "here-document"),
            ("vitest run 'open", "unclosed quote"),
        ] {
            let err = locate_invocation(cmd, Selector::VitestName).unwrap_err();
            assert!(err.contains(why), "{cmd}: {err}");
        }
        // `bun` without `test` is not bun's test runner.
        assert!(locate_invocation("bun run build", Selector::BunName).is_err());
        assert!(locate_invocation("npx vitest run --reporter=json", Selector::VitestName).is_ok());
        assert!(
            locate_invocation("vendor/bin/phpunit --log-junit x", Selector::PhpunitFilter).is_ok()
        );
        assert!(locate_invocation("./gradlew test --continue", Selector::GradleTests).is_ok());
        // A redirection's `&` and `|` are not separators.
        assert!(locate_invocation(
            "mocha --reporter json >out.json 2>&1 &>x >|y",
            Selector::MochaGrep
        )
        .is_ok());
    }

    #[test]
    fn each_runner_gets_its_documented_selection() {
        let awkward = ids(&[
            "tests/jar.test.ts::cookie jar > parse > reads \"a=b\" [1]",
            "tests/jar.test.ts::it's (x|y) 100% ünïcode",
        ]);
        assert_eq!(
            selector_arguments(Selector::VitestName, &awkward),
            r#"-t '^(?:cookie jar parse reads "a=b" \[1\]|it'\''s \(x\|y\) 100% ünïcode)$'"#
        );
        assert_eq!(
            selector_arguments(Selector::BunName, &awkward[..1]),
            r#"-t '^(?:cookie jar parse reads "a=b" \[1\])$'"#
        );
        assert_eq!(
            selector_arguments(Selector::DartName, &ids(&["test/a_test.dart::group a.b"])),
            r"--name '^(?:group a\.b)$'"
        );
        assert_eq!(
            selector_arguments(
                Selector::MochaGrep,
                &ids(&["test/jar.js::jar parses a+b", "test/jar.js::jar x"])
            ),
            r"--grep '^(?:jar parses a\+b|jar x)$'"
        );
        assert_eq!(
            selector_arguments(
                Selector::PhpunitFilter,
                &ids(&[
                    "Tests\\JarTest::testParse with data set \"a b\"",
                    "Tests\\JarTest::testX"
                ])
            ),
            r#"--filter '/^(?:Tests\\JarTest::testParse with data set "a b"|Tests\\JarTest::testX)$/'"#
        );
        assert_eq!(
            selector_arguments(Selector::TclMatch, &ids(&["cookie-1.2", "odd name*[x]"])),
            r"-match 'cookie-1.2 odd\ name\\*\\\[x\\\]'"
        );
        assert_eq!(
            selector_arguments(
                Selector::SurefireTest,
                &ids(&[
                    "com.example.JarTest::parses(String)[1]",
                    "com.example.JarTest::parses(String)[2]",
                    "com.example.JarTest::sets",
                    "com.example.Other::x",
                    "com.example.ParseParamTest::readsTheKey[3: parse(k=v) is \"wrong\"]",
                ])
            ),
            "'-Dtest=com.example.JarTest#parses+sets,com.example.Other#x,com.example.ParseParamTest#readsTheKey*' -Dsurefire.failIfNoSpecifiedTests=false"
        );
        assert_eq!(
            selector_arguments(
                Selector::GradleTests,
                &ids(&[
                    "com.example.JarTest::parsesPair()",
                    "com.example.JarTest::parsesPair()",
                    "a.B::c"
                ])
            ),
            "--tests com.example.JarTest.parsesPair --tests a.B.c"
        );
    }
}
