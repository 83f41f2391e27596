//! Canaries for tcl's tcltest: `test` commands written into a hidden `.test` file, before
//! its last `cleanupTests` (which prints the file's summary; a test after it would be
//! counted nowhere), or at its end when it has none.
//!
//! **Names** follow tcltest's custom, `<prefix>-<major>.<minor>`: a prefix of the file's
//! own test names (`cookie` of `cookie-1.2`) and numbers drawn per run, never a name the
//! file defines or the command skips (`-skip cookie-3.1`). **The command** is the file's
//! own (`test`, `tcltest::test` or `::tcltest::test`: read from the file when the canaries
//! are written), so a file that does not import tcltest's commands runs them too.
//! Redis' `runtest` is another harness (`test "name" {…}` inside `start_server`): the
//! descriptor places no canaries for it.

use std::collections::BTreeSet;

use super::seed::Seed;

/// The placeholder of the file's own `test` command in a pair's text.
const COMMAND: &str = "__TASKC_TEST__";

/// The name of a test defined on `line` (trimmed): `test name …`.
pub fn defined(line: &str) -> Option<String> {
    let rest = ["test ", "tcltest::test ", "::tcltest::test "]
        .iter()
        .find_map(|p| line.strip_prefix(p))?
        .trim_start();
    let name = match rest.chars().next()? {
        '{' => rest[1..].split('}').next()?,
        '"' => rest[1..].split('"').next()?,
        _ => rest.split_whitespace().next()?,
    };
    (!name.is_empty()).then(|| name.to_string())
}

/// The prefixes of tcltest-style names (`cookie` of `cookie-1.2`; `http-parse` of
/// `http-parse-3`): what a canary name starts with.
pub fn prefixes(own: &BTreeSet<String>) -> Vec<String> {
    let mut out = BTreeSet::new();
    for n in own {
        let Some((prefix, number)) = n.rsplit_once('-') else {
            continue;
        };
        let numeric = !number.is_empty()
            && number
                .split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
        let plain = !prefix.is_empty()
            && prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'));
        if numeric && plain {
            out.insert(prefix.to_string());
        }
    }
    out.into_iter().collect()
}

/// Prefixes for a file whose tests are not named `<prefix>-<n>.<m>`.
const FALLBACK: &[&str] = &["basic", "case", "edge", "misc", "regress", "unit"];

/// A canary name for slot `(k, slot)`: one of `prefixes` (a common word when none) and two
/// numbers, never one of `taken`, and added to it.
pub fn name(
    prefixes: &[String],
    seed: &Seed,
    k: u32,
    slot: u8,
    taken: &mut BTreeSet<String>,
) -> String {
    let fallback: Vec<String> = FALLBACK.iter().map(|s| s.to_string()).collect();
    let list = if prefixes.is_empty() {
        &fallback
    } else {
        prefixes
    };
    let at = |i: u8, n: usize| seed.index(k, slot.wrapping_mul(16).wrapping_add(i), n);
    for attempt in 0..16u8 {
        let prefix = &list[at(attempt, list.len())];
        let major = 1 + at(attempt.wrapping_add(100), 12 + usize::from(attempt));
        let minor = 1 + at(attempt.wrapping_add(200), 20);
        let name = format!("{prefix}-{major}.{minor}");
        if !taken.contains(&name) {
            taken.insert(name.clone());
            return name;
        }
    }
    let name = format!("{}-{}", list[0], seed.hex(k, slot));
    taken.insert(name.clone());
    name
}

/// The test names `-skip` leaves out exactly (a pattern is refused by [`selection`]): the
/// Tcl list after it, the shell's quotes removed.
pub fn skipped(command: &str) -> Vec<String> {
    // Shell words, with their quotes removed.
    let mut words: Vec<String> = Vec::new();
    let mut cur: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() || matches!(c, ';' | '&' | '|') => {
                words.extend(cur.take());
            }
            (None, c) => cur.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(cur);
    words
        .iter()
        .skip_while(|w| *w != "-skip")
        .nth(1)
        .map(|v| {
            v.split_whitespace()
                .map(|n| n.trim_matches(|c| c == '{' || c == '}').to_string())
                .filter(|n| !n.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// Why a tcltest command would not run (or would skip) canaries: `-match` runs only the
/// tests it names, and a `-skip` pattern could match a canary's name.
pub fn selection(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    if words.contains(&"-match") {
        return Some("`-match`");
    }
    let pattern = skipped(command)
        .iter()
        .any(|n| n.contains(['*', '?', '[', '\\']));
    pattern.then_some("a `-skip` pattern")
}

/// A tcltest canary pair: `pass` expects its body's result, `fail` another number.
pub fn pair(pass: &str, fail: &str, (a, b): (u32, u32), fail_first: bool) -> String {
    let test = |name: &str, x: u32| {
        let prefix = name.rsplit_once('-').map_or(name, |(p, _)| p);
        format!("\n{COMMAND} {name} {{{prefix} {a}}} {{\n    expr {{{a} + 0}}\n}} {x}\n")
    };
    let (p, f) = (test(pass, a), test(fail, b));
    if fail_first {
        format!("{f}{p}")
    } else {
        format!("{p}{f}")
    }
}

/// Placeholders of a copy's name and of the failing copy's expected result in the texts
/// [`original`] stores.
pub const NAME: &str = "\u{1}NAME\u{1}";
pub const OTHER: &str = "\u{1}OTHER\u{1}";

/// The byte ranges of the words of the Tcl command in `text` from `at` (after its command
/// word), and where it ends (its newline); `None` when it does not end in `text`, ends at a
/// `;`, or a word is not followed by a separator.
fn words(text: &str, at: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let b = text.as_bytes();
    let len = b.len();
    let mut i = at;
    let mut out = Vec::new();
    loop {
        while i < len
            && (b[i] == b' ' || b[i] == b'\t' || (b[i] == b'\\' && b.get(i + 1) == Some(&b'\n')))
        {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        match b.get(i)? {
            b'\n' => return Some((out, i)),
            b';' => return None,
            _ => {}
        }
        let start = i;
        match b[i] {
            b'{' => {
                let mut depth = 0usize;
                loop {
                    match b.get(i)? {
                        b'\\' => i += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'"' => {
                i += 1;
                loop {
                    match b.get(i)? {
                        b'\\' => i += 1,
                        b'"' => {
                            i += 1;
                            break;
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            _ => {
                let mut depth = 0usize;
                while let Some(&c) = b.get(i) {
                    match c {
                        b' ' | b'\t' | b'\n' | b';' if depth == 0 => break,
                        b'[' => depth += 1,
                        b']' => depth = depth.saturating_sub(1),
                        b'\\' => i += 1,
                        _ => {}
                    }
                    i += 1;
                }
            }
        }
        if !matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b';' | b'\\')) {
            return None;
        }
        out.push((start, i));
    }
}

/// A copyable tcltest test at `chunk[i]`: `test name description …` (or `tcltest::test`,
/// `::tcltest::test`) whose name is a plain word, that ends within the chunk (at a
/// newline), and takes no constraints (a skipped failing copy would prove nothing): the
/// old form `test name desc body ?result?` or the option form (`-body`, `-result`, …).
/// Its texts are the whole command, the name replaced by [`NAME`]: as it is (the same
/// copy), and with the expected result replaced by [`OTHER`] (the failing copy: the same
/// body, run the same way, compared with another name's text, which it cannot return).
pub fn original(chunk: &[String], i: usize) -> Option<(super::derive::Original, usize)> {
    let first = &chunk[i];
    let trimmed = first.trim_start();
    let cmd = ["test ", "tcltest::test ", "::tcltest::test "]
        .iter()
        .find(|p| trimmed.starts_with(*p))?;
    let text = chunk[i..].join("\n") + "\n";
    let at = first.len() - trimmed.len() + cmd.len();
    let (w, end) = words(&text, at)?;
    let (name_at, name_end) = *w.first()?;
    let name = &text[name_at..name_end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
    {
        return None;
    }
    let word = |k: usize| w.get(k).map(|(a, b)| &text[*a..*b]);
    // The expected result's range, or where `-result` goes when there is none.
    let result: Result<(usize, usize), usize> = if word(2).is_some_and(|x| x.starts_with('-')) {
        // Option form: pairs from the third word.
        let mut at_result = None;
        for k in (2..w.len()).step_by(2) {
            let opt = word(k)?;
            if !opt.starts_with('-') || k + 1 >= w.len() || opt == "-constraints" {
                return None;
            }
            if opt == "-result" {
                at_result = Some(w[k + 1]);
            }
        }
        at_result.ok_or(end)
    } else {
        match w.len() {
            // name desc body
            3 => Err(end),
            // name desc body result
            4 => Ok(w[3]),
            // with constraints, or not a test
            _ => return None,
        }
    };
    let same = format!("{}{NAME}{}", &text[..name_at], &text[name_end..end]);
    let fail = match result {
        Ok((a, b)) => format!(
            "{}{NAME}{}{OTHER}{}",
            &text[..name_at],
            &text[name_end..a],
            &text[b..end]
        ),
        Err(at) => {
            format!("{}{NAME}{}", &text[..name_at], &text[name_end..at])
                + &match w.len() {
                    3 => format!(" {OTHER}"),
                    _ => format!(" -result {OTHER}"),
                }
                + &text[at..end]
        }
    };
    let lines = text[..end].matches('\n').count() + 1;
    Some((
        super::derive::Original::new(
            name.to_string(),
            first.clone(),
            same,
            vec![fail],
            String::new(),
            String::new(),
        ),
        i + lines,
    ))
}

/// The copy of `o` (read by [`original`]) named `name`, its expected result `fail` when
/// given.
pub fn copy(o: &super::derive::Original, name: &str, fail: Option<&str>) -> String {
    let (same, body) = o.text();
    let text = match (fail, body.first()) {
        (Some(other), Some(f)) => f.replace(NAME, name).replace(OTHER, other),
        _ => same.replace(NAME, name),
    };
    format!("{text}\n\n")
}

/// Prints its input with the lines of file `A` before its last `cleanupTests` line (at its
/// indentation, then an empty line), or after its last line when it has none.
const TCL_AWK: &str = r#"{ l[NR] = $0 } END { at = 0; for (i = 1; i <= NR; i++) if (l[i] ~ /^[ \t]*(::)?(tcltest::)?cleanupTests([ \t;]|$)/) at = i; if (at) { match(l[at], /^[ \t]*/); ind = substr(l[at], 1, RLENGTH) } for (i = 1; i <= NR; i++) { if (i == at) { while ((getline y < ENVIRON["A"]) > 0) print (y == "" ? "" : ind y); print "" } print l[i] } if (!at) while ((getline y < ENVIRON["A"]) > 0) print y }"#;

/// The script lines writing the tcltest canaries of blob `src` into `target` (both shell
/// words), with the file's own `test` command.
pub fn script(target: &str, src: &str) -> String {
    format!(
        "w=$(grep -oE '^[[:space:]]*(::)?(tcltest::)?test[[:space:]]' {target} | head -n 1 | tr -d '[:space:]' || true); [ -n \"$w\" ] || w=test\n\
         sed \"s/{COMMAND}/$w/\" {src} > {src}.tcl && A={src}.tcl awk {awk} {target} > {src}.out && cat {src}.out > {target}\n",
        awk = super::quote(TCL_AWK),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_and_follow_the_files_prefixes() {
        assert_eq!(
            defined("test cookie-1.2 {setup fails} -setup {").as_deref(),
            Some("cookie-1.2")
        );
        assert_eq!(
            defined("tcltest::test {a b} {x} {}").as_deref(),
            Some("a b")
        );
        assert_eq!(defined("testConstraint x 1"), None);
        let own: BTreeSet<String> = ["cookie-1.1", "cookie-1.2", "http-parse-3", "odd name"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(prefixes(&own), ["cookie", "http-parse"]);
        let mut taken = own.clone();
        let seed = Seed::fixed([5; 32]);
        let names: BTreeSet<String> = (0..30)
            .map(|k| name(&prefixes(&own), &seed, k, 0, &mut taken))
            .collect();
        assert_eq!(names.len(), 30);
        for n in &names {
            assert!(!own.contains(n), "{n}");
            assert!(
                n.starts_with("cookie-") || n.starts_with("http-parse-"),
                "{n}"
            );
            let (_, number) = n.rsplit_once('-').unwrap();
            assert!(number.split('.').all(|p| p.parse::<u32>().is_ok()), "{n}");
        }
    }

    #[test]
    fn copyable_tests_in_both_forms() {
        use crate::canary::derive::{copy, originals, Shown};
        use crate::canary::Framework;
        let text = "test delay-1.1 {seconds} {\n    delay 7\n} 7\n\ntest delay-1.2 {a date} -body {\n    delay {Wed, 01 May}\n} -result 12\n\n    tcltest::test delay-1.3 {no result} -setup {set x 1} -body {\n        delay $x\n    }\ntest delay-1.4 {constrained} unix {\n    delay 1\n} 1\ntest delay-1.5 {empty} {delay {}}\ntest delay-$i {loop} {delay 1} 1\n";
        let shown = Shown {
            chunks: vec![text.lines().map(str::to_string).collect()],
            from_top: true,
        };
        let found = originals(Framework::Tcltest, &shown);
        let names: Vec<&str> = found.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["delay-1.1", "delay-1.2", "delay-1.3", "delay-1.5"]);
        let c =
            |i: usize, fail: Option<&str>| copy(Framework::Tcltest, &found[i], "delay-7.2", fail);
        assert_eq!(
            c(0, None),
            "test delay-7.2 {seconds} {\n    delay 7\n} 7\n\n"
        );
        assert_eq!(
            c(0, Some("delay-3.3")),
            "test delay-7.2 {seconds} {\n    delay 7\n} delay-3.3\n\n"
        );
        assert_eq!(
            c(1, Some("delay-3.3")),
            "test delay-7.2 {a date} -body {\n    delay {Wed, 01 May}\n} -result delay-3.3\n\n"
        );
        assert_eq!(
            c(2, Some("delay-3.3")),
            "    tcltest::test delay-7.2 {no result} -setup {set x 1} -body {\n        delay $x\n    } -result delay-3.3\n\n"
        );
        assert_eq!(
            c(3, Some("delay-3.3")),
            "test delay-7.2 {empty} {delay {}} delay-3.3\n\n"
        );
    }

    #[test]
    fn skip_and_match() {
        assert_eq!(
            skipped("tclsh all.tcl -verbose ps -skip cookie-3.1"),
            ["cookie-3.1"]
        );
        assert_eq!(
            skipped("tclsh all.tcl -skip 'a-1 b-2' -verbose ps"),
            ["a-1", "b-2"]
        );
        assert!(selection("tclsh all.tcl -skip cookie-3.1").is_none());
        assert!(selection("tclsh all.tcl -skip 'cookie-*'").is_some());
        assert!(selection("tclsh all.tcl -match jar-1.1").is_some());
    }
}
