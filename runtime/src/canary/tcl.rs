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
    if words.iter().any(|w| *w == "-match") {
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
