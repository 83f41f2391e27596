//! Text → tokens, with nom 8 combinators over `&str`.
//!
//! Offsets are computed from the length of the remaining input. Lexical errors (bad
//! characters, unterminated strings, bad escapes) are reported here, once; the token that
//! carried the error is still produced (a string keeps what was read) or becomes
//! [`TokKind::Bad`], which the parser skips without a second report.

use nom::bytes::complete::{is_not, tag, take_till, take_while, take_while1};
use nom::character::complete::{char, satisfy};
use nom::combinator::recognize;
use nom::multi::many0_count;
use nom::{IResult, Parser};

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::span::{SourceId, Span};
use crate::syntax::ast::StrStyle;

/// What a token is. Names and integers keep their text in the source (see [`Token::span`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokKind {
    Ident,
    Int(u64),
    /// A string; its value is `Lexed::strings[id]`.
    Str {
        id: usize,
        style: StrStyle,
    },
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Semi,
    Newline,
    /// `// text`: the text after the slashes (one leading space and trailing blanks removed)
    /// is `Lexed::strings[id]`.
    Comment(usize),
    /// Something already reported by the lexer; the parser skips it silently.
    Bad,
    Eof,
}

/// One token and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub kind: TokKind,
    pub span: Span,
}

/// The tokens of a text, ending with [`TokKind::Eof`], and the lexical errors found.
pub(crate) struct Lexed {
    pub tokens: Vec<Token>,
    /// String values and comment texts, by the ids in their tokens (moved, not copied, into
    /// the tree).
    pub strings: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// A string ran to the end of the file: the parser should not also report unclosed blocks.
    pub swallowed_eof: bool,
}

type Res<'a, O> = IResult<&'a str, O>;

/// Whether `c` may continue a name: `[A-Za-z0-9_.-]`.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-'
}

/// Whether `c` may start a name: `[A-Za-z_]`.
pub fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn name(i: &str) -> Res<'_, &str> {
    recognize((satisfy(is_name_start), take_while(is_name_char))).parse(i)
}

/// Digits, possibly glued to name characters (`600s`), which is an error.
fn number_word(i: &str) -> Res<'_, (&str, &str)> {
    (
        take_while1(|c: char| c.is_ascii_digit()),
        take_while(is_name_char),
    )
        .parse(i)
}

fn blanks(i: &str) -> Res<'_, &str> {
    take_while(|c: char| c == ' ' || c == '\t' || c == '\r').parse(i)
}

fn comment(i: &str) -> Res<'_, &str> {
    recognize((tag("//"), take_till(|c: char| c == '\n'))).parse(i)
}

fn raw_open(i: &str) -> Res<'_, usize> {
    let (i, _) = char('r').parse(i)?;
    let (i, n) = many0_count(char('#')).parse(i)?;
    let (i, _) = char('"').parse(i)?;
    Ok((i, n))
}

/// A run of characters that start no token, reported as one error.
fn junk(i: &str) -> Res<'_, &str> {
    take_while1(|c: char| {
        !(c.is_whitespace()
            || is_name_char(c)
            || matches!(c, '{' | '}' | '[' | ']' | '(' | ')' | ',' | ';' | '"' | '/'))
    })
    .parse(i)
}

struct Lexer<'a> {
    text: &'a str,
    source: SourceId,
    tokens: Vec<Token>,
    strings: Vec<String>,
    diagnostics: Vec<Diagnostic>,
    swallowed_eof: bool,
}

/// Split `text` into tokens.
pub(crate) fn lex(source: SourceId, text: &str) -> Lexed {
    let mut lx = Lexer {
        text,
        source,
        tokens: Vec::with_capacity(text.len() / 8 + 1),
        strings: Vec::new(),
        diagnostics: Vec::new(),
        swallowed_eof: false,
    };
    lx.run();
    Lexed {
        tokens: lx.tokens,
        strings: lx.strings,
        diagnostics: lx.diagnostics,
        swallowed_eof: lx.swallowed_eof,
    }
}

impl<'a> Lexer<'a> {
    fn off(&self, rest: &str) -> usize {
        self.text.len() - rest.len()
    }

    fn push(&mut self, kind: TokKind, start: usize, end: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, end),
        });
    }

    fn error(&mut self, code: Code, message: String, span: Span, label: &str, help: &str) {
        self.diagnostics.push(
            Diagnostic::new(code, message, Label::new(self.source, span, label)).with_help(help),
        );
    }

    fn run(&mut self) {
        let mut rest: &'a str = self.text.strip_prefix('\u{feff}').unwrap_or(self.text);
        loop {
            if let Ok((r, _)) = blanks(rest) {
                rest = r;
            }
            let start = self.off(rest);
            let Some(c) = rest.chars().next() else {
                self.push(TokKind::Eof, start, start);
                return;
            };
            rest = match c {
                '\n' => self.single(TokKind::Newline, rest),
                '{' => self.single(TokKind::LBrace, rest),
                '}' => self.single(TokKind::RBrace, rest),
                '[' => self.single(TokKind::LBracket, rest),
                ']' => self.single(TokKind::RBracket, rest),
                '(' => self.single(TokKind::LParen, rest),
                ')' => self.single(TokKind::RParen, rest),
                ',' => self.single(TokKind::Comma, rest),
                ';' => self.single(TokKind::Semi, rest),
                '/' => self.comment_or_junk(rest),
                '"' if rest.starts_with("\"\"\"") => self.block_string(rest),
                '"' => self.quoted(rest),
                'r' if rest[1..].starts_with('"') || rest[1..].starts_with('#') => self.raw(rest),
                c if is_name_start(c) => match name(rest) {
                    Ok((r, _)) => {
                        self.push(TokKind::Ident, start, self.off(r));
                        r
                    }
                    Err(_) => self.junk(rest),
                },
                c if c.is_ascii_digit() => self.number(rest),
                '-' | '.' => self.dashed_word(rest),
                _ => self.junk(rest),
            };
        }
    }

    fn str_tok(&mut self, value: String, style: StrStyle) -> TokKind {
        self.strings.push(value);
        TokKind::Str {
            id: self.strings.len() - 1,
            style,
        }
    }

    fn single(&mut self, kind: TokKind, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        self.push(kind, start, start + 1);
        &rest[1..]
    }

    fn comment_or_junk(&mut self, rest: &'a str) -> &'a str {
        match comment(rest) {
            Ok((r, whole)) => {
                let start = self.off(rest);
                let body = whole[2..].trim_end();
                let body = body.strip_prefix(' ').unwrap_or(body);
                let end = start + 2 + whole[2..].trim_end().len();
                let kind = TokKind::Comment(self.strings.len());
                self.strings.push(body.to_string());
                self.push(kind, start, end);
                r
            }
            Err(_) => {
                let start = self.off(rest);
                self.error(
                    Code::UnexpectedToken,
                    "unexpected character `/`".to_string(),
                    Span::new(start, start + 1),
                    "not part of any value",
                    "comments start with `//`; quote paths: \"a/b\"",
                );
                self.push(TokKind::Bad, start, start + 1);
                &rest[1..]
            }
        }
    }

    fn junk(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let (r, bad) = match junk(rest) {
            Ok(x) => x,
            // A character junk() refuses cannot reach here, but never loop: eat one char.
            Err(_) => {
                let n = rest.chars().next().map_or(1, char::len_utf8);
                (&rest[n..], &rest[..n])
            }
        };
        let help = match bad.chars().next() {
            Some('=') | Some(':') => "fields are written `name value`, without `=` or `:`",
            Some('#') => "comments start with `//`",
            Some(c) if c.is_whitespace() => "replace it with a plain space",
            _ => "remove it, or put it inside a string: \"…\"",
        };
        let shown = if bad.chars().count() > 20 {
            format!("{}…", bad.chars().take(20).collect::<String>())
        } else {
            bad.to_string()
        };
        let what = if bad.chars().count() == 1 {
            "character"
        } else {
            "characters"
        };
        self.error(
            Code::UnexpectedToken,
            format!("unexpected {what} `{}`", shown.escape_debug()),
            Span::new(start, self.off(r)),
            "expected a name, a value, `{`, `}` or the end of the statement",
            help,
        );
        self.push(TokKind::Bad, start, self.off(r));
        r
    }

    /// `-5`, `.x`: name characters that cannot start a name.
    fn dashed_word(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let n = rest
            .find(|c: char| !is_name_char(c))
            .unwrap_or(rest.len())
            .max(1);
        let word = &rest[..n];
        self.error(
            Code::UnexpectedToken,
            format!("`{word}` is neither a number nor a name"),
            Span::new(start, start + n),
            "a name starts with a letter or `_`; numbers are not negative",
            &format!("if this is text, quote it: \"{word}\""),
        );
        self.push(TokKind::Bad, start, start + n);
        &rest[n..]
    }

    fn number(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let Ok((r, (digits, tail))) = number_word(rest) else {
            return self.junk(rest);
        };
        let end = self.off(r);
        if !tail.is_empty() {
            let word = &rest[..end - start];
            self.error(
                Code::UnexpectedToken,
                format!("`{word}` is neither a number nor a name"),
                Span::new(start, end),
                "a number has only digits; a name starts with a letter or `_`",
                &format!("if this is text, quote it: \"{word}\""),
            );
            self.push(TokKind::Bad, start, end);
            return r;
        }
        match digits.parse::<u64>() {
            Ok(v) => self.push(TokKind::Int(v), start, end),
            Err(_) => {
                self.error(
                    Code::UnexpectedToken,
                    format!("the integer `{digits}` is too large"),
                    Span::new(start, end),
                    "larger than 18446744073709551615",
                    "use a smaller number, or quote it if it is text",
                );
                self.push(TokKind::Bad, start, end);
            }
        }
        r
    }

    /// `"…"` with escapes. Ends at the closing quote, or (unterminated) at the end of the line.
    fn quoted(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let mut r = &rest[1..];
        let mut value = String::new();
        loop {
            if let Ok((r2, run)) = is_not::<_, _, nom::error::Error<&str>>("\"\\\n").parse(r) {
                value.push_str(run);
                r = r2;
            }
            match r.chars().next() {
                Some('"') => {
                    r = &r[1..];
                    break;
                }
                Some('\\') => {
                    r = self.escape(r, &mut value);
                }
                _ => {
                    // Newline or end of file: unterminated.
                    let end = self.off(r);
                    let end_trim = start + self.text[start..end].trim_end_matches('\r').len();
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::UnterminatedString,
                            "this string is not closed on its line",
                            Label::new(self.source, Span::new(start, start + 1), "the string starts here"),
                        )
                        .with_label(Label::new(
                            self.source,
                            Span::at(end_trim),
                            "expected a closing `\"` here",
                        ))
                        .with_help(
                            "add the closing `\"`; for text over several lines use \\n or a block string \"\"\" … \"\"\"",
                        ),
                    );
                    let v = value.trim_end_matches('\r').to_string();
                    let kind = self.str_tok(v, StrStyle::Quoted);
                    self.push(kind, start, end_trim);
                    return r;
                }
            }
        }
        let end = self.off(r);
        let kind = self.str_tok(value, StrStyle::Quoted);
        self.push(kind, start, end);
        r
    }

    /// One escape at `r` (which starts with a backslash); appends its value.
    fn escape(&mut self, r: &'a str, value: &mut String) -> &'a str {
        let at = self.off(r);
        let after = &r[1..];
        let simple = match after.chars().next() {
            Some('"') => Some('"'),
            Some('\\') => Some('\\'),
            Some('n') => Some('\n'),
            Some('t') => Some('\t'),
            Some('r') => Some('\r'),
            Some('0') => Some('\0'),
            _ => None,
        };
        if let Some(c) = simple {
            value.push(c);
            return &after[1..];
        }
        if let Some(after_u) = after.strip_prefix('u') {
            let unicode = (
                tag::<_, _, nom::error::Error<&str>>("u{"),
                take_while(|c: char| c.is_ascii_hexdigit()),
                char('}'),
            )
                .parse(after);
            if let Ok((r2, (_, hex, _))) = unicode {
                let ch = if (1..=6).contains(&hex.len()) {
                    u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
                } else {
                    None
                };
                match ch {
                    Some(c) => value.push(c),
                    None => self.error(
                        Code::InvalidEscape,
                        format!("`\\u{{{hex}}}` is not a Unicode character"),
                        Span::new(at, self.off(r2)),
                        "not a Unicode scalar value",
                        "write 1 to 6 hex digits of a Unicode scalar value, e.g. \\u{1F600}",
                    ),
                }
                return r2;
            }
            let end = at + 2;
            self.error(
                Code::InvalidEscape,
                "malformed `\\u` escape".to_string(),
                Span::new(at, end),
                "expected `\\u{…}` with hex digits",
                "write \\u{1F600} (braces and 1 to 6 hex digits)",
            );
            return after_u;
        }
        // Unknown escape: report it, keep the character after the backslash.
        let n = after
            .chars()
            .next()
            .filter(|c| *c != '\n')
            .map_or(0, char::len_utf8);
        let shown = &after[..n];
        self.error(
            Code::InvalidEscape,
            format!("unknown escape `\\{}`", shown.escape_debug()),
            Span::new(at, at + 1 + n),
            "not an escape taskc knows",
            "valid escapes: \\\" \\\\ \\n \\t \\r \\0 \\u{…}; for a backslash write \\\\, or use a raw string r\"…\"",
        );
        value.push_str(shown);
        &after[n..]
    }

    /// `r"…"`, `r#"…"#`: no escapes, may span lines.
    fn raw(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let Ok((body, hashes)) = raw_open(rest) else {
            // `r#` not followed by `#…"`.
            let n = 1 + rest[1..].chars().take_while(|c| *c == '#').count();
            self.error(
                Code::UnexpectedToken,
                "a raw string needs `\"` after `r` and its `#`s".to_string(),
                Span::new(start, start + n),
                "expected `\"` here",
                "write a raw string as r\"…\" or r#\"…\"#",
            );
            self.push(TokKind::Bad, start, start + n);
            return &rest[n..];
        };
        if hashes > u8::MAX as usize {
            let end = self.off(body);
            self.error(
                Code::UnexpectedToken,
                format!("a raw string may have at most 255 `#`, this one has {hashes}"),
                Span::new(start, end),
                "too many `#`",
                "use fewer `#`",
            );
        }
        let mut close = String::with_capacity(hashes + 1);
        close.push('"');
        close.extend(std::iter::repeat_n('#', hashes));
        match body.find(&close) {
            Some(n) => {
                let r = &body[n + close.len()..];
                let style = StrStyle::Raw {
                    hashes: hashes.min(255) as u8,
                };
                let kind = self.str_tok(body[..n].to_string(), style);
                self.push(kind, start, self.off(r));
                r
            }
            None => {
                let end = self.text.len();
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnterminatedString,
                        "this raw string is never closed",
                        Label::new(
                            self.source,
                            Span::new(start, self.off(body)),
                            "the raw string starts here",
                        ),
                    )
                    .with_label(Label::new(self.source, Span::at(end), "the file ends here"))
                    .with_help(format!("close it with `{close}`")),
                );
                self.swallowed_eof = true;
                self.push(TokKind::Bad, start, end);
                ""
            }
        }
    }

    /// `"""` … `"""`: the opening ends its line, the closing starts its own line.
    fn block_string(&mut self, rest: &'a str) -> &'a str {
        let start = self.off(rest);
        let after_open = &rest[3..];
        let line_end = after_open.find('\n').unwrap_or(after_open.len());
        let tail = &after_open[..line_end];
        if !tail.trim().is_empty() {
            let tail_start = start + 3 + (tail.len() - tail.trim_start().len());
            let tail_end = start + 3 + tail.trim_end().len();
            if let Some(close) = tail.find("\"\"\"") {
                // `"""text"""` on one line: keep it as a string, but say how to write it.
                self.error(
                    Code::UnexpectedToken,
                    "a block string's opening `\"\"\"` must end its line".to_string(),
                    Span::new(tail_start, tail_end),
                    "expected a line break after `\"\"\"`",
                    "write one-line text as \"…\", or put the text of a block string on the lines between `\"\"\"` and `\"\"\"`",
                );
                let r = &after_open[close + 3..];
                let kind = self.str_tok(tail[..close].to_string(), StrStyle::Quoted);
                self.push(kind, start, self.off(r));
                return r;
            }
            self.error(
                Code::UnexpectedToken,
                "a block string's opening `\"\"\"` must end its line".to_string(),
                Span::new(tail_start, tail_end),
                "expected a line break after `\"\"\"`",
                "start the text of a block string on the next line",
            );
        }
        // Lines after the opening line, up to a line whose first non-blank text is `"""`.
        let mut lines: Vec<&str> = Vec::new();
        let mut r = if line_end < after_open.len() {
            &after_open[line_end + 1..]
        } else {
            ""
        };
        if !tail.trim().is_empty() {
            lines.push(tail.trim_start());
        }
        loop {
            let trimmed = r.trim_start_matches([' ', '\t']);
            if let Some(after) = trimmed.strip_prefix("\"\"\"") {
                let value = dedent(&lines);
                let kind = self.str_tok(value, StrStyle::Block);
                self.push(kind, start, self.off(after));
                return after;
            }
            if r.is_empty() {
                let end = self.text.len();
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::UnterminatedString,
                        "this block string is never closed",
                        Label::new(
                            self.source,
                            Span::new(start, start + 3),
                            "the block string starts here",
                        ),
                    )
                    .with_label(Label::new(self.source, Span::at(end), "the file ends here"))
                    .with_help("close it with `\"\"\"` on its own line"),
                );
                self.swallowed_eof = true;
                self.push(TokKind::Bad, start, end);
                return "";
            }
            let n = r.find('\n').unwrap_or(r.len());
            lines.push(&r[..n]);
            r = if n < r.len() { &r[n + 1..] } else { "" };
        }
    }
}

/// The value of a block string from its raw lines: `\r` before newlines dropped, blank lines
/// emptied, the common indentation of the other lines removed, `\"""` unescaped, and every
/// line ended by a newline.
fn dedent(lines: &[&str]) -> String {
    let lines: Vec<&str> = lines.iter().map(|l| l.trim_end_matches('\r')).collect();
    let mut common: Option<&str> = None;
    for l in &lines {
        if l.trim().is_empty() {
            continue;
        }
        let ws = &l[..l.len() - l.trim_start_matches([' ', '\t']).len()];
        common = Some(match common {
            None => ws,
            Some(c) => {
                let n = c
                    .bytes()
                    .zip(ws.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..n]
            }
        });
    }
    let cut = common.map_or(0, str::len);
    let mut out = String::new();
    for l in &lines {
        if !l.trim().is_empty() {
            out.push_str(&l[cut..].replace("\\\"\"\"", "\"\"\""));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokKind> {
        lex(SourceId(0), text)
            .tokens
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn names_numbers_and_punctuation() {
        assert_eq!(
            kinds("per-repo 600 {x;}"),
            vec![
                TokKind::Ident,
                TokKind::Int(600),
                TokKind::LBrace,
                TokKind::Ident,
                TokKind::Semi,
                TokKind::RBrace,
                TokKind::Eof
            ]
        );
    }

    #[test]
    fn dedent_keeps_relative_indentation() {
        assert_eq!(dedent(&["    a", "      b", "", "    c"]), "a\n  b\n\nc\n");
        assert_eq!(dedent(&[]), "");
        assert_eq!(dedent(&["  \\\"\"\" x"]), "\"\"\" x\n");
    }

    #[test]
    fn backslash_before_escaped_quotes_in_block() {
        // `\\"""` reads as a backslash then an escaped `"""`.
        assert_eq!(dedent(&["\\\\\"\"\""]), "\\\"\"\"\n");
    }
}
