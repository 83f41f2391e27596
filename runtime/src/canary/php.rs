//! Canaries for php: phpunit 9 test methods written into the test class of a hidden
//! `*Test.php` file, and new `.phpt` files next to a hidden one for run-tests.php.
//!
//! **phpunit.** Each pair is two public `test…` methods (`testRetryAfterEdge`, named from
//! the words of the file's own test methods) comparing numbers with the class's own
//! `$this->assertSame`; they are written before the closing line of the file's last
//! `class … extends` (the line holding `}` alone at the class line's indentation, as
//! PSR-12 lays classes out). A file without one stays as it was: its canaries are then
//! missing from its results (see docs/security.md). Pest's files are closures, not classes:
//! a command running `pest` gets no canaries (the descriptor says why).
//!
//! **phpt.** Each canary is a file of its own in the hidden file's folder (a `.phpt` test is
//! its file: run-tests.php names it by its path), named from the words of the folder's
//! hidden `.phpt` files (`retry_after_edge.phpt`); a file of that name already there is
//! never overwritten (the canary is then missing and the check says so).

/// The name of a phpunit test method defined on `line` (trimmed), if any.
pub fn method(line: &str) -> Option<String> {
    let at = line.find("function ")?;
    let before = &line[..at];
    // `public function`, `public static function`, `function` — not a closure or a call.
    if !before
        .split_whitespace()
        .all(|w| matches!(w, "public" | "protected" | "private" | "static" | "final"))
    {
        return None;
    }
    let name: String = line[at + "function ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    name.starts_with("test").then_some(name)
}

/// Words a copyable phpunit test's body never holds: an early end (`return`, a skip), an
/// expected exception or output (the failing copy's last assertion would never run, or the
/// output would change), the test's own name.
pub const UNSOUND: &[&str] = &[
    "return",
    "yield",
    "exit",
    "die",
    "goto",
    "markTestSkipped",
    "markTestIncomplete",
    "expectException",
    "expectExceptionCode",
    "expectExceptionMessage",
    "expectExceptionMessageMatches",
    "expectExceptionObject",
    "expectOutputString",
    "expectOutputRegex",
    "expectDeprecation",
    "expectError",
    "expectNotice",
    "expectWarning",
    "getName",
    "dataName",
    "__FUNCTION__",
    "__METHOD__",
    "__LINE__",
];

/// A copyable phpunit test method at `chunk[i]`: `public function testX()` (`: void` or
/// no return type) taking no argument, its `{` at the end of the line or alone on the next
/// at the same indentation, its body up to the line holding `}` alone at that indentation;
/// not after a docblock, an attribute or a comment (a data provider, `@depends`, `@test`,
/// `#[DataProvider]` may change how phpunit runs it). The failing copy ends with
/// `$this->assertSame('<another name>', $this->getName(false))`.
pub fn original(chunk: &[String], i: usize, top: bool) -> Option<(super::derive::Original, usize)> {
    let l = &chunk[i];
    let trimmed = l.trim_start();
    let ind = &l[..l.len() - trimmed.len()];
    let rest = trimmed.strip_prefix("public function ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if !name.starts_with("test") {
        return None;
    }
    let sig = rest[name.len()..].trim_end();
    let (sig, brace_here) = match sig.strip_suffix('{') {
        Some(s) => (s.trim_end(), true),
        None => (sig, false),
    };
    if sig != "()" && sig != "(): void" {
        return None;
    }
    match chunk[..i].iter().rev().find(|l| !l.trim().is_empty()) {
        Some(b) => {
            let b = b.trim();
            if b.ends_with("*/") || b.starts_with("#[") || b.starts_with("//") || b.starts_with('*')
            {
                return None;
            }
        }
        None if !top => return None,
        None => {}
    }
    let open = if brace_here {
        i
    } else {
        (chunk.get(i + 1)? == &format!("{ind}{{")).then_some(i + 1)?
    };
    let close = format!("{ind}}}");
    let end = (open + 1..chunk.len()).find(|&j| chunk[j].trim_end() == close)?;
    let body: Vec<String> = chunk[open + 1..end].to_vec();
    let indent = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or(format!("{ind}    "), |l| {
            l[..l.len() - l.trim_start().len()].to_string()
        });
    let mut head = format!("{ind}public function NAME{}", &rest[name.len()..]);
    if !brace_here {
        head.push('\n');
        head.push_str(&chunk[open]);
    }
    Some((
        super::derive::Original::new(name, l.clone(), head, body, close, indent),
        end + 1,
    ))
}

/// Why a phpunit command would not run canaries: it selects tests by name or group.
pub fn selection(words: &[&str]) -> Option<&'static str> {
    let has = |w: &str| {
        words
            .iter()
            .any(|t| *t == w || t.starts_with(&format!("{w}=")))
    };
    if has("--filter") {
        Some("`--filter`")
    } else if has("--group") || has("--covers") || has("--uses") {
        Some("`--group`")
    } else {
        None
    }
}

/// A phpunit canary pair: two methods of the test class, `pass` comparing `a` with
/// itself, `fail` with `b`.
pub fn phpunit_pair(pass: &str, fail: &str, (a, b): (u32, u32), fail_first: bool) -> String {
    let method = |name: &str, x: u32| {
        format!("\n    public function {name}(): void\n    {{\n        $this->assertSame({a}, {x});\n    }}\n")
    };
    let (p, f) = (method(pass, a), method(fail, b));
    if fail_first {
        format!("{f}{p}")
    } else {
        format!("{p}{f}")
    }
}

/// Prints its input with the lines of file `A` before the closing line of the last
/// `class … extends` (the first later line holding `}` alone at the class line's
/// indentation); fails, printing nothing else, when there is none.
const PHPUNIT_AWK: &str = r#"{ l[NR] = $0 } END { c = 0; for (i = 1; i <= NR; i++) if (l[i] ~ /^[ \t]*((final|abstract)[ \t]+)*class[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+extends[ \t]/) c = i; at = 0; if (c) { match(l[c], /^[ \t]*/); ind = substr(l[c], 1, RLENGTH); for (i = c + 1; i <= NR && !at; i++) { x = l[i]; sub(/[ \t\r]+$/, "", x); if (x == ind "}") at = i } } if (!at) exit 1; for (i = 1; i <= NR; i++) { if (i == at) while ((getline y < ENVIRON["A"]) > 0) print y; print l[i] } }"#;

/// The script line writing the phpunit canaries of blob `src` into `target` (both shell
/// words); when the file has no class to hold them it stays as it was.
pub fn phpunit_script(target: &str, src: &str) -> String {
    format!(
        "A={src} awk {awk} {target} > {src}.out && cat {src}.out > {target}\n",
        awk = super::quote(PHPUNIT_AWK),
    )
}

/// The stem of a `.phpt` path (`tests/bug42.phpt` → `bug42`).
pub fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".phpt").unwrap_or(name)
}

/// One `.phpt` canary: prints `a` and expects `x`.
fn phpt(name: &str, a: u32, x: u32) -> String {
    let title = stem(name).replace('_', " ");
    format!("--TEST--\n{title}\n--FILE--\n<?php\nvar_dump({a} + 0);\n?>\n--EXPECT--\nint({x})\n")
}

/// A phpt canary pair: the two files, one after the other (`phpt_script` splits them at
/// their `--TEST--` lines).
pub fn phpt_pair(pass: &str, fail: &str, (a, b): (u32, u32)) -> String {
    format!("{}{}", phpt(pass, a, a), phpt(fail, a, b))
}

/// Splits its input at `--TEST--` lines: the first file into `P`, the second into `F`.
const PHPT_AWK: &str =
    r#"/^--TEST--$/ { n++ } { if (n == 1) print > ENVIRON["P"]; else print > ENVIRON["F"] }"#;

/// The script line writing the phpt canary pair of blob `src` to the paths `pass` and
/// `fail` (shell words), unless a file is there already.
pub fn phpt_script(pass: &str, fail: &str, src: &str) -> String {
    format!(
        "P={pass}; F={fail}; [ -e \"$P\" ] || [ -e \"$F\" ] || P=\"$P\" F=\"$F\" awk {awk} {src}\n",
        awk = super::quote(PHPT_AWK),
    )
}

/// Sections a copyable `.phpt` file never has: a test that may be skipped, is expected
/// to fail, depends on others or on a SAPI, or lives in other files.
const PHPT_UNCOPYABLE: &[&str] = &[
    "--SKIPIF--",
    "--XFAIL--",
    "--XLEAK--",
    "--CONFLICTS--",
    "--EXTENSIONS--",
    "--REDIRECTTEST--",
    "--CGI--",
    "--GET--",
    "--POST--",
    "--POST_RAW--",
    "--PUT--",
    "--GZIP_POST--",
    "--DEFLATE_POST--",
    "--COOKIE--",
    "--PHPDBG--",
    "--FILE_EXTERNAL--",
    "--EXPECT_EXTERNAL--",
    "--EXPECTF_EXTERNAL--",
    "--EXPECTREGEX_EXTERNAL--",
    "--CAPTURE_STDIO--",
];

/// A copyable `.phpt` file, read whole from its first line (`chunk` from the file's top):
/// `--TEST--`, a `--FILE--` and an `--EXPECT--`, `--EXPECTF--` or `--EXPECTREGEX--`
/// section, none of [`PHPT_UNCOPYABLE`], and no `__FILE__` (a copy is another file: what
/// it prints of its own path would differ). Its copies are written by the run's script
/// from the file as applied ([`phpt_copy_script`]).
pub fn phpt_original(
    chunk: &[String],
    i: usize,
    top: bool,
) -> Option<(super::derive::Original, usize)> {
    if i != 0 || !top || chunk.first().map(String::as_str) != Some("--TEST--") {
        return None;
    }
    let has = |s: &str| chunk.iter().any(|l| l.trim_end() == s);
    let ok = has("--FILE--")
        && (has("--EXPECT--") || has("--EXPECTF--") || has("--EXPECTREGEX--"))
        && !PHPT_UNCOPYABLE.iter().any(|s| has(s))
        && !chunk.iter().any(|l| l.contains("__FILE__"));
    ok.then(|| {
        (
            super::derive::Original::new(
                String::new(),
                String::new(),
                String::new(),
                chunk.to_vec(),
                String::new(),
                String::new(),
            ),
            chunk.len(),
        )
    })
}

/// Prints a `.phpt` file as its failing copy: the sections that could skip it or expect
/// its failure left out, and the line `O` first in its expected output (which the test,
/// printing what its original prints, cannot print).
const PHPT_FAIL_AWK: &str = r#"/^--[A-Z_]+--$/ { skip = ($0 ~ /^--(SKIPIF|XFAIL|XLEAK|CONFLICTS|EXTENSIONS)--$/) } !skip { print } !skip && /^--(EXPECT|EXPECTF|EXPECTREGEX)--$/ { print ENVIRON["O"] }"#;

/// The script line writing the copies of the `.phpt` file `src` (shell words): `same` as it
/// is, `fail` expecting the line `other` first; neither over an existing file.
pub fn phpt_copy_script(src: &str, same: &str, fail: &str, other: &str) -> String {
    format!(
        "P={same}; F={fail}; [ -e \"$P\" ] || [ -e \"$F\" ] || {{ cp {src} \"$P\" && O={other} awk {awk} {src} > \"$F\"; }}\n",
        other = super::quote(other),
        awk = super::quote(PHPT_FAIL_AWK),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_methods_are_read_from_their_lines() {
        assert_eq!(
            method("public function testParses(string $raw): void").as_deref(),
            Some("testParses")
        );
        assert_eq!(
            method("public static function test_it()").as_deref(),
            Some("test_it")
        );
        assert_eq!(method("public function cookies(): array"), None);
        assert_eq!(method("$f = function testLike() {};"), None);
    }

    fn chunk(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn copyable_test_methods() {
        use crate::canary::derive::{copy, originals, Shown};
        use crate::canary::Framework;
        let text = "final class DelayTest extends TestCase\n{\n    public function testSeconds(): void\n    {\n        $this->assertSame(7, delay('7'));\n    }\n\n    /** @dataProvider cases */\n    public function testCases(string $v): void\n    {\n        $this->assertSame(0, delay($v));\n    }\n\n    public function testSkipped() {\n        $this->markTestSkipped('x');\n    }\n\n    public function testBraceHere() {\n        $this->assertTrue(true);\n    }\n}\n";
        let shown = Shown {
            chunks: vec![chunk(text)],
            from_top: true,
        };
        let found = originals(Framework::Phpunit, &shown);
        let names: Vec<&str> = found.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["testSeconds", "testBraceHere"]);
        assert_eq!(
            copy(Framework::Phpunit, &found[0], "testSecondsTwice", Some("testSecondsEdge")),
            "    public function testSecondsTwice(): void\n    {\n        $this->assertSame(7, delay('7'));\n        $this->assertSame('testSecondsEdge', $this->getName(false));\n    }\n\n"
        );
        assert_eq!(
            copy(Framework::Phpunit, &found[1], "testBraceAgain", None),
            "    public function testBraceAgain() {\n        $this->assertTrue(true);\n    }\n\n"
        );
    }

    #[test]
    fn copyable_phpt_files() {
        let whole = |t: &str| phpt_original(&chunk(t), 0, true).is_some();
        assert!(whole(
            "--TEST--\nx\n--FILE--\n<?php echo 1; ?>\n--EXPECT--\n1\n"
        ));
        assert!(whole(
            "--TEST--\nx\n--INI--\na=1\n--FILE--\n<?php echo 1; ?>\n--EXPECTF--\n%d\n"
        ));
        assert!(!whole(
            "--TEST--\nx\n--SKIPIF--\n<?php ?>\n--FILE--\n<?php echo 1; ?>\n--EXPECT--\n1\n"
        ));
        assert!(!whole(
            "--TEST--\nx\n--FILE--\n<?php echo basename(__FILE__); ?>\n--EXPECT--\nx.php\n"
        ));
        assert!(!whole(
            "--TEST--\nx\n--FILE--\n<?php echo 1; ?>\n--EXPECT_EXTERNAL--\nx.out\n"
        ));
        assert!(phpt_original(
            &chunk("--TEST--\nx\n--FILE--\n<?php ?>\n--EXPECT--\n"),
            0,
            false
        )
        .is_none());
    }

    #[test]
    fn phpunit_selection() {
        assert!(selection(&["phpunit", "tests"]).is_none());
        assert!(selection(&["phpunit", "--filter", "x"]).is_some());
        assert!(selection(&["phpunit", "--group=slow"]).is_some());
        assert!(selection(&["phpunit", "--exclude-group", "slow"]).is_none());
    }
}
