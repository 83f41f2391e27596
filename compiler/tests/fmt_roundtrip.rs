//! Property tests: for random valid documents, `parse(format(doc)) == doc` apart from spans,
//! and `format` is idempotent; for random token soup, the parser never panics and whatever
//! parses cleanly round-trips.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use proptest::prelude::*;
use taskc_compiler::fmt::{block_representable, format};
use taskc_compiler::syntax::ast::{
    Block, Call, Comment, Document, Ident, IntLit, List, Statement, StrLit, StrStyle, Trivia, Value,
};
use taskc_compiler::syntax::{parse, strip_spans};
use taskc_compiler::{SourceId, Span};

fn ident() -> impl Strategy<Value = Ident> {
    "[A-Za-z_][A-Za-z0-9_.-]{0,8}".prop_map(|name| Ident {
        name,
        span: Span::default(),
    })
}

/// Text with the characters that stress escaping: quotes, backslashes, hashes, newlines,
/// tabs, control characters and non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z \"\\\\#\n\t\r{}\\[\\]/é😀\u{7}\u{0}]{0,12}",
        1 => any::<String>(),
    ]
}

fn block_text() -> impl Strategy<Value = String> {
    prop::collection::vec("[ ]{0,3}[a-z\"\\\\#é{}][a-z \"\\\\#é\r]{0,8}|", 0..5).prop_map(|lines| {
        let mut s: String = lines.iter().map(|l| format!("{l}\n")).collect();
        if !block_representable(&s) {
            s = format!("x\n{s}");
        }
        s
    })
}

/// The fewest hashes a raw string holding `value` needs.
fn hashes_needed(value: &str) -> usize {
    value
        .match_indices('"')
        .map(|(i, _)| value[i + 1..].bytes().take_while(|b| *b == b'#').count() + 1)
        .max()
        .unwrap_or(0)
}

fn string() -> impl Strategy<Value = StrLit> {
    let quoted = text().prop_map(|value| (value, StrStyle::Quoted));
    let raw = (text(), 0u8..3).prop_map(|(value, h)| {
        let hashes = hashes_needed(&value).max(h as usize) as u8;
        (value, StrStyle::Raw { hashes })
    });
    // A line ending in `\r` cannot be a block string (it reads as CRLF): the formatter
    // falls back to quotes, so expect that.
    let block = block_text().prop_map(|value| {
        let style = if block_representable(&value) {
            StrStyle::Block
        } else {
            StrStyle::Quoted
        };
        (value, style)
    });
    prop_oneof![quoted, raw, block].prop_map(|(value, style)| StrLit {
        value,
        style,
        span: Span::default(),
    })
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        string().prop_map(Value::Str),
        ident().prop_map(Value::Ident),
        any::<u64>().prop_map(|value| Value::Int(IntLit {
            value,
            span: Span::default()
        })),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|items| Value::List(List {
                items,
                span: Span::default()
            })),
            (ident(), prop::collection::vec(inner, 0..3)).prop_map(|(name, args)| {
                Value::Call(Call {
                    name,
                    args,
                    span: Span::default(),
                })
            }),
        ]
    })
}

fn comment() -> impl Strategy<Value = Comment> {
    "[^\n\r]{0,15}".prop_map(|t| Comment {
        text: t.trim_end().to_string(),
        span: Span::default(),
    })
}

fn trivia() -> impl Strategy<Value = Vec<Trivia>> {
    prop::collection::vec(
        prop_oneof![comment().prop_map(Trivia::Comment), Just(Trivia::BlankLine)],
        0..3,
    )
}

fn statement(block: Option<BoxedStrategy<Block>>) -> BoxedStrategy<Statement> {
    let block = match block {
        Some(b) => prop::option::weighted(0.4, b).boxed(),
        None => Just(None).boxed(),
    };
    (
        ident(),
        prop::collection::vec(value(), 0..4),
        block,
        trivia(),
        prop::option::of(comment()),
    )
        .prop_map(|(name, args, block, leading, trailing)| Statement {
            name,
            args,
            block,
            leading,
            trailing,
            span: Span::default(),
        })
        .boxed()
}

fn block(depth: u32) -> BoxedStrategy<Block> {
    let inner = if depth == 0 {
        statement(None)
    } else {
        statement(Some(block(depth - 1)))
    };
    (prop::collection::vec(inner, 0..4), trivia())
        .prop_map(|(statements, dangling)| Block {
            statements,
            dangling,
            span: Span::default(),
        })
        .boxed()
}

fn document() -> impl Strategy<Value = Document> {
    block(3).prop_map(|b| {
        let mut doc = Document {
            statements: b.statements,
            dangling: b.dangling,
            span: Span::default(),
        };
        normalize(&mut doc.statements, &mut doc.dangling);
        doc
    })
}

/// Blank lines as the parser records them: never first in a block, never last, never two
/// in a row.
fn normalize(statements: &mut [Statement], dangling: &mut Vec<Trivia>) {
    let mut started = false;
    let mut last_blank = false;
    let fix = |list: &mut Vec<Trivia>, started: &mut bool, last_blank: &mut bool| {
        list.retain(|t| {
            let keep = match t {
                Trivia::BlankLine => *started && !*last_blank,
                Trivia::Comment(_) => true,
            };
            if keep {
                *last_blank = matches!(t, Trivia::BlankLine);
                *started = true;
            }
            keep
        });
    };
    for st in statements.iter_mut() {
        fix(&mut st.leading, &mut started, &mut last_blank);
        started = true;
        last_blank = false;
        if let Some(b) = &mut st.block {
            normalize(&mut b.statements, &mut b.dangling);
        }
    }
    fix(dangling, &mut started, &mut last_blank);
    while matches!(dangling.last(), Some(Trivia::BlankLine)) {
        dangling.pop();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn format_then_parse_gives_the_document_back(doc in document()) {
        let text = format(&doc);
        if std::env::var("H1_SHOW").is_ok() && text.len() > 400 { eprintln!("=====\n{text}"); }
        let parsed = parse(SourceId(0), &text);
        prop_assert!(parsed.diagnostics.is_empty(), "{:#?}\n{}", parsed.diagnostics, text);
        prop_assert_eq!(strip_spans(&parsed.document), strip_spans(&doc), "\n{}", text);
        prop_assert_eq!(format(&parsed.document), text);
    }

    #[test]
    fn token_soup_never_panics_and_clean_parses_round_trip(
        parts in prop::collection::vec(
            prop_oneof![
                Just("a"), Just("b-c"), Just("1"), Just("\"s\""), Just("r#\"x\"#"), Just("\"\"\"\n  t\n\"\"\""),
                Just("{"), Just("}"), Just("["), Just("]"), Just("("), Just(")"), Just(","), Just(";"),
                Just("\n"), Just(" "), Just("// c\n"), Just("\""), Just("\\"), Just("="), Just("f("),
            ],
            0..40,
        )
    ) {
        let text: String = parts.concat();
        let parsed = parse(SourceId(0), &text);
        if parsed.diagnostics.is_empty() {
            let out = format(&parsed.document);
            let again = parse(SourceId(0), &out);
            prop_assert!(again.diagnostics.is_empty(), "{:#?}\n{}", again.diagnostics, out);
            prop_assert_eq!(strip_spans(&again.document), strip_spans(&parsed.document));
            prop_assert_eq!(format(&again.document), out);
        } else {
            for d in &parsed.diagnostics {
                prop_assert!(d.primary.span.end as usize <= text.len());
            }
        }
    }
}
