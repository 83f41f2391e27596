//! Hidden tests beside the code (issue 21 item 10): Rust's unit tests live in
//! `#[cfg(test)] mod tests { … }` inside the file they test, so a hidden test patch changes
//! a source file the gold patch (and an agent) changes too. Such a file is not restored
//! whole before the hidden tests apply (that would revert the solution); instead its test
//! modules belong to the hidden tests and everything else to the solution:
//!
//! - [`test_modules`] finds a file's `#[cfg(test)]` modules (a coarse Rust scanner:
//!   comments, strings, raw strings and char literals skipped; each module whole lines,
//!   from its first attribute to its closing brace);
//! - [`inline_file`] says whether a hidden test patch changes a file only inside those
//!   modules (else the file is restored whole, as any other file the hidden tests touch, and
//!   `check` warns with W0401), and gives each module's text at base and with the hidden
//!   tests;
//! - [`keep_outside`] rewrites a patch (the prediction's or the gold one) so it changes the
//!   file only outside the modules, and says where each module then starts; a run puts the
//!   hidden tests' modules there (`runtime/src/exec/script.rs`).
//!
//! Pure: text in, text out (the compiler does no I/O).

use crate::patch::apply::{apply_to_lines, lines};
use crate::patch::{parse_patch, FilePatch, LineKind};

/// Whether the hidden test patch's change `f` is one of a Rust source file that may hold
/// its unit tests beside the code: a `.rs` file changed in place that is not a test file
/// (`tests/…`). Runs keep a solution's changes to it outside its test modules
/// (`restore-test-modules`); `check` says when the hidden tests change it elsewhere (W0401).
pub fn candidate(f: &FilePatch) -> bool {
    !f.binary
        && f.old_path.is_some()
        && f.old_path == f.new_path
        && f.path().ends_with(".rs")
        && !crate::check::is_test_path(f.path())
}

/// A `#[cfg(test)]` module of a Rust file, as whole lines (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestModule {
    pub name: String,
    /// The line of its first attribute.
    pub start: u32,
    /// The line of its closing brace.
    pub end: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Punct(char),
}

/// Tokens of `text` with their byte offsets: identifiers and punctuation; comments,
/// whitespace, literals (strings, raw strings, chars, numbers) and lifetimes left out.
fn tokens(text: &str) -> Vec<(usize, Tok<'_>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let n = b.len();
    let ident = |c: u8| c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80;
    while i < n {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < n && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0usize;
            while i < n {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'"' {
            i = skip_string(b, i + 1);
        } else if c == b'\'' {
            // A char literal ('a', '\n', '\u{1F600}', '{') or a lifetime / label ('a).
            if b.get(i + 1) == Some(&b'\\') {
                i += 3;
                while i < n && b[i] != b'\'' && b[i] != b'\n' {
                    i += 1;
                }
                i += 1;
            } else {
                let ch_len = text
                    .get(i + 1..)
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                if b.get(i + 1 + ch_len) == Some(&b'\'') {
                    i += 2 + ch_len;
                } else {
                    i += 1;
                }
            }
        } else if ident(c) {
            let start = i;
            while i < n && ident(b[i]) {
                i += 1;
            }
            let word = &text[start..i];
            // String prefixes: r"…", r#"…"#, b"…", br#"…"#, c"…", cr"…", b'…'.
            let raw = matches!(word, "r" | "br" | "cr");
            if raw && matches!(b.get(i), Some(b'"') | Some(b'#')) {
                let mut hashes = 0;
                while b.get(i) == Some(&b'#') {
                    hashes += 1;
                    i += 1;
                }
                if b.get(i) == Some(&b'"') {
                    i += 1;
                    loop {
                        if i >= n {
                            break;
                        }
                        if b[i] == b'"'
                            && b[i + 1..]
                                .iter()
                                .take(hashes)
                                .filter(|&&h| h == b'#')
                                .count()
                                == hashes
                        {
                            i += 1 + hashes;
                            break;
                        }
                        i += 1;
                    }
                }
                continue;
            }
            if matches!(word, "b" | "c") && b.get(i) == Some(&b'"') {
                i = skip_string(b, i + 1);
                continue;
            }
            if word == "b" && b.get(i) == Some(&b'\'') {
                i += 1;
                if b.get(i) == Some(&b'\\') {
                    i += 2;
                }
                while i < n && b[i] != b'\'' && b[i] != b'\n' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if !word.as_bytes()[0].is_ascii_digit() {
                out.push((start, Tok::Ident(word)));
            }
        } else {
            match text.get(i..).and_then(|s| s.chars().next()) {
                Some(ch) => {
                    out.push((i, Tok::Punct(ch)));
                    i += ch.len_utf8();
                }
                None => i += 1,
            }
        }
    }
    out
}

/// The end of a `"…"` string whose body starts at `i` (escapes honoured).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Whether the `cfg` predicate `toks` (inside its parentheses) holds only under `test`:
/// `test`, or `all(…)` with such a part.
fn test_only(toks: &[Tok<'_>]) -> bool {
    match toks {
        [Tok::Ident("test")] => true,
        [Tok::Ident("all"), Tok::Punct('('), inner @ .., Tok::Punct(')')] => {
            split_args(inner).iter().any(|a| test_only(a))
        }
        _ => false,
    }
}

/// The comma-separated parts of `toks` at nesting depth 0.
fn split_args<'t, 'a>(toks: &'t [Tok<'a>]) -> Vec<&'t [Tok<'a>]> {
    let mut out = Vec::new();
    let (mut depth, mut from) = (0i32, 0);
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct('(') => depth += 1,
            Tok::Punct(')') => depth -= 1,
            Tok::Punct(',') if depth == 0 => {
                out.push(&toks[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    if from < toks.len() {
        out.push(&toks[from..]);
    }
    out
}

/// The `#[cfg(test)]` modules of the Rust source `text` (outermost only, in order) that
/// stand on whole lines: nothing but blanks before the first attribute on its line and
/// after the closing brace on its (a `//` comment aside).
pub fn test_modules(text: &str) -> Vec<TestModule> {
    let toks = tokens(text);
    let line_of = |at: usize| {
        1 + text.as_bytes()[..at]
            .iter()
            .filter(|&&c| c == b'\n')
            .count()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // A run of outer attributes `#[…]`.
        let first = i;
        let mut is_test = false;
        while matches!(toks.get(i), Some((_, Tok::Punct('#'))))
            && matches!(toks.get(i + 1), Some((_, Tok::Punct('['))))
        {
            let mut depth = 0;
            let mut j = i + 1;
            while j < toks.len() {
                match toks[j].1 {
                    Tok::Punct('[') => depth += 1,
                    Tok::Punct(']') => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            let attr: Vec<Tok<'_>> = toks[i + 2..j.min(toks.len())].iter().map(|t| t.1).collect();
            if let [Tok::Ident("cfg"), Tok::Punct('('), inner @ .., Tok::Punct(')')] =
                attr.as_slice()
            {
                is_test |= test_only(inner);
            }
            i = j + 1;
        }
        if i == first {
            i += 1;
            continue;
        }
        if !is_test {
            continue;
        }
        // `pub`, `pub(crate)`, … then `mod <name> {`.
        let mut k = i;
        if matches!(toks.get(k), Some((_, Tok::Ident("pub")))) {
            k += 1;
            if matches!(toks.get(k), Some((_, Tok::Punct('(')))) {
                while k < toks.len() && toks[k].1 != Tok::Punct(')') {
                    k += 1;
                }
                k += 1;
            }
        }
        let (Some((_, Tok::Ident("mod"))), Some((_, Tok::Ident(name))), Some((_, Tok::Punct('{')))) =
            (toks.get(k), toks.get(k + 1), toks.get(k + 2))
        else {
            continue;
        };
        let mut depth = 0;
        let mut close = None;
        for (m, (at, t)) in toks.iter().enumerate().skip(k + 2) {
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some((m, *at));
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some((m, close_at)) = close else {
            break;
        };
        let open_at = toks[first].0;
        let line_start = text[..open_at].rfind('\n').map_or(0, |p| p + 1);
        let rest = &text[close_at + 1..];
        let after = rest.split('\n').next().unwrap_or("");
        let after = after.split("//").next().unwrap_or("");
        if text[line_start..open_at].trim().is_empty() && after.trim().is_empty() {
            out.push(TestModule {
                name: name.to_string(),
                start: line_of(open_at) as u32,
                end: line_of(close_at) as u32,
            });
        }
        i = m + 1;
    }
    out
}

/// One test module of a file the hidden tests change only inside its test modules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineModule {
    pub name: String,
    /// Its lines at base (1-based, inclusive).
    pub start: u32,
    pub end: u32,
    /// Its lines at base, each ending in `\n`.
    pub base_text: String,
    /// Its lines with the hidden tests applied, each ending in `\n`.
    pub hidden_text: String,
}

/// Whether the hidden test patch `hidden` of a Rust file whose text at base is `base`
/// changes it only inside its `#[cfg(test)]` modules: `Ok` with each module at base and
/// with the hidden tests, or why not (the file is then restored whole before the hidden
/// tests apply).
pub fn inline_file(base: &str, hidden: &FilePatch) -> Result<Vec<InlineModule>, String> {
    if hidden.binary || hidden.old_path.is_none() || hidden.old_path != hidden.new_path {
        return Err("the hidden test patch creates, deletes or renames it".into());
    }
    if !base.ends_with('\n') || base.contains('\r') {
        return Err("it does not end with a line break, or has `\\r\\n` line breaks".into());
    }
    let old = lines(base);
    let new = apply_to_lines(hidden, &old).ok_or("the hidden test patch does not apply to it")?;
    let new_text = new.iter().map(|l| format!("{l}\n")).collect::<String>();
    let (at_base, at_hidden) = (test_modules(base), test_modules(&new_text));
    if at_base.is_empty() {
        return Err("it has no `#[cfg(test)] mod … { … }` at base".into());
    }
    if at_base.len() != at_hidden.len()
        || at_base
            .iter()
            .zip(&at_hidden)
            .any(|(a, b)| a.name != b.name)
    {
        return Err(
            "the hidden test patch adds, removes or renames a `#[cfg(test)]` module".into(),
        );
    }
    let outside = |ls: &[String], ms: &[TestModule]| -> Vec<String> {
        let mut v = Vec::new();
        let mut next = 1u32;
        for m in ms {
            v.extend(
                ls.iter()
                    .take(m.start as usize - 1)
                    .skip(next as usize - 1)
                    .cloned(),
            );
            v.push(format!("\u{0}module {}", m.name));
            next = m.end + 1;
        }
        v.extend(ls.iter().skip(next as usize - 1).cloned());
        v
    };
    if outside(&old, &at_base) != outside(&new, &at_hidden) {
        return Err(
            "the hidden test patch changes lines outside its `#[cfg(test)]` modules".into(),
        );
    }
    let text = |ls: &[String], m: &TestModule| -> String {
        ls.iter()
            .take(m.end as usize)
            .skip(m.start as usize - 1)
            .map(|l| format!("{l}\n"))
            .collect()
    };
    Ok(at_base
        .iter()
        .zip(&at_hidden)
        .map(|(b, h)| InlineModule {
            name: b.name.clone(),
            start: b.start,
            end: b.end,
            base_text: text(&old, b),
            hidden_text: text(&new, h),
        })
        .collect())
}

/// A patch rewritten by [`keep_outside`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The whole patch, changing the file only outside the regions (the other files as
    /// they were).
    pub text: String,
    /// Whether the patch changed the file inside a region (those changes left out).
    pub touched_inside: bool,
    /// Where each region starts once the rewritten patch is applied at base.
    pub starts: Vec<u32>,
}

/// `patch_text` (a strict unified diff against base) rewritten so that it changes `path`
/// only outside `regions` (1-based inclusive line ranges at base, sorted, disjoint): a
/// removed line inside a region stays, a line added between two lines of a region is left
/// out; hunks left without a change go, and a file without a hunk. Lines added right before
/// a region's first line or right after its last stay. `Err` when the patch cannot be read
/// or creates, deletes, renames or binary-patches `path`.
pub fn keep_outside(patch_text: &str, path: &str, regions: &[(u32, u32)]) -> Result<Kept, String> {
    let patch = parse_patch(patch_text).map_err(|e| e.to_string())?;
    let mut starts: Vec<u32> = regions.iter().map(|r| r.0).collect();
    let Some(f) = patch
        .files
        .iter()
        .find(|f| f.old_path.as_deref() == Some(path) || f.new_path.as_deref() == Some(path))
    else {
        return Ok(Kept {
            text: patch_text.to_string(),
            touched_inside: false,
            starts,
        });
    };
    if f.binary || f.old_path != f.new_path {
        return Err(format!(
            "the patch creates, deletes, renames or binary-patches `{path}`"
        ));
    }
    let inside = |l: u32| regions.iter().any(|&(s, e)| s <= l && l <= e);
    let between = |after: u32| regions.iter().any(|&(s, e)| s <= after && after < e);
    let line_text = |sp: crate::span::Span| patch_text.get(sp.range()).unwrap_or("");
    // The `\ No newline at end of file` marker after a line, if any.
    let marker = |sp: crate::span::Span| -> &str {
        let rest = patch_text.get(sp.end as usize..).unwrap_or("");
        match rest.strip_prefix('\n').filter(|r| r.starts_with('\\')) {
            Some(r) => &rest[..1 + r.find('\n').unwrap_or(r.len())],
            None => "",
        }
    };
    let mut touched_inside = false;
    let mut delta: i64 = 0;
    // (old line, change) of every change kept: -1 removed at that line, +1 added after it.
    let mut changes: Vec<(u32, i64)> = Vec::new();
    let mut hunks_out: Vec<String> = Vec::new();
    for h in &f.hunks {
        let mut prev = if h.old_len == 0 {
            h.old_start
        } else {
            h.old_start.saturating_sub(1)
        };
        let mut body = String::new();
        let (mut new_len, mut changed) = (0u32, false);
        for l in &h.lines {
            let raw = line_text(l.span);
            match l.kind {
                LineKind::Context => {
                    prev += 1;
                    new_len += 1;
                    body.push_str(raw);
                }
                LineKind::Removed => {
                    prev += 1;
                    if inside(prev) {
                        touched_inside = true;
                        new_len += 1;
                        body.push(' ');
                        body.push_str(raw.get(1..).unwrap_or(""));
                    } else {
                        changed = true;
                        changes.push((prev, -1));
                        body.push_str(raw);
                    }
                }
                LineKind::Added => {
                    if between(prev) {
                        touched_inside = true;
                        continue;
                    }
                    changed = true;
                    changes.push((prev, 1));
                    new_len += 1;
                    body.push_str(raw);
                }
            }
            body.push_str(marker(l.span));
            body.push('\n');
        }
        if !changed {
            continue;
        }
        let new_start = i64::from(h.old_start)
            + delta
            + match (h.old_len, new_len) {
                (0, n) if n > 0 => 1,
                (o, 0) if o > 0 => -1,
                _ => 0,
            };
        delta += i64::from(new_len) - i64::from(h.old_len);
        let section = h.section(patch_text);
        hunks_out.push(format!(
            "@@ -{},{} +{},{} @@{section}\n{body}",
            h.old_start,
            h.old_len,
            new_start.max(0),
            new_len
        ));
    }
    for (k, &(s, _)) in regions.iter().enumerate() {
        // Removed at a line before `s`, or added after a line before `s`.
        let shift: i64 = changes
            .iter()
            .filter(|&&(at, _)| at < s)
            .map(|&(_, c)| c)
            .sum();
        starts[k] = (i64::from(s) + shift).max(1) as u32;
    }
    // The file's text in the patch: its header (up to the first hunk), then the hunks kept.
    let (from, to) = (f.span.start as usize, f.span.end as usize);
    let mut to = if patch_text.get(to..to + 1) == Some("\n") {
        to + 1
    } else {
        to
    };
    // A `\ No newline at end of file` line the file's span may leave after it.
    while patch_text.get(to..).is_some_and(|r| r.starts_with('\\')) {
        to += patch_text[to..]
            .find('\n')
            .map_or(patch_text.len() - to, |k| k + 1);
    }
    let header_end = f.hunks.first().map_or(to, |h| h.span.start as usize);
    let file_text = if hunks_out.is_empty() {
        String::new()
    } else {
        format!("{}{}", &patch_text[from..header_end], hunks_out.concat())
    };
    let text = format!("{}{}{}", &patch_text[..from], file_text, &patch_text[to..]);
    Ok(Kept {
        text,
        touched_inside,
        starts,
    })
}

#[cfg(test)]
mod tests;
