//! The canonical layout of a `.task` file.
//!
//! Two-space indentation, one statement per line, `name value… {` … `}`, one space between
//! values, lists and calls on one line when they fit in [`MAX_WIDTH`] columns (else one item
//! per line with a trailing comma), at most one blank line between statements and none right
//! after `{` or before `}`, every comment kept, strings in the style they were written in,
//! and exactly one newline at the end. `format` is idempotent, and parsing its output gives
//! the same document apart from spans (see [`crate::syntax::strip_spans`]).
//!
//! The formatter trusts the document: names are written as they are, so a hand-built
//! document with an invalid name yields text that does not parse.

use crate::syntax::ast::{Block, Comment, Document, Statement, StrLit, StrStyle, Trivia, Value};

/// Lists and calls longer than this (in characters, from the line start) are broken up.
pub const MAX_WIDTH: usize = 100;

/// Render `doc` in the one canonical layout, keeping every comment.
pub fn format(doc: &Document) -> String {
    let mut out = String::new();
    items(&mut out, &doc.statements, &doc.dangling, 0);
    out
}

/// Statements with their trivia, then the dangling trivia, at `indent`.
fn items(out: &mut String, statements: &[Statement], dangling: &[Trivia], indent: usize) {
    // `None` until something is written: no blank line at the start of a block.
    let mut last_blank: Option<bool> = None;
    for st in statements {
        for t in &st.leading {
            trivia(out, t, indent, &mut last_blank);
        }
        statement(out, st, indent);
        last_blank = Some(false);
    }
    // No blank line before `}` or at the end of the file.
    let keep = dangling
        .iter()
        .rposition(|t| matches!(t, Trivia::Comment(_)))
        .map_or(0, |i| i + 1);
    for t in &dangling[..keep] {
        trivia(out, t, indent, &mut last_blank);
    }
}

fn trivia(out: &mut String, t: &Trivia, indent: usize, last_blank: &mut Option<bool>) {
    match t {
        Trivia::BlankLine => {
            if *last_blank == Some(false) {
                out.push('\n');
                *last_blank = Some(true);
            }
        }
        Trivia::Comment(c) => {
            pad(out, indent);
            comment(out, c);
            out.push('\n');
            *last_blank = Some(false);
        }
    }
}

fn comment(out: &mut String, c: &Comment) {
    out.push_str("//");
    if !c.text.is_empty() {
        if !c.text.starts_with('/') {
            out.push(' ');
        }
        out.push_str(&c.text);
    }
}

fn pad(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn statement(out: &mut String, st: &Statement, indent: usize) {
    pad(out, indent);
    out.push_str(&st.name.name);
    for v in &st.args {
        out.push(' ');
        let col = column(out);
        let text = layout(v, indent, col);
        out.push_str(&text);
    }
    if let Some(b) = &st.block {
        block(out, b, indent);
    }
    if let Some(c) = &st.trailing {
        out.push(' ');
        comment(out, c);
    }
    out.push('\n');
}

fn block(out: &mut String, b: &Block, indent: usize) {
    let has_dangling_comment = b.dangling.iter().any(|t| matches!(t, Trivia::Comment(_)));
    if b.statements.is_empty() && !has_dangling_comment {
        out.push_str(" {}");
        return;
    }
    out.push_str(" {\n");
    items(out, &b.statements, &b.dangling, indent + 2);
    pad(out, indent);
    out.push('}');
}

/// The 0-based column (in characters) at the end of `out`.
fn column(out: &str) -> usize {
    let line = out.rsplit('\n').next().unwrap_or("");
    line.chars().count()
}

/// Whether `text`, starting at column `col`, stays within [`MAX_WIDTH`] on every line.
fn fits(col: usize, text: &str) -> bool {
    text.split('\n').enumerate().all(|(i, line)| {
        let start = if i == 0 { col } else { 0 };
        start + line.chars().count() <= MAX_WIDTH
    })
}

/// `v` at column `col` of a line indented by `indent`: flat if it fits, else broken up.
fn layout(v: &Value, indent: usize, col: usize) -> String {
    let flat = flat(v, indent);
    let (open, close, items) = match v {
        Value::List(l) => ("[".to_string(), ']', &l.items),
        Value::Call(c) => (format!("{}(", c.name.name), ')', &c.args),
        _ => return flat,
    };
    if items.is_empty() || fits(col, &flat) {
        return flat;
    }
    let mut out = open;
    out.push('\n');
    for item in items {
        pad(&mut out, indent + 2);
        let text = layout(item, indent + 2, indent + 2);
        out.push_str(&text);
        out.push_str(",\n");
    }
    pad(&mut out, indent);
    out.push(close);
    out
}

/// `v` on one line (block strings still span theirs).
fn flat(v: &Value, indent: usize) -> String {
    match v {
        Value::Str(s) => string(s, indent),
        Value::Ident(i) => i.name.clone(),
        Value::Int(i) => i.value.to_string(),
        Value::Call(c) => {
            let args: Vec<String> = c.args.iter().map(|a| flat(a, indent)).collect();
            format!("{}({})", c.name.name, args.join(", "))
        }
        Value::List(l) => {
            let items: Vec<String> = l.items.iter().map(|a| flat(a, indent)).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// A string in its style, falling back to `"…"` when the style cannot hold the value.
fn string(s: &StrLit, indent: usize) -> String {
    match s.style {
        StrStyle::Quoted => quoted(&s.value),
        StrStyle::Raw { hashes } => raw(&s.value, hashes).unwrap_or_else(|| quoted(&s.value)),
        StrStyle::Block => block_string(&s.value, indent).unwrap_or_else(|| quoted(&s.value)),
    }
}

/// `"…"` with `\" \\ \n \t \r \0` and `\u{…}` for other control characters.
pub fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `r#"…"#` with at least `hashes` hashes and as many as the value needs; `None` if it
/// would need more than 255.
fn raw(value: &str, hashes: u8) -> Option<String> {
    // The closing `"##…` must not occur in the value: more hashes than any run after a quote.
    let mut needed = 0usize;
    for (i, _) in value.match_indices('"') {
        let run = value[i + 1..].bytes().take_while(|b| *b == b'#').count();
        needed = needed.max(run + 1);
    }
    let n = needed.max(hashes as usize);
    if n > u8::MAX as usize {
        return None;
    }
    let h = "#".repeat(n);
    Some(format!("r{h}\"{value}\"{h}"))
}

/// A block string at `indent`: content at `indent + 2`, closing `"""` at `indent`. `None`
/// when the value cannot be written as one (see [`block_representable`]).
fn block_string(value: &str, indent: usize) -> Option<String> {
    if !block_representable(value) {
        return None;
    }
    let mut out = String::from("\"\"\"\n");
    if let Some(body) = value.strip_suffix('\n') {
        for line in body.split('\n') {
            if !line.is_empty() {
                pad(&mut out, indent + 2);
                out.push_str(&line.replace("\"\"\"", "\\\"\"\""));
            }
            out.push('\n');
        }
    }
    pad(&mut out, indent);
    out.push_str("\"\"\"");
    Some(out)
}

/// Whether parsing a block string can give back exactly `value`: empty, or ending with a
/// newline, with no line ending in `\r`, no line of only blanks, and at least one line not indented.
pub fn block_representable(value: &str) -> bool {
    if value.is_empty() {
        return true;
    }
    let Some(body) = value.strip_suffix('\n') else {
        return false;
    };
    // A `\r` ending a line would be read as part of a CRLF line break.
    if value.contains("\r\n") {
        return false;
    }
    let mut any_unindented = false;
    for line in body.split('\n') {
        if line.is_empty() {
            continue;
        }
        if line.trim().is_empty() || line.trim_start_matches([' ', '\t']).is_empty() {
            return false;
        }
        if !line.starts_with([' ', '\t']) {
            any_unindented = true;
        }
    }
    any_unindented || body.split('\n').all(str::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strings_get_enough_hashes() {
        assert_eq!(raw("a", 0).as_deref(), Some("r\"a\""));
        assert_eq!(raw("say \"hi\"", 0).as_deref(), Some("r#\"say \"hi\"\"#"));
        assert_eq!(raw("a\"#b", 1).as_deref(), Some("r##\"a\"#b\"##"));
        assert_eq!(raw("a", 2).as_deref(), Some("r##\"a\"##"));
    }

    #[test]
    fn block_representable_cases() {
        assert!(block_representable(""));
        assert!(block_representable("\n\n"));
        assert!(block_representable("a\n  b\n"));
        assert!(!block_representable("a"));
        assert!(!block_representable("  a\n"));
        assert!(!block_representable("a\n  \n"));
        assert!(!block_representable("a\r\n"));
        assert!(block_representable("a\rb\n"));
    }

    #[test]
    fn quoted_escapes() {
        assert_eq!(
            quoted("a\"\\\n\t\r\0\u{7}é"),
            "\"a\\\"\\\\\\n\\t\\r\\0\\u{7}é\""
        );
    }
}
