//! Canaries derived from the hidden tests themselves (issue 20): a copy of a real hidden
//! test under a new name in the file's style — the *same* copy, whose outcome must equal
//! its original's, and the *failing* copy, the original's body followed by one assertion of
//! the file's own kind that cannot hold. Both call the code under test exactly as the
//! hidden test does, and both are placed among the hidden tests of the same file, before
//! the test they copy: code that flips a failure only while the library ran, or only for
//! some names, flips the failing copy (caught) or treats a copy unlike its original
//! (caught).
//!
//! Only tests whose text the hidden patch shows whole are copied, and only those a copy
//! cannot change: no early `return`, skip, nested or parametrised test, fixture-free
//! decorators, `?` (see each reader below). A file with none gets literal canaries.

/// A hidden test that can be copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original {
    /// Its name (node: its title).
    pub name: String,
    /// The line the copies are written before (the test's first line, or its `#[test]`).
    pub anchor: String,
    /// The declaration line, with `NAME` where the name goes.
    head: String,
    /// The body lines, without the closing line.
    body: Vec<String>,
    /// The closing line.
    close: String,
    /// The indentation of the body's statements.
    indent: String,
    /// Go: the `*testing.T` parameter's name; node: the quote of the title.
    param: String,
}

/// The runs of consecutive lines the hidden patch shows of a file (new side: context and
/// added lines), and whether the first starts at the file's first line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shown {
    pub chunks: Vec<Vec<String>>,
    pub from_top: bool,
}

use super::framework::Framework;

/// The copyable hidden tests of a file (each name once: a name defined twice is skipped).
pub fn originals(fw: Framework, shown: &Shown) -> Vec<Original> {
    let mut out: Vec<Original> = Vec::new();
    let mut twice = std::collections::BTreeSet::new();
    for (n, chunk) in shown.chunks.iter().enumerate() {
        let top = n == 0 && shown.from_top;
        let mut i = 0;
        while i < chunk.len() {
            let found = match fw {
                Framework::Pytest => pytest(chunk, i, top),
                Framework::GoTest => go(chunk, i),
                Framework::NodeTest => node(chunk, i),
                Framework::Cargo => cargo(chunk, i, top),
                Framework::Phpunit => super::php::original(chunk, i, top),
                Framework::Tcltest => super::tcl::original(chunk, i),
                Framework::Phpt => super::php::phpt_original(chunk, i, top),
                Framework::Jest
                | Framework::Mocha
                | Framework::Minitest
                | Framework::Rspec
                | Framework::Unittest
                | Framework::Junit4 => None,
            };
            if let Some((o, next)) = found {
                if out.iter().any(|x| x.name == o.name || x.anchor == o.anchor) {
                    twice.insert(o.name.clone());
                }
                out.push(o);
                i = next;
            } else {
                i += 1;
            }
        }
    }
    out.retain(|o| !twice.contains(&o.name));
    out.retain(|o| sound(fw, o));
    out
}

/// Whether a copy of `o` behaves like `o` and its failing copy reaches its last line.
fn sound(fw: Framework, o: &Original) -> bool {
    let words: &[&str] = match fw {
        Framework::Pytest => &[
            "return", "yield", "skip", "xfail", "await", "__name__", "inspect", "request",
            "\"\"\"", "'''",
        ],
        Framework::GoTest => &["return", "Skip", ".Run(", "Name()", "goto", "FailNow"],
        Framework::NodeTest => &[
            "return",
            ".skip",
            ".todo",
            "test(",
            "it(",
            "describe",
            "this.",
            "arguments",
        ],
        Framework::Cargo => &["return", "?", "module_path", "function_name", "loop {"],
        Framework::Phpunit => super::php::UNSOUND,
        // The failing copy changes only the expected result (`tcl::original`).
        Framework::Tcltest => &[],
        // Read whole by `php::phpt_original`; copied by the run's script.
        Framework::Phpt => &[],
        Framework::Jest
        | Framework::Mocha
        | Framework::Minitest
        | Framework::Rspec
        | Framework::Unittest
        | Framework::Junit4 => return false,
    };
    let has_word = |l: &str, w: &str| {
        if w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|t| t == w)
        } else {
            l.contains(w)
        }
    };
    !o.body.is_empty()
        && !o.body.iter().any(|l| {
            words.iter().any(|w| has_word(l, w))
                || (fw == Framework::Cargo && l.trim_start().starts_with('#'))
        })
        && match fw {
            // A statement can follow the last one: it ends with `;` or a block.
            Framework::Cargo => o
                .body
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .is_some_and(|l| {
                    let l = l.trim_end();
                    l.ends_with(';') || l.ends_with('}')
                }),
            // node:assert is the file's: the failing copy repeats the last assertion's
            // first argument (a call of the code under test) inside one that cannot hold.
            Framework::NodeTest => last_assert_arg(&o.body).is_some(),
            _ => true,
        }
}

fn indent_of(l: &str) -> &str {
    &l[..l.len() - l.trim_start().len()]
}

/// `def test_x(…):` at the module's top level, not decorated, its body up to the next
/// top-level line.
fn pytest(chunk: &[String], i: usize, top: bool) -> Option<(Original, usize)> {
    let l = &chunk[i];
    let rest = l.strip_prefix("def ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !name.starts_with("test") || !l.trim_end().ends_with(':') {
        return None;
    }
    let args = rest[name.len()..].trim_end();
    if !args.starts_with('(') || !args.ends_with("):") {
        return None;
    }
    // Not decorated (a decorator may parametrise or skip it); the line before must be seen.
    let before = chunk[..i].iter().rev().find(|l| !l.trim().is_empty());
    match before {
        Some(b) if b.starts_with('@') => return None,
        None if !top => return None,
        _ => {}
    }
    let mut j = i + 1;
    while j < chunk.len() && (chunk[j].trim().is_empty() || chunk[j].starts_with([' ', '\t'])) {
        j += 1;
    }
    if j == chunk.len() {
        // The body may go on past what the patch shows.
        return None;
    }
    let mut body: Vec<String> = chunk[i + 1..j].to_vec();
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    let indent = indent_of(body.first()?).to_string();
    Some((
        Original {
            anchor: l.clone(),
            head: format!("def NAME{args}"),
            name,
            body,
            close: String::new(),
            indent,
            param: String::new(),
        },
        j,
    ))
}

/// `func TestX(t *testing.T) {` … `}` at the file's top level.
fn go(chunk: &[String], i: usize) -> Option<(Original, usize)> {
    let l = &chunk[i];
    let rest = l.strip_prefix("func Test")?;
    let tail: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let sig = &rest[tail.len()..];
    let param = sig.strip_prefix('(')?.strip_suffix(" *testing.T) {")?;
    if param.is_empty() || !param.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let end = (i + 1..chunk.len()).find(|&j| chunk[j] == "}")?;
    let body: Vec<String> = chunk[i + 1..end].to_vec();
    let indent = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or("\t".to_string(), |l| indent_of(l).to_string());
    Some((
        Original {
            name: format!("Test{tail}"),
            anchor: l.clone(),
            head: format!("func NAME({param} *testing.T) {{"),
            body,
            close: "}".into(),
            indent,
            param: param.to_string(),
        },
        end + 1,
    ))
}

/// `test('title', () => {` (or `it(`, `async`, either quote) … `});` at the file's top
/// level.
fn node(chunk: &[String], i: usize) -> Option<(Original, usize)> {
    let l = &chunk[i];
    let (call, rest) = ["test(", "it("]
        .iter()
        .find_map(|c| l.strip_prefix(c).map(|r| (*c, r)))?;
    let q = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let title_end = rest[1..].find(q)? + 1;
    let title = &rest[1..title_end];
    if title.contains('\\') || title.is_empty() {
        return None;
    }
    let tail = &rest[title_end + 1..];
    if tail != ", () => {" && tail != ", async () => {" {
        return None;
    }
    let end = (i + 1..chunk.len()).find(|&j| chunk[j] == "});")?;
    let body: Vec<String> = chunk[i + 1..end].to_vec();
    let indent = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or("  ".to_string(), |l| indent_of(l).to_string());
    Some((
        Original {
            name: title.to_string(),
            anchor: l.clone(),
            head: format!("{call}{q}NAME{q}{tail}"),
            body,
            close: "});".into(),
            indent,
            param: q.to_string(),
        },
        end + 1,
    ))
}

/// `#[test]` then `fn name() {` … `}` at the same indentation, no other attribute.
fn cargo(chunk: &[String], i: usize, top: bool) -> Option<(Original, usize)> {
    let attr = &chunk[i];
    if attr.trim() != "#[test]" {
        return None;
    }
    let ind = indent_of(attr).to_string();
    let l = chunk.get(i + 1)?;
    let rest = l.strip_prefix(&format!("{ind}fn "))?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if name.is_empty() || &rest[name.len()..] != "() {" {
        return None;
    }
    match chunk[..i].last() {
        Some(b) if b.trim_start().starts_with("#[") || b.trim_start().starts_with("///") => {
            return None
        }
        None if !top => return None,
        _ => {}
    }
    let close = format!("{ind}}}");
    let end = (i + 2..chunk.len()).find(|&j| chunk[j] == close)?;
    let body: Vec<String> = chunk[i + 2..end].to_vec();
    Some((
        Original {
            name,
            anchor: l.clone(),
            head: format!("{ind}#[test]\n{ind}fn NAME() {{"),
            body,
            close,
            indent: format!("{ind}    "),
            param: String::new(),
        },
        end + 1,
    ))
}

impl Original {
    /// An original read by a framework's own module (`php.rs`, `tcl.rs`): `head` with
    /// `NAME` where the name goes, then `body`, then `close`.
    pub(super) fn new(
        name: String,
        anchor: String,
        head: String,
        body: Vec<String>,
        close: String,
        indent: String,
    ) -> Original {
        Original {
            name,
            anchor,
            head,
            body,
            close,
            indent,
            param: String::new(),
        }
    }

    /// Its declaration (with `NAME`) and body lines.
    pub(super) fn text(&self) -> (&str, &[String]) {
        (&self.head, &self.body)
    }
}

/// The copy of `o` named `name`; `fail` adds, as its last statement, an assertion that the
/// test's own name is `fail` (another name: it cannot hold).
pub fn copy(fw: Framework, o: &Original, name: &str, fail: Option<&str>) -> String {
    if fw == Framework::Tcltest {
        return super::tcl::copy(o, name, fail);
    }
    let mut out = o.head.replace("NAME", name);
    out.push('\n');
    for l in &o.body {
        out.push_str(l);
        out.push('\n');
    }
    let ind = &o.indent;
    if let Some(other) = fail {
        let line = match fw {
            Framework::Pytest => format!("{ind}assert {name}.__name__ == \"{other}\"\n"),
            Framework::GoTest => {
                let t = &o.param;
                format!(
                    "{ind}if got := {t}.Name(); got != \"{other}\" {{\n{ind}\t{t}.Errorf(\"Name() = %q, want %q\", got, \"{other}\")\n{ind}}}\n"
                )
            }
            Framework::NodeTest => {
                // `[x]` is a new array: strictly equal to nothing else. `x` is evaluated
                // right before the assertion, as in the test's own last assertion.
                let q = &o.param;
                let arg = last_assert_arg(&o.body).unwrap_or_default();
                format!("{ind}assert.strictEqual([{arg}], {q}{other}{q});\n")
            }
            Framework::Cargo => format!("{ind}assert_eq!(\"{name}\", \"{other}\");\n"),
            Framework::Phpunit => {
                format!("{ind}$this->assertSame('{other}', $this->getName(false));\n")
            }
            Framework::Phpt
            | Framework::Tcltest
            | Framework::Jest
            | Framework::Mocha
            | Framework::Minitest
            | Framework::Rspec
            | Framework::Unittest
            | Framework::Junit4 => String::new(),
        };
        out.push_str(&line);
    }
    if !o.close.is_empty() {
        out.push_str(&o.close);
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The first argument of the body's last `assert.…(…);` line (one line, the call alone).
fn last_assert_arg(body: &[String]) -> Option<String> {
    let l = body.iter().rev().find(|l| !l.trim().is_empty())?.trim();
    let call = l.strip_prefix("assert.")?.strip_suffix(");")?;
    let open = call.find('(')?;
    if !call[..open].chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let args = &call[open + 1..];
    // Up to the first comma outside brackets and strings (the whole text when none).
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for (i, c) in args.char_indices() {
        match quote {
            Some(q) => {
                if c == q && prev != '\\' {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    return Some(args[..i].trim().to_string()).filter(|a| !a.is_empty())
                }
                _ => {}
            },
        }
        if depth < 0 {
            return None;
        }
        prev = c;
    }
    (depth == 0 && quote.is_none())
        .then(|| args.trim().to_string())
        .filter(|a| !a.is_empty())
}

/// Whether a Rust file shown from its top is compiled only under a `cfg` a test run does
/// not set (`#![cfg(loom)]`, `#![cfg(feature = "x")]`; `#![cfg(test)]` is set): its
/// tests, and canaries in it, never run. `Some(the attribute)` when gated.
pub fn cfg_gate(shown: &Shown) -> Option<String> {
    if !shown.from_top {
        return None;
    }
    let first = shown.chunks.first()?;
    for l in first {
        let t = l.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        if t.starts_with("#![cfg(") {
            let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
            if compact != "#![cfg(test)]" {
                return Some(t.to_string());
            }
            continue;
        }
        if t.starts_with("#![") {
            continue;
        }
        return None;
    }
    None
}

#[cfg(test)]
#[path = "derive_tests.rs"]
mod tests;
