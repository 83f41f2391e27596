//! The checker: gives a parsed document its meaning and reports every semantic error at once.
//!
//! One file per concept: [`fields`] reads blocks against a schema, [`values`] reads field
//! values, [`task`] the task block, [`repo`] repositories and tests, [`env`] recipes,
//! [`paths`] file names and reads, [`patches`] patch files and the test-file heuristic,
//! [`graph`] `uses` edges, [`base`] checks against the repositories at base, [`relax`] relaxations, [`leak`] the prompt-leak lint.

mod allow;
mod base;
mod contexts;
mod env;
mod fields;
mod graph;
mod leak;
mod patches;
mod paths;
mod protect;
mod relax;
mod repo;
mod select;
mod service;
pub mod suggest;
mod task;
mod values;

use std::collections::HashMap;

pub use patches::is_test_path;

use crate::diagnostic::{Diagnostic, Diagnostics, Label};
use crate::loader::Loader;
use crate::model::Task;
use crate::source::SourceMap;
use crate::span::{SourceId, Span};
use crate::syntax;

/// Everything `check` learned: the texts it read (for rendering), the task when there were
/// no errors, and every diagnostic (errors and warnings).
#[derive(Debug, Clone)]
pub struct Checked {
    pub sources: SourceMap,
    pub task: Option<Task>,
    pub diagnostics: Diagnostics,
    /// Warning codes the spec accepts (`allow W0800 "…"`): already left out of
    /// `diagnostics`; the caller leaves them out of its own (lock) warnings too.
    pub allowed: Vec<crate::codes::Code>,
}

impl Checked {
    /// Whether `d` is a warning the spec accepts.
    pub fn is_allowed(&self, d: &Diagnostic) -> bool {
        d.severity() == crate::diagnostic::Severity::Warning && self.allowed.contains(&d.code)
    }
}

/// Check the spec at display path `spec_path` whose bytes are `bytes`. `loader` is rooted
/// at the spec's folder.
///
/// The spec is source 0 of the returned [`SourceMap`]; files it names follow in the order
/// read. Diagnostics come sorted (source, position, code).
pub fn check_spec(spec_path: &str, bytes: &[u8], loader: &dyn Loader) -> Checked {
    let spec_path = spec_path.replace('\\', "/");
    let mut sources = SourceMap::new();
    let text = match syntax::decode(SourceId(0), bytes) {
        Ok(t) => t,
        Err(d) => {
            sources.add(
                spec_path.clone(),
                String::from_utf8_lossy(bytes).into_owned(),
            );
            return Checked {
                sources,
                task: None,
                diagnostics: Diagnostics(vec![d]),
                allowed: Vec::new(),
            };
        }
    };
    let spec = sources.add(spec_path.clone(), text);
    let parsed = syntax::parse(spec, text);
    let spec_dir = match spec_path.rfind('/') {
        Some(i) => spec_path[..i].to_string(),
        None => String::new(),
    };
    let syntax_errors = parsed.has_errors();
    let mut cx = Cx {
        loader,
        syntax_errors,
        sources,
        diags: Diagnostics(parsed.diagnostics),
        spec,
        spec_dir,
        text_cache: HashMap::new(),
        allowed: Vec::new(),
    };
    let task = task::check_document(&mut cx, &parsed.document, &spec_path, bytes);
    let task = if cx.diags.has_errors() { None } else { task };
    let allowed = cx.allowed;
    let mut diagnostics = cx.diags.sorted();
    diagnostics.0.retain(|d| {
        d.severity() != crate::diagnostic::Severity::Warning || !allowed.contains(&d.code)
    });
    Checked {
        sources: cx.sources,
        task,
        diagnostics,
        allowed,
    }
}

/// The checker's state: where diagnostics go, what has been read.
pub(crate) struct Cx<'a> {
    pub loader: &'a dyn Loader,
    pub sources: SourceMap,
    pub diags: Diagnostics,
    /// The spec's own source.
    pub spec: SourceId,
    /// The spec's folder as displayed (`""` for the current folder).
    pub spec_dir: String,
    /// Files already read: normalised path → source.
    pub text_cache: HashMap<String, SourceId>,
    /// The parser reported errors: statements may be missing, so "missing field"-style
    /// diagnostics are held back (they would only echo the syntax error).
    pub syntax_errors: bool,
    /// Warning codes accepted by `allow` statements.
    pub allowed: Vec<crate::codes::Code>,
}

impl Cx<'_> {
    /// A label in the spec.
    pub(crate) fn label(&self, span: Span, text: impl Into<String>) -> Label {
        Label::new(self.spec, span, text)
    }

    pub(crate) fn emit(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    /// The text of the spec at `span`.
    pub(crate) fn spec_text(&self, span: Span) -> &str {
        self.sources
            .get(self.spec)
            .text
            .get(span.range())
            .unwrap_or("")
    }
}
