//! Every syntax diagnostic (E0100–E0109) as data: code, message, labels at line:col, help,
//! shown together with the source that produced it.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use taskc_compiler::syntax::{decode, parse, MAX_SOURCE_BYTES};
use taskc_compiler::{Diagnostic, SourceId, SourceMap};

/// The source, then each diagnostic with its labels resolved to `line:col`.
fn render(text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut map = SourceMap::new();
    let id = map.add("spec.task", text);
    let file = map.get(id);
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        out.push_str(&format!("{:>3} | {}\n", i + 1, line.escape_debug()));
    }
    out.push_str("-----\n");
    for d in diagnostics {
        out.push_str(&format!("{} [{}] {}\n", d.code, d.code.name(), d.message));
        for (kind, l) in
            std::iter::once(("primary", &d.primary)).chain(d.secondary.iter().map(|l| ("label", l)))
        {
            let (line, col) = file.line_col(l.span.start as usize);
            out.push_str(&format!(
                "  {kind} {line}:{col} (+{}): {}\n",
                l.span.len(),
                l.text
            ));
        }
        if let Some(help) = &d.help {
            out.push_str(&format!("  help: {help}\n"));
        }
    }
    out
}

fn syntax(text: &str) -> String {
    render(text, &parse(SourceId(0), text).diagnostics)
}

fn decoded(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let diags: Vec<Diagnostic> = decode(SourceId(0), bytes).err().into_iter().collect();
    render(&text, &diags)
}

#[test]
fn e0100_invalid_utf8() {
    insta::assert_snapshot!(decoded(b"task \"t\" {\n  title \"caf\xe9\"\n}\n"));
}

#[test]
fn e0101_empty_file() {
    insta::assert_snapshot!(decoded(b"  \n\n"));
}

#[test]
fn e0102_nul_byte() {
    insta::assert_snapshot!(decoded(b"task \"t\" {\n  ti\0tle \"x\"\n}\n"));
}

#[test]
fn e0103_file_too_large() {
    let big = vec![b' '; MAX_SOURCE_BYTES + 1];
    let d = decode(SourceId(0), &big).err();
    insta::assert_snapshot!(render("", &d.into_iter().collect::<Vec<_>>()));
}

#[test]
fn e0104_unexpected_token() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  title = \"x\"\n  timeout 600s\n  languages [\"a\" \"b\"]\n  \"orphan\" value\n  repo r { } extra\n  source file (\"x\")\n}\n"
    ));
}

#[test]
fn e0105_unterminated_string() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  title \"no end\n  kind bugfix\n  prompt \"\"\"\n    never closed\n}\n"
    ));
}

#[test]
fn e0106_unclosed_block() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  repo a {\n    source dir(\"a\")\n  repo b {\n  }\n"
    ));
}

#[test]
fn e0106_missing_inner_close_found_by_indentation() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  repo a {\n    test {\n      run \"x\"\n  }\n  repo b {\n    source dir(\"b\")\n  }\n}\n"
    ));
}

#[test]
fn e0106_unclosed_list() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  languages [\"python\", \"go\"\n}\nnext 1\n"
    ));
}

#[test]
fn e0107_unexpected_close() {
    insta::assert_snapshot!(syntax("task \"t\" {\n  kind bugfix\n}\n}\nlist [1, 2)\n"));
}

#[test]
fn e0108_nesting_too_deep() {
    let text = format!(
        "task \"t\" {{\n  deep {}{}\n}}\n",
        "[".repeat(70),
        "]".repeat(70)
    );
    insta::assert_snapshot!(syntax(&text));
}

#[test]
fn e0109_invalid_escape() {
    insta::assert_snapshot!(syntax(
        "task \"t\" {\n  run \"C:\\path\\q\"\n  emoji \"\\u{D800} \\u{1F600} \\u12\"\n}\n"
    ));
}
