//! Paths named by a spec: lexical normalisation (no absolute paths, no `..` escaping the
//! spec's folder) and reading through the [`Loader`](crate::loader::Loader).

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::loader::LoadError;
use crate::span::{SourceId, Span};

use super::Cx;

/// Why a path was refused before it reached the loader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathProblem {
    Empty,
    Absolute,
    Escapes,
}

/// Normalise a relative `/`-separated path: drop `.` and empty parts, resolve `..`.
/// Backslashes count as separators so Windows-style paths are judged the same way.
pub(crate) fn normalise(path: &str) -> Result<String, PathProblem> {
    if path.trim().is_empty() {
        return Err(PathProblem::Empty);
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with('/') || path.starts_with('\\') || path.starts_with('~') || drive {
        return Err(PathProblem::Absolute);
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(PathProblem::Escapes);
                }
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(PathProblem::Empty);
    }
    Ok(parts.join("/"))
}

/// What a file read gave: its normalised path and text, added to the source map.
#[derive(Debug, Clone)]
pub(crate) struct TextFile {
    pub path: String,
    pub text: String,
    pub source: SourceId,
}

impl Cx<'_> {
    /// Check `path` (written at `span` in the spec) and normalise it, or report why not.
    pub(crate) fn checked_path(&mut self, path: &str, span: Span, what: &str) -> Option<String> {
        match normalise(path) {
            Ok(p) => Some(p),
            Err(PathProblem::Empty) => {
                self.emit(
                    Diagnostic::new(
                        Code::InvalidValue,
                        format!("the {what} path is empty"),
                        self.label(span, "empty path"),
                    )
                    .with_help(
                        "write a path relative to the spec's folder, e.g. \"gold/repo.patch\"",
                    ),
                );
                None
            }
            Err(PathProblem::Absolute) => {
                self.emit(
                    Diagnostic::new(
                        Code::PathEscapes,
                        format!("the {what} path `{path}` is absolute"),
                        self.label(span, "absolute path"),
                    )
                    .with_help("paths are relative to the spec's folder so a task can be moved and shared; copy the file next to the spec"),
                );
                None
            }
            Err(PathProblem::Escapes) => {
                self.emit(
                    Diagnostic::new(
                        Code::PathEscapes,
                        format!("the {what} path `{path}` leaves the spec's folder"),
                        self.label(span, "`..` climbs above the spec's folder"),
                    )
                    .with_help("a task only reads files inside its own folder; move the file under the spec's folder"),
                );
                None
            }
        }
    }

    /// The path as users see it: the spec's folder joined with `rel`.
    pub(crate) fn display_path(&self, rel: &str) -> String {
        if self.spec_dir.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{}", self.spec_dir, rel)
        }
    }

    /// Report a loader failure for `rel` (named at `span`).
    pub(crate) fn load_error(&mut self, err: LoadError, rel: &str, span: Span, what: &str) {
        let shown = self.display_path(rel);
        let d = match err {
            LoadError::NotFound => Diagnostic::new(
                Code::FileNotFound,
                format!("the {what} `{rel}` does not exist (looked for `{shown}`)"),
                self.label(span, "not found"),
            )
            .with_help(format!(
                "{}paths are resolved relative to the spec's folder{}; check the spelling",
                match self.closest_path(rel) {
                    Some(p) => format!("did you mean `{p}`? "),
                    None => String::new(),
                },
                if self.spec_dir.is_empty() { String::new() } else { format!(" `{}`", self.spec_dir) }
            )),
            LoadError::Escapes => Diagnostic::new(
                Code::PathEscapes,
                format!("the {what} `{rel}` resolves outside the spec's folder (through a symbolic link)"),
                self.label(span, "leaves the spec's folder"),
            )
            .with_help("copy the file into the task's folder instead of linking to it"),
            LoadError::Other(msg) => Diagnostic::new(
                Code::FileUnreadable,
                format!("the {what} `{rel}` cannot be read: {msg}"),
                self.label(span, "unreadable"),
            )
            .with_help("check the file's permissions"),
        };
        self.emit(d);
    }

    /// The existing path closest to the missing `rel`: each component that does not exist
    /// replaced by the closest name in its folder (listed through the loader).
    pub(crate) fn closest_path(&self, rel: &str) -> Option<String> {
        let mut found = String::new();
        for part in rel.split('/') {
            let names = self.loader.list_dir(&found).ok()?;
            let name = if names.iter().any(|n| n == part) {
                part
            } else {
                super::suggest::closest(part, names.iter().map(String::as_str))?
            };
            if !found.is_empty() {
                found.push('/');
            }
            found.push_str(name);
        }
        (found != rel && self.loader.kind(&found).is_ok()).then_some(found)
    }

    /// Read a text file (prompt, patch) named at `span`, add it to the source map.
    pub(crate) fn read_text(&mut self, path: &str, span: Span, what: &str) -> Option<TextFile> {
        let rel = self.checked_path(path, span, what)?;
        if let Some(&source) = self.text_cache.get(&rel) {
            return Some(TextFile {
                path: rel,
                text: self.sources.get(source).text.clone(),
                source,
            });
        }
        let bytes = match self.loader.read(&rel) {
            Ok(b) => b,
            Err(e) => {
                self.load_error(e, &rel, span, what);
                return None;
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                let source = self.sources.add(self.display_path(&rel), lossy);
                self.emit(
                    Diagnostic::new(
                        Code::FileUnreadable,
                        format!("the {what} `{rel}` is not valid UTF-8 (bad byte at offset {at})"),
                        self.label(span, "named here"),
                    )
                    .with_label(Label::new(source, Span::new(at, at + 1), "not UTF-8"))
                    .with_help("save the file as UTF-8; binary files cannot be prompts or patches"),
                );
                return None;
            }
        };
        let source = self.sources.add(self.display_path(&rel), text.clone());
        self.text_cache.insert(rel.clone(), source);
        let f = TextFile {
            path: rel,
            text,
            source,
        };
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_lexically() {
        assert_eq!(normalise("gold/./x.patch"), Ok("gold/x.patch".into()));
        assert_eq!(normalise("a/../b"), Ok("b".into()));
        assert_eq!(normalise("a//b/"), Ok("a/b".into()));
        assert_eq!(normalise("../x"), Err(PathProblem::Escapes));
        assert_eq!(normalise("a/../../x"), Err(PathProblem::Escapes));
        assert_eq!(normalise("/etc/passwd"), Err(PathProblem::Absolute));
        assert_eq!(normalise("C:\\x"), Err(PathProblem::Absolute));
        assert_eq!(normalise(""), Err(PathProblem::Empty));
        assert_eq!(normalise("."), Err(PathProblem::Empty));
    }
}
