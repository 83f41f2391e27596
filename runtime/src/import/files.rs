//! Reading an imported case's files. Every file read joins the case's [`SourceMap`], so a
//! diagnostic can point at a line and column in it; a missing file is a diagnostic on the
//! case folder, never a panic.

use std::path::{Path, PathBuf};

use taskc_compiler::span::Span;
use taskc_compiler::{Code, Diagnostic, Label, SourceId, SourceMap};

use super::yaml;

/// The files of one case as read so far, and what went wrong reading them.
#[derive(Debug)]
pub struct CaseFiles {
    pub root: PathBuf,
    /// How the case folder is shown in messages.
    pub shown: String,
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

/// A text file of the case.
#[derive(Debug, Clone)]
pub struct Text {
    /// Relative to the case folder.
    pub rel: String,
    pub source: SourceId,
    pub text: String,
}

/// A parsed YAML (or JSON: YAML reads it too) file of the case.
#[derive(Debug, Clone)]
pub struct Doc {
    pub rel: String,
    pub source: SourceId,
    pub root: yaml::Node,
}

impl CaseFiles {
    pub fn new(root: &Path) -> CaseFiles {
        CaseFiles {
            root: root.to_path_buf(),
            shown: root.display().to_string(),
            sources: SourceMap::new(),
            diagnostics: Vec::new(),
        }
    }

    /// `rel` as users see it.
    pub fn shown(&self, rel: &str) -> String {
        format!("{}/{rel}", self.shown.trim_end_matches('/'))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).is_file()
    }

    /// A diagnostic with its primary label on `source` at `at`.
    pub fn at(&self, source: SourceId, at: usize, label: &str) -> Label {
        let text = &self.sources.get(source).text;
        let end = text[at.min(text.len())..]
            .find('\n')
            .map_or(text.len(), |i| at + i)
            .max(at);
        Label::new(source, Span::new(at, end.min(text.len())), label)
    }

    /// Report `d`.
    pub fn emit(&mut self, d: Diagnostic) {
        self.diagnostics.push(d);
    }

    /// Report a problem about a whole file (missing, unreadable), labelled on an empty
    /// source named after it.
    pub fn file_problem(&mut self, code: Code, rel: &str, message: String, help: &str) {
        let source = self.sources.add(self.shown(rel), String::new());
        self.emit(
            Diagnostic::new(code, message, Label::new(source, Span::new(0, 0), "here"))
                .with_help(help.to_string()),
        );
    }

    /// Read a text file the case must have.
    pub fn text(&mut self, rel: &str, what: &str) -> Option<Text> {
        let path = self.root.join(rel);
        match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => {
                    let source = self.sources.add(self.shown(rel), text.clone());
                    Some(Text {
                        rel: rel.to_string(),
                        source,
                        text,
                    })
                }
                Err(_) => {
                    self.file_problem(
                        Code::ImportFileMissing,
                        rel,
                        format!("the {what} `{}` is not UTF-8 text", self.shown(rel)),
                        "save it as UTF-8",
                    );
                    None
                }
            },
            Err(e) => {
                let missing = e.kind() == std::io::ErrorKind::NotFound;
                self.file_problem(
                    Code::ImportFileMissing,
                    rel,
                    if missing {
                        format!("the case has no {what} `{}`", self.shown(rel))
                    } else {
                        format!("the {what} `{}` cannot be read: {e}", self.shown(rel))
                    },
                    "every case folder needs this file; check the case path",
                );
                None
            }
        }
    }

    /// Read and parse a YAML (or JSON) file the case must have.
    pub fn yaml(&mut self, rel: &str, what: &str) -> Option<Doc> {
        let t = self.text(rel, what)?;
        match yaml::parse(&t.text) {
            Ok(root) => Some(Doc {
                rel: t.rel,
                source: t.source,
                root,
            }),
            Err(e) => {
                let label = self.at(t.source, e.at, "here");
                self.emit(
                    Diagnostic::new(
                        Code::ImportSyntax,
                        format!(
                            "the {what} `{}` does not parse: {}",
                            self.shown(rel),
                            e.message
                        ),
                        label,
                    )
                    .with_help("fix the YAML syntax at the marked line"),
                );
                None
            }
        }
    }

    /// A field's node, or a diagnostic at its parent when it is missing.
    pub fn field<'d>(
        &mut self,
        doc: &Doc,
        parent: &'d yaml::Node,
        key: &str,
        what: &str,
    ) -> Option<&'d yaml::Node> {
        match parent.get(key) {
            Some(n) if n.value != yaml::Value::Null => Some(n),
            _ => {
                let label = self.at(doc.source, parent.at, format!("no `{key}` here").as_str());
                self.emit(
                    Diagnostic::new(
                        Code::ImportField,
                        format!("`{}` lacks `{key}` ({what})", doc.rel),
                        label,
                    )
                    .with_help(format!("add `{key}:` to this mapping")),
                );
                None
            }
        }
    }

    /// A field that must be a string.
    pub fn string(
        &mut self,
        doc: &Doc,
        parent: &yaml::Node,
        key: &str,
        what: &str,
    ) -> Option<(String, usize)> {
        let n = self.field(doc, parent, key, what)?;
        match n.as_str() {
            Some(s) => Some((s.to_string(), n.at)),
            None => {
                let label = self.at(doc.source, n.at, "expected a string");
                self.emit(
                    Diagnostic::new(
                        Code::ImportField,
                        format!(
                            "`{key}` in `{}` must be a string ({what}), found {}",
                            doc.rel,
                            n.describe()
                        ),
                        label,
                    )
                    .with_help(format!("write `{key}: <text>`")),
                );
                None
            }
        }
    }

    /// A field that may be absent but must be a string when present.
    pub fn opt_string(&mut self, doc: &Doc, parent: &yaml::Node, key: &str) -> Option<String> {
        let n = parent.get(key)?;
        match &n.value {
            yaml::Value::Null => None,
            yaml::Value::Scalar { text, .. } => Some(text.clone()),
            _ => {
                let label = self.at(doc.source, n.at, "expected a string");
                self.emit(
                    Diagnostic::new(
                        Code::ImportField,
                        format!(
                            "`{key}` in `{}` must be a string, found {}",
                            doc.rel,
                            n.describe()
                        ),
                        label,
                    )
                    .with_help(format!("write `{key}: <text>`")),
                );
                None
            }
        }
    }

    pub fn into_parts(self) -> (Vec<Diagnostic>, SourceMap) {
        (self.diagnostics, self.sources)
    }
}
