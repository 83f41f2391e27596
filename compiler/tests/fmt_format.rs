//! Formatter: canonical layout, comments, strings, idempotence on hand-written inputs.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use taskc_compiler::fmt::format;
use taskc_compiler::syntax::{parse, strip_spans};
use taskc_compiler::SourceId;

const LANGUAGE_EXAMPLE: &str = include_str!("syntax_data/language_example.task");

/// Format `text`, and check the output re-parses to the same document and is a fixed point.
fn fmt(text: &str) -> String {
    let first = parse(SourceId(0), text);
    assert!(
        first.diagnostics.is_empty(),
        "input has errors: {:#?}",
        first.diagnostics
    );
    let out = format(&first.document);
    let second = parse(SourceId(0), &out);
    assert!(
        second.diagnostics.is_empty(),
        "output has errors: {:#?}\n{out}",
        second.diagnostics
    );
    assert_eq!(
        strip_spans(&second.document),
        strip_spans(&first.document),
        "\n{out}"
    );
    assert_eq!(format(&second.document), out, "not idempotent");
    out
}

#[test]
fn language_reference_example_is_already_canonical() {
    assert_eq!(fmt(LANGUAGE_EXAMPLE), LANGUAGE_EXAMPLE);
}

/// Every `.task` file under `dir` (recursively).
fn task_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "task") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn examples_and_specs_round_trip() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let (mut clean, mut with_errors) = (0, 0);
    for dir in ["examples", "specs"] {
        for path in task_files(&format!("{root}/{dir}")) {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue; // specs/invalid holds deliberately broken bytes too
            };
            let parsed = parse(SourceId(0), &text);
            if parsed.diagnostics.is_empty() {
                fmt(&text);
                clean += 1;
            } else {
                assert!(
                    dir != "examples",
                    "{} has syntax errors: {:#?}",
                    path.display(),
                    parsed.diagnostics
                );
                with_errors += 1;
            }
        }
    }
    eprintln!("round-tripped {clean} specs; {with_errors} have syntax errors on purpose");
}

#[test]
fn messy_input_snapshot() {
    let input = r###"


// leading comment
task   "demo"{ title "t"; kind bugfix
//no space
  //    indented comment text



    languages ["python","go",]   // trailing
  links ["https://example.com/a/very/long/url/that/goes/on/and/on", "https://example.com/another/long/url/for/good/measure"]
  nested [[1,2],[3,[4,5]]]
  prompt """
        Fix the bug.

          Keep this indented.
        Say \""" here.
        """
  repo a {

    source dir( "repos/a" )
    test{}

  }
  relax a { drop "t::x" { rule unrequested; because "why" } }
  edit r##"a "# b"## with r"plain"
  empty {
    // only a comment

  }
  ///doc-like
}
// end


"###;
    let out = fmt(input);
    insta::assert_snapshot!(format!("{input}\n----- formatted -----\n{out}"));
}

#[test]
fn long_lists_break_one_item_per_line() {
    let items: Vec<String> = (0..12).map(|i| format!("\"item-number-{i}\"")).collect();
    let text = format!("a {{\n  l [{}] [1]\n}}\n", items.join(", "));
    let out = fmt(&text);
    assert!(out.contains("  l [\n    \"item-number-0\",\n"), "{out}");
    assert!(out.contains("    \"item-number-11\",\n  ] [1]\n"), "{out}");
    assert!(out.lines().all(|l| l.chars().count() <= 100));
}

#[test]
fn quoted_strings_are_reescaped() {
    assert_eq!(
        fmt("a \"x\\u{7}\\ty\\\"\\\\\"\n"),
        "a \"x\\u{7}\\ty\\\"\\\\\"\n"
    );
}

#[test]
fn crlf_becomes_lf_and_file_ends_with_one_newline() {
    assert_eq!(fmt("a 1\r\nb 2\r\n\r\n\r\n"), "a 1\nb 2\n");
    assert_eq!(fmt("a 1"), "a 1\n");
}

#[test]
fn block_string_with_a_carriage_return_inside_a_line() {
    // Fuzz finding: a `\r` inside a line is kept, so the block style is kept too.
    assert_eq!(
        fmt("a \"\"\"\n  x\ry\n  \"\"\"\n"),
        "a \"\"\"\n  x\ry\n\"\"\"\n"
    );
}

#[test]
fn semicolons_become_lines() {
    assert_eq!(fmt("a 1; b { c; d }"), "a 1\nb {\n  c\n  d\n}\n");
}

/// Documents left by error recovery must format to text that parses back the same.
#[test]
fn recovered_documents_round_trip() {
    for text in [
        // Fuzz finding: a bad statement after a blank line left a blank line before `}`.
        "a{\na [1, \"x\", f(b)] ~/   c r#Xq\"# \"\"\"\n,   u\nc  \"\"\"\n}b 1\n  c r#\"q\"# /4\"\"\n\n    t  \"\"\"\n}\n",
        "a {\n  x = 1\n\n  b\n}\n",
        "a 1\n\nx = 1\n\nb 2\n",
        "a {\n  // c\n\n  x = 1\n}\n",
    ] {
        let parsed = parse(SourceId(0), text);
        assert!(!parsed.diagnostics.is_empty());
        let out = format(&parsed.document);
        let again = parse(SourceId(0), &out);
        assert!(again.diagnostics.is_empty(), "{out}");
        assert_eq!(strip_spans(&again.document), strip_spans(&parsed.document), "{out}");
    }
}
