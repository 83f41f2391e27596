//! The prompt-leak lint (W0800): the prompt names an identifier that only the gold patch
//! introduces, so the prompt gives away part of the solution.
//!
//! A candidate is a code-looking identifier (`[A-Za-z_][A-Za-z0-9_]{3,}` with an `_` or a
//! camelCase hump) on an added line of a gold patch — outside its test files — that occurs
//! on no removed or context line of any gold patch, is no language builtin (`ValueError`,
//! `isinstance`, `NullPointerException`, …) and, where the repositories are readable at
//! base, occurs in none of their files of the languages the gold patches change.
//! A plain word counts only when an added line defines it as a function (`def name(`,
//! `fn name(`, `func name(`, …) and the prompt writes it as code too (in backticks or
//! followed by `(`), so English words never warn.

use std::collections::{HashMap, HashSet};

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::patch::LineKind;
use crate::span::{SourceId, Span};

use super::base::BaseTrees;
use super::patches::is_test_path;
use super::repo::RepoDraft;
use super::task::PromptDraft;
use super::Cx;

/// Where a gold patch first adds an identifier.
struct Introduced {
    source: SourceId,
    /// The identifier on the added line.
    at: Span,
    repo: String,
    /// Some added line defines it as a function (`def name(`, …).
    called: bool,
}

/// Identifier tokens of `text`: (byte offset, token).
fn identifiers(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            let prev_is_word =
                i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
            if (b.is_ascii_alphabetic() || b == b'_') && !prev_is_word {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                // A word glued to non-ASCII letters (e.g. `naïve`) is not an identifier.
                let glued = |k: usize| {
                    text[..k]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric)
                };
                let after_glued = text[i..].chars().next().is_some_and(char::is_alphanumeric);
                if !(glued(start) || after_glued) {
                    return Some((start, &text[start..i]));
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// Whether the text before a `name(` is a definition keyword (`def`, `fn`, `func`, …).
fn defines(before: &str) -> bool {
    let before = before.trim_end();
    // Go methods: `func (r *T) name(`.
    let before = if before.ends_with(')') && before.trim_start().starts_with("func") {
        "func"
    } else {
        before
    };
    let last = before
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    matches!(
        last,
        "def" | "fn" | "func" | "function" | "class" | "sub" | "fun"
    )
}

fn long_enough(id: &str) -> bool {
    id.len() >= 4
}

/// `_` anywhere, a camelCase hump (lowercase then capital), or an acronym hump
/// (`HTTPError`: two capitals then two lowercase letters). `URLs`, `HTTP`, `Cookie` are words.
fn looks_like_code(id: &str) -> bool {
    let b = id.as_bytes();
    id.contains('_')
        || b.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
        || b.windows(4).any(|w| {
            w[0].is_ascii_uppercase()
                && w[1].is_ascii_uppercase()
                && w[2].is_ascii_lowercase()
                && w[3].is_ascii_lowercase()
        })
}

pub(crate) fn check_prompt_leak(
    cx: &mut Cx<'_>,
    prompt: &PromptDraft,
    repos: &[RepoDraft],
    bases: &BaseTrees,
) {
    let mut known: HashSet<&str> = HashSet::new();
    let mut added: HashMap<&str, Introduced> = HashMap::new();
    let mut extensions: HashSet<&str> = HashSet::new();
    for r in repos {
        let Some(g) = &r.gold else {
            continue;
        };
        for f in &g.file.patch.files {
            // A gold patch's tests are not the solution the prompt could give away.
            let test_file = is_test_path(f.path());
            if !test_file {
                extensions.insert(extension(f.path()));
            }
            for h in &f.hunks {
                for l in &h.lines {
                    if l.kind != LineKind::Added {
                        for (_, id) in identifiers(&l.text) {
                            known.insert(id);
                        }
                        continue;
                    }
                    if test_file {
                        continue;
                    }
                    for (off, id) in identifiers(&l.text) {
                        if !long_enough(id) {
                            continue;
                        }
                        let called =
                            l.text[off + id.len()..].starts_with('(') && defines(&l.text[..off]);
                        // +1: the line's span starts at its `+` marker.
                        let start = l.span.start as usize + 1 + off;
                        let at = Span::new(start, start + id.len());
                        let entry = added.entry(id).or_insert_with(|| Introduced {
                            source: g.source,
                            at,
                            repo: r.name.clone(),
                            called: false,
                        });
                        if called && !entry.called {
                            // Prefer pointing at the definition.
                            entry.source = g.source;
                            entry.at = at;
                            entry.repo = r.name.clone();
                            entry.called = true;
                        }
                    }
                }
            }
        }
    }
    if added.is_empty() {
        return;
    }
    let text = prompt.prompt.text.as_str();
    let mut candidates: Vec<(usize, &str)> = Vec::new();
    for (off, id) in identifiers(text) {
        let Some(intro) = added.get(id) else {
            continue;
        };
        if known.contains(id) || is_builtin(id) || candidates.iter().any(|(_, c)| *c == id) {
            continue;
        }
        let code_like = looks_like_code(id)
            || intro.called && {
                let before = text[..off].chars().next_back();
                let after = text[off + id.len()..].chars().next();
                before == Some('`') || after == Some('(') || after == Some('`')
            };
        if code_like {
            candidates.push((off, id));
        }
    }
    let at_base = in_base_trees(bases, &extensions, &candidates);
    for (off, id) in candidates {
        if at_base.contains(id) {
            continue;
        }
        let Some(intro) = added.get(id) else {
            continue;
        };
        let at = prompt_span(cx, prompt, off, id);
        // A repository unread at base may already hold the name: say so, never guess.
        let d = if bases.unreadable.is_empty() {
            Diagnostic::new(
                Code::PromptLeak,
                format!("the prompt names `{id}`, which only the gold patch of `{}` introduces", intro.repo),
                Label::new(prompt.source, at, "named in the prompt"),
            )
            .with_help("describe the behaviour instead of naming the solution's identifiers; if the name is part of the requested interface, keep it and accept the warning with `allow W0800 \"<why>\"`")
        } else {
            Diagnostic::new(
                Code::PromptLeakUnchecked,
                format!(
                    "the prompt names `{id}`, which the gold patch of `{}` adds; whether it already exists at base is unknown: {} could not be read at base",
                    intro.repo,
                    super::suggest::list(bases.unreadable.iter().map(String::as_str))
                ),
                Label::new(prompt.source, at, "named in the prompt"),
            )
            .with_help("run `taskc check` again once the repositories are readable at base (after `taskc verify` cached them, or with `--cache`): it then warns (W0800) only if the name is new")
        };
        cx.emit(d.with_label(Label::new(
            intro.source,
            intro.at,
            "introduced by the gold patch here",
        )));
    }
}

/// `path`'s extension (`""` for none).
fn extension(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.rsplit_once('.').map_or("", |(_, e)| e)
}

/// Files larger than this are not searched for names (generated or vendored code).
const MAX_SEARCHED_FILE: usize = 2 << 20;

/// The candidates that occur, as whole words, in a base tree's files of the gold patches'
/// languages (by extension).
fn in_base_trees<'c>(
    bases: &BaseTrees,
    extensions: &HashSet<&str>,
    candidates: &[(usize, &'c str)],
) -> HashSet<&'c str> {
    let mut found: HashSet<&'c str> = HashSet::new();
    if candidates.is_empty() {
        return found;
    }
    for (_, tree) in &bases.trees {
        let files: Vec<&str> = tree
            .paths()
            .iter()
            .map(String::as_str)
            .filter(|p| extensions.contains(extension(p)))
            .collect();
        for chunk in files.chunks(256) {
            for bytes in tree.read_many(chunk).into_iter().flatten() {
                if bytes.len() > MAX_SEARCHED_FILE {
                    continue;
                }
                let text = String::from_utf8_lossy(&bytes);
                for (_, id) in candidates {
                    if !found.contains(id) && has_word(&text, id) {
                        found.insert(id);
                    }
                }
                if found.len() == candidates.len() {
                    return found;
                }
            }
        }
    }
    found
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    text.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).and_then(|k| bytes.get(k)).copied();
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Names every program in the language can use without defining them: exceptions and
/// functions of Python, JavaScript/TypeScript, Java, Go and Rust that look like code.
#[rustfmt::skip]
const BUILTINS: &[&str] = &[
    // Python
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException",
    "BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
    "BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
    "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
    "EncodingWarning", "EnvironmentError", "ExceptionGroup", "FileExistsError",
    "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit",
    "ImportError", "ImportWarning", "IndentationError", "IndexError", "InterruptedError",
    "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
    "ModuleNotFoundError", "NameError", "NotADirectoryError", "NotImplemented",
    "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
    "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError",
    "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration",
    "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit",
    "TabError", "TimeoutError", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
    "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning",
    "UserWarning", "ValueError", "ZeroDivisionError", "__init__", "__name__", "__main__",
    "__file__", "__dict__", "__repr__", "__str__", "__eq__", "__hash__", "__call__",
    "__enter__", "__exit__", "__iter__", "__next__", "__len__", "__getitem__",
    "__setitem__", "__contains__", "__all__", "__slots__", "__class__", "__post_init__",
    "__future__", "__version__", "__new__", "__del__", "__getattr__", "__setattr__",
    "__aenter__", "__aexit__", "__await__", "__bool__", "__doc__", "__module__",
    "__qualname__", "__annotations__", "__wrapped__",
    // JavaScript / TypeScript
    "EvalError", "RangeError", "URIError", "AggregateError", "ReadonlyArray",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate",
    "parseInt", "parseFloat", "isNaN", "isFinite", "encodeURIComponent",
    "decodeURIComponent", "encodeURI", "decodeURI", "structuredClone", "queueMicrotask",
    "toString", "valueOf", "hasOwnProperty", "addEventListener", "removeEventListener",
    "ArrayBuffer", "SharedArrayBuffer", "DataView", "WeakMap", "WeakSet", "WeakRef",
    "BigInt", "AbortController", "AbortSignal", "TextEncoder", "TextDecoder",
    "ReadableStream", "WritableStream", "URLSearchParams", "FormData", "XMLHttpRequest",
    "Uint8Array", "Int8Array", "Uint16Array", "Int16Array", "Uint32Array", "Int32Array",
    "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "PromiseLike",
    "NonNullable", "ReturnType", "InstanceType",
    // Java
    "NullPointerException", "IllegalArgumentException", "IllegalStateException",
    "RuntimeException", "IndexOutOfBoundsException", "ArrayIndexOutOfBoundsException",
    "UnsupportedOperationException", "ClassCastException", "NumberFormatException",
    "ArithmeticException", "InterruptedException", "IOException", "FileNotFoundException",
    "UncheckedIOException", "NoSuchElementException", "ConcurrentModificationException",
    "CloneNotSupportedException", "OutOfMemoryError", "StackOverflowError",
    "AssertionError", "StringBuilder", "HashMap", "HashSet", "ArrayList", "LinkedList",
    "TreeMap", "TreeSet", "LinkedHashMap", "LinkedHashSet", "hashCode", "getClass",
    "compareTo", "CompletableFuture",
    // Go
    "ErrUnexpectedEOF", "ErrClosed", "ErrNotExist", "ErrExist", "ErrPermission",
    "ErrInvalid", "ErrDeadlineExceeded", "DeadlineExceeded", "WithCancel",
    "WithTimeout", "WithDeadline", "WithValue", "TODO", "Errorf", "Sprintf", "Printf",
    "Println", "Fprintf", "Sprint", "ReadAll", "WriteString", "NewReader", "NewWriter",
    "NewDecoder", "NewEncoder", "MarshalJSON", "UnmarshalJSON",
    // Rust
    "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque", "BinaryHeap", "RefCell",
    "OnceCell", "OnceLock", "PhantomData", "ToString", "ToOwned", "AsRef", "AsMut",
    "TryFrom", "TryInto", "FromStr", "PartialEq", "PartialOrd", "DerefMut", "IntoIterator",
    "DoubleEndedIterator", "ExactSizeIterator", "unwrap_or", "unwrap_or_else",
    "unwrap_or_default", "map_err", "ok_or", "ok_or_else", "and_then", "to_string",
    "to_owned", "as_ref", "as_str", "into_iter", "iter_mut", "is_some", "is_none",
    "is_ok", "is_err",
];

fn is_builtin(id: &str) -> bool {
    BUILTINS.contains(&id)
}

/// Where the prompt's `id` at byte `off` of the prompt text is, in the prompt's source.
fn prompt_span(cx: &Cx<'_>, prompt: &PromptDraft, off: usize, id: &str) -> Span {
    if !prompt.inline {
        return Span::new(off, off + id.len());
    }
    // Inline strings may differ from their source (escapes, indentation): find the word in
    // the literal's source text, or fall back to the whole literal.
    let raw = cx
        .sources
        .get(prompt.source)
        .text
        .get(prompt.span.range())
        .unwrap_or("");
    let nth = identifiers(&prompt.prompt.text[..off])
        .filter(|(_, w)| *w == id)
        .count();
    identifiers(raw)
        .filter(|(_, w)| *w == id)
        .nth(nth)
        .map(|(o, _)| {
            let start = prompt.span.start as usize + o;
            Span::new(start, start + id.len())
        })
        .unwrap_or(prompt.span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_tokens() {
        let ids: Vec<&str> = identifiers("call split_jar(x) on naïve 9abc _x")
            .map(|(_, w)| w)
            .collect();
        assert_eq!(ids, vec!["call", "split_jar", "x", "on", "_x"]);
    }

    #[test]
    fn definitions() {
        assert!(defines("    def "));
        assert!(defines("pub fn "));
        assert!(defines("func (c *Client) "));
        assert!(defines("export function "));
        assert!(!defines("    return "));
        assert!(!defines("x = "));
    }

    #[test]
    fn code_shapes() {
        assert!(looks_like_code("split_jar"));
        assert!(looks_like_code("maxHeaderSize"));
        assert!(looks_like_code("CookieJar"));
        assert!(!looks_like_code("Cookie"));
        assert!(!looks_like_code("HTTP"));
        assert!(!looks_like_code("cookies"));
        assert!(looks_like_code("HTTPError"));
        assert!(!looks_like_code("URLs"));
    }
}
