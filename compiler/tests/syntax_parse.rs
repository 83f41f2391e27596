//! Parser: shapes, spans, trivia and recovery on small inputs.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use taskc_compiler::syntax::ast::{StrStyle, Trivia, Value};
use taskc_compiler::syntax::{parse, Parsed};
use taskc_compiler::{Code, SourceId, Span};

pub const LANGUAGE_EXAMPLE: &str = include_str!("syntax_data/language_example.task");

fn p(text: &str) -> Parsed {
    parse(SourceId(0), text)
}

fn codes(text: &str) -> Vec<Code> {
    p(text).diagnostics.iter().map(|d| d.code).collect()
}

fn strings(text: &str) -> Vec<(String, StrStyle)> {
    let parsed = p(text);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    parsed.document.statements[0]
        .args
        .iter()
        .map(|v| match v {
            Value::Str(s) => (s.value.clone(), s.style),
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}

#[test]
fn language_reference_example_parses_cleanly() {
    let parsed = p(LANGUAGE_EXAMPLE);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let doc = parsed.document;
    assert_eq!(doc.statements.len(), 1);
    let task = &doc.statements[0];
    assert_eq!(task.name.name, "task");
    assert!(
        matches!(task.leading.as_slice(), [Trivia::Comment(c)] if c.text == "examples/cookie-split/cookie-split.task")
    );
    let block = task.block.as_ref().expect("task block");
    let names: Vec<&str> = block
        .statements
        .iter()
        .map(|s| s.name.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "title",
            "kind",
            "ecosystem",
            "languages",
            "links",
            "prompt",
            "verify",
            "env",
            "repo",
            "repo",
            "context",
            "relax"
        ]
    );
    // A blank line separates `verify joint` from `env python`.
    assert_eq!(block.statements[7].leading, vec![Trivia::BlankLine]);
    let relax = &block.statements[11];
    let drop = &relax.block.as_ref().expect("relax block").statements[0];
    let inner: Vec<&str> = drop
        .block
        .as_ref()
        .expect("drop block")
        .statements
        .iter()
        .map(|s| s.name.name.as_str())
        .collect();
    assert_eq!(inner, ["rule", "because"]);
}

#[test]
fn statement_spans_cover_name_to_last_value_or_block() {
    let text = "a 1 \"two\" [x, y]  // c\nb { c }\n";
    let doc = p(text).document;
    let a = &doc.statements[0];
    assert_eq!(&text[a.span.range()], "a 1 \"two\" [x, y]");
    assert_eq!(a.trailing.as_ref().map(|c| c.text.as_str()), Some("c"));
    let b = &doc.statements[1];
    assert_eq!(&text[b.span.range()], "b { c }");
    let block = b.block.as_ref().expect("block");
    assert_eq!(&text[block.span.range()], "{ c }");
    assert_eq!(block.statements[0].span, Span::new(27, 28));
    assert_eq!(doc.span, Span::new(0, text.len()));
}

#[test]
fn values_of_every_kind() {
    let doc = p("s \"x\" name 42 file(\"p\") [1, [2,], f()] g(a, b,)\n").document;
    let kinds: Vec<&str> = doc.statements[0].args.iter().map(Value::describe).collect();
    assert_eq!(
        kinds,
        [
            "a string",
            "a name",
            "an integer",
            "a call",
            "a list",
            "a call"
        ]
    );
    let Value::List(l) = &doc.statements[0].args[4] else {
        panic!()
    };
    assert_eq!(l.items.len(), 3);
}

#[test]
fn terminators_newline_semicolon_and_close() {
    let doc = p("a 1; b 2\nc { d; e f }\ng h i j").document;
    let names: Vec<&str> = doc
        .statements
        .iter()
        .map(|s| s.name.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c", "g"]);
    assert_eq!(
        doc.statements[2].block.as_ref().map(|b| b.statements.len()),
        Some(2)
    );
    // `g h i j` on one line is one statement with three values.
    assert_eq!(doc.statements[3].args.len(), 3);
}

#[test]
fn newlines_inside_lists_and_calls_are_insignificant() {
    let parsed = p("languages [\n  \"python\",\n  \"go\",\n]\nsource git(\n  \"u\"\n)\n");
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    assert_eq!(parsed.document.statements.len(), 2);
}

#[test]
fn quoted_strings_and_escapes() {
    assert_eq!(
        strings(r#"x "a\"b\\c\n\t\r\0\u{1F600}é""#),
        vec![("a\"b\\c\n\t\r\0😀é".to_string(), StrStyle::Quoted)]
    );
}

#[test]
fn raw_strings() {
    assert_eq!(
        strings("x r\"a\\n\" r#\"say \"hi\"\"# r##\"a\"#b\"##"),
        vec![
            ("a\\n".to_string(), StrStyle::Raw { hashes: 0 }),
            ("say \"hi\"".to_string(), StrStyle::Raw { hashes: 1 }),
            ("a\"#b".to_string(), StrStyle::Raw { hashes: 2 }),
        ]
    );
}

#[test]
fn block_strings_remove_common_indentation() {
    let text =
        "prompt \"\"\"\n    Fix the bug.\n\n      indented\n    \\\"\"\" quoted\n    \"\"\"\n";
    assert_eq!(
        strings(text),
        vec![(
            "Fix the bug.\n\n  indented\n\"\"\" quoted\n".to_string(),
            StrStyle::Block
        )]
    );
    assert_eq!(
        strings("x \"\"\"\n\"\"\"\n"),
        vec![(String::new(), StrStyle::Block)]
    );
    // The closing delimiter may be followed by more of the statement.
    let parsed = p("x [\"\"\"\n  a\n  \"\"\", \"b\"]\n");
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
}

#[test]
fn crlf_line_endings() {
    let parsed = p("a 1\r\nb \"\"\"\r\n  x\r\n  \"\"\"\r\n// c\r\n");
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let Value::Str(s) = &parsed.document.statements[1].args[0] else {
        panic!()
    };
    assert_eq!(s.value, "x\n");
    assert!(matches!(parsed.document.dangling.as_slice(), [Trivia::Comment(c)] if c.text == "c"));
}

#[test]
fn comments_attach_leading_trailing_and_dangling() {
    let text = "\n\n// head\n\n// lead\na 1 // trail\n\n\n\nb {\n\n  // first\n  c\n  // inner dangling\n\n}\n// end\n";
    let parsed = p(text);
    assert!(parsed.diagnostics.is_empty(), "{:#?}", parsed.diagnostics);
    let doc = parsed.document;
    let a = &doc.statements[0];
    assert_eq!(a.leading.len(), 3, "{:?}", a.leading); // head, blank, lead
    assert_eq!(a.leading[1], Trivia::BlankLine);
    assert_eq!(a.trailing.as_ref().map(|c| c.text.as_str()), Some("trail"));
    let b = &doc.statements[1];
    assert_eq!(b.leading, vec![Trivia::BlankLine]);
    let block = b.block.as_ref().expect("block");
    assert_eq!(block.statements[0].leading.len(), 1);
    assert_eq!(block.dangling.len(), 1);
    assert_eq!(doc.dangling.len(), 1);
}

#[test]
fn comments_inside_lists_move_above_the_statement() {
    let doc = p("// lead\nx [\n  1, // one\n  2,\n]\n").document;
    assert_eq!(doc.statements[0].leading.len(), 2);
    assert_eq!(doc.statements[0].args.len(), 1);
}

#[test]
fn recovery_reports_every_statement_error_once() {
    let text = "task \"t\" {\n  title = \"x\"\n  kind bugfix\n  languages [\"a\" \"b\"]\n  verify joint\n  repo r { source }\n  ) \n}\n";
    let parsed = p(text);
    assert_eq!(
        parsed
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        [
            Code::UnexpectedToken,
            Code::UnexpectedToken,
            Code::UnexpectedClose
        ]
    );
    let block = parsed.document.statements[0].block.as_ref().expect("block");
    let names: Vec<&str> = block
        .statements
        .iter()
        .map(|s| s.name.name.as_str())
        .collect();
    assert_eq!(names, ["kind", "verify", "repo"]);
}

#[test]
fn unclosed_block_is_one_error() {
    assert_eq!(codes("a {\n  b {\n    c 1\n"), [Code::UnclosedBlock]);
    assert_eq!(codes("a [1, 2\n"), [Code::UnclosedBlock]);
    assert_eq!(codes("a {\n  b [1, 2\n}\nc 3\n"), [Code::UnclosedBlock]);
}

#[test]
fn unterminated_strings_do_not_cascade() {
    assert_eq!(codes("a \"open\nb 2\n"), [Code::UnterminatedString]);
    assert_eq!(codes("a {\n b r#\"open\n}\n"), [Code::UnterminatedString]);
    assert_eq!(
        codes("a {\n b \"\"\"\n  text\n}\n"),
        [Code::UnterminatedString]
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let n = 100_000;
    let braces = "{".repeat(n);
    assert!(!codes(&braces).is_empty());
    let brackets = "[".repeat(n);
    assert!(!codes(&brackets).is_empty());
    let nested_blocks = "a {".repeat(n);
    assert_eq!(codes(&nested_blocks), [Code::NestingTooDeep]);
    let nested_lists = format!("a {}", "[".repeat(n));
    assert_eq!(codes(&nested_lists), [Code::NestingTooDeep]);
    let nested_calls = format!("a {}", "f(".repeat(n));
    assert_eq!(codes(&nested_calls), [Code::NestingTooDeep]);
    let closed = format!("a {}{}\nb 1\n", "[".repeat(200), "]".repeat(200));
    let parsed = p(&closed);
    assert_eq!(
        parsed
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>(),
        [Code::NestingTooDeep]
    );
    assert_eq!(parsed.document.statements.len(), 1, "b survives");
}

#[test]
fn depth_limit_is_exactly_64() {
    let ok = format!("a {}{}", "[".repeat(64), "]".repeat(64));
    assert_eq!(codes(&ok), []);
    let too_deep = format!("a {}{}", "[".repeat(65), "]".repeat(65));
    assert_eq!(codes(&too_deep), [Code::NestingTooDeep]);
}

#[test]
fn large_input_parses_in_linear_time() {
    let unit = "repo r {\n  source dir(\"repos/r\")\n  setup \"pip install -e .\" // why\n  uses [a, b, c]\n}\n";
    let time = |bytes: usize| {
        let text = unit.repeat(bytes / unit.len());
        let started = std::time::Instant::now();
        let parsed = p(&text);
        assert!(parsed.diagnostics.is_empty());
        started.elapsed()
    };
    let small = time(500_000);
    let large = time(4_000_000);
    eprintln!("parse: 0.5 MB {small:?}, 4 MB {large:?}");
    // 8x the input may take at most ~16x the time (generous for noisy shared machines).
    assert!(
        large < small * 16 + std::time::Duration::from_millis(200),
        "not linear: {small:?} vs {large:?}"
    );
}

#[test]
fn one_error_per_bad_word() {
    assert_eq!(
        codes("a --5 .x\nb 1\n"),
        [Code::UnexpectedToken, Code::UnexpectedToken]
    );
    assert_eq!(codes("a @@@@ 1\n"), [Code::UnexpectedToken]);
    let parsed = p("timeout -5\nok 1\n");
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(
        parsed.diagnostics[0].message,
        "`-5` is neither a number nor a name"
    );
    assert_eq!(parsed.document.statements.len(), 1);
}
