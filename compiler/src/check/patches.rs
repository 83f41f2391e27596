//! Patch files named by a spec: read, parse (E0400 pointing into the patch), non-empty
//! (E0403), and the test-file heuristic behind W0401/W0402.

use sha2::{Digest, Sha256};

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::model::PatchFile;
use crate::patch::parse_patch;
use crate::span::{SourceId, Span};

use super::Cx;

/// A patch file read and parsed, with where it lives.
#[derive(Debug, Clone)]
pub(crate) struct LoadedPatch {
    pub file: PatchFile,
    /// The patch text's source in the map.
    pub source: SourceId,
    /// The `file("…")` string in the spec.
    pub named_at: Span,
}

impl Cx<'_> {
    /// Read and parse the patch `path` named at `span` (`what`: "gold patch", "hidden test patch").
    pub(crate) fn load_patch(&mut self, path: &str, span: Span, what: &str) -> Option<LoadedPatch> {
        let f = self.read_text(path, span, what)?;
        if let Some(at) = colour_code(&f.text) {
            self.emit(
                Diagnostic::new(
                    Code::PatchColourCodes,
                    format!(
                        "the {what} `{}` was saved with terminal colour codes",
                        f.path
                    ),
                    Label::new(f.source, at, "a colour code (ANSI escape)"),
                )
                .with_label(self.label(span, "patch named here"))
                .with_help("write the patch without colours: `git diff --no-color <base> > file.patch` (a pager or `color.ui=always` adds them)"),
            );
            return None;
        }
        let patch = match parse_patch(&f.text) {
            Ok(p) => p,
            Err(e) => {
                let mut d = Diagnostic::new(
                    Code::InvalidPatch,
                    format!(
                        "the {what} `{}` is not a valid unified diff: {}",
                        f.path, e.message
                    ),
                    Label::new(f.source, e.span, e.message.clone()),
                )
                .with_label(self.label(span, "patch named here"));
                if let Some(h) = e.help {
                    d = d.with_help(h);
                }
                self.emit(d);
                return None;
            }
        };
        if patch.files.is_empty() {
            self.emit(
                Diagnostic::new(
                    Code::EmptyPatch,
                    format!("the {what} `{}` changes nothing", f.path),
                    self.label(span, "this patch has no file changes"),
                )
                .with_help("write the patch with `git diff <base>` in the repository; an empty diff usually means the changes were not staged or committed"),
            );
            return None;
        }
        let digest = hex::encode(Sha256::digest(f.text.as_bytes()));
        Some(LoadedPatch {
            file: PatchFile {
                path: f.path,
                text: f.text,
                digest,
                patch,
            },
            source: f.source,
            named_at: span,
        })
    }

    /// W0401: a hidden test patch that changes files that do not look like tests.
    pub(crate) fn lint_test_patch(&mut self, repo: &str, p: &LoadedPatch) {
        let non_tests: Vec<&crate::patch::FilePatch> = p
            .file
            .patch
            .files
            .iter()
            .filter(|f| !is_test_path(f.path()) && !crate::inline_tests::candidate(f))
            .collect();
        if non_tests.is_empty() {
            return;
        }
        let names: Vec<&str> = non_tests.iter().map(|f| f.path()).collect();
        let mut d = Diagnostic::new(
            Code::TestPatchTouchesCode,
            format!(
                "the hidden test patch of `{repo}` changes files that are not tests: {}",
                super::suggest::list(names.iter().copied())
            ),
            self.label(p.named_at, "hidden test patch"),
        )
        .with_help("hidden tests are applied after the agent's work: source changes there hide part of the fix from the agent; move them into the gold patch");
        for f in non_tests.iter().take(5) {
            d = d.with_label(Label::new(
                p.source,
                header_line(&p.file.text, f.span),
                "not a test file",
            ));
        }
        self.emit(d);
    }

    /// W0401 for a Rust source file the hidden test patch changes outside its
    /// `#[cfg(test)]` modules (`why`), read at base: runs restore it whole.
    pub(crate) fn lint_inline_tests(
        &mut self,
        repo: &str,
        p: &LoadedPatch,
        f: &crate::patch::FilePatch,
        why: &str,
    ) {
        let d = Diagnostic::new(
            Code::TestPatchTouchesCode,
            format!(
                "the hidden test patch of `{repo}` changes `{}` outside its `#[cfg(test)]` modules: {why}",
                f.path()
            ),
            self.label(p.named_at, "hidden test patch"),
        )
        .with_label(Label::new(
            p.source,
            header_line(&p.file.text, f.span),
            "restored to base whole before the hidden tests apply: a solution's change to it is lost",
        ))
        .with_help("keep hidden unit tests inside `#[cfg(test)] mod … { … }` (each on whole lines) and move every other change into the gold patch");
        self.emit(d);
    }

    /// W0402: a gold patch that changes only test files.
    pub(crate) fn lint_gold_patch(&mut self, repo: &str, p: &LoadedPatch) {
        if p.file.patch.files.iter().all(|f| is_test_path(f.path())) {
            self.emit(
                Diagnostic::new(
                    Code::GoldTouchesOnlyTests,
                    format!("the gold patch of `{repo}` changes only test files"),
                    self.label(p.named_at, "gold patch"),
                )
                .with_help("the gold patch is the reference fix and should change the code under test; were the gold and test patches swapped?"),
            );
        }
    }
}

/// The first colour code (`ESC [ … m`) that starts a line or follows one, as written by
/// `git diff --color`; an escape elsewhere in a line may be file content and is left alone.
fn colour_code(text: &str) -> Option<Span> {
    /// The length of the colour code `s` starts with.
    fn sgr(s: &str) -> Option<usize> {
        let rest = s.strip_prefix("\u{1b}[")?;
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
        rest[n..].starts_with('m').then_some(2 + n + 1)
    }
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        // At the line's start, or after a marker (`+ESC[32m`).
        for lead in [0, 1] {
            if lead == 1 && !line.starts_with(['+', '-', ' ']) {
                continue;
            }
            if let Some(len) = line.get(lead..).and_then(sgr) {
                let start = line_start + lead;
                return Some(Span::new(start, start + len));
            }
        }
        line_start += line.len();
    }
    None
}

/// The first line of a file patch's span (its `diff --git` or `---` line).
pub(crate) fn header_line(text: &str, span: Span) -> Span {
    let start = span.start as usize;
    let end = text
        .get(start..span.end as usize)
        .and_then(|s| s.find('\n'))
        .map(|i| start + i)
        .unwrap_or(span.end as usize);
    let end = if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
        end - 1
    } else {
        end
    };
    Span::new(start, end)
}

/// Whether `path` looks like a test file: a `test`/`tests`/`__tests__`/`spec`/`testdata`
/// folder, or a test file name (`test_*.py`, `*_test.py`, `*_test.go`, `*.test.js`,
/// `*.spec.*`, `*Test.java`, `conftest.py`, …).
pub fn is_test_path(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let Some((file, dirs)) = parts.split_last() else {
        return false;
    };
    if dirs.iter().any(|d| {
        matches!(
            *d,
            "test" | "tests" | "__tests__" | "spec" | "specs" | "testdata" | "testing"
        )
    }) {
        return true;
    }
    let lower = file.to_ascii_lowercase();
    if lower == "conftest.py" {
        return true;
    }
    let (stem, ext) = match file.rsplit_once('.') {
        Some((s, e)) => (s, e),
        None => (*file, ""),
    };
    (stem.starts_with("test_") && ext == "py")
        || (stem.ends_with("_test")
            && matches!(ext, "py" | "go" | "rs" | "rb" | "c" | "cc" | "cpp"))
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("_spec")
        || (ext == "java" || ext == "kt")
            && (stem.ends_with("Test") || stem.ends_with("Tests") || stem.ends_with("IT"))
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_files_are_recognised() {
        for p in [
            "tests/test_cookies.py",
            "test_x.py",
            "pkg/x_test.go",
            "src/a.test.ts",
            "src/a.test.js",
            "src/a.spec.tsx",
            "src/__tests__/a.js",
            "src/test/java/FooTest.java",
            "FooTest.java",
            "conftest.py",
            "pkg/testdata/in.json",
            "spec/models/user_spec.rb",
            "x_test.py",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/cookies.py",
            "contest.py",
            "README.md",
            "src/testing_utils.py",
            "latest.py",
            "pkg/attest.go",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
    }
}
