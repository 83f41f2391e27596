//! `taskc import`: other benchmarks' tasks become checked taskc specs.
//!
//! Each importer reads one benchmark's files into typed values ([`wideswe`], [`swebench`]),
//! builds the spec as a syntax tree ([`build`]) printed by the compiler's formatter (so the
//! output is canonical), checks the generated spec before anything is written, and writes one
//! folder per task ([`output`]): the spec, its prompt, patches, environment files and the
//! imported oracle ([`oracle`]). What cannot be imported faithfully is a diagnostic with a
//! code, the case and the file that caused it (line and column for YAML and JSON); a batch
//! goes on past a bad case and reports every case ([`ImportReport`]).

pub mod build;
pub mod files;
pub mod ids;
mod names;
pub mod oracle;
pub mod output;
pub mod summary;
pub mod swebench;
pub mod wideswe;
pub mod yaml;

use std::path::PathBuf;

use taskc_compiler::{Diagnostic, Severity, SourceMap};

/// What every importer is told.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The folder that receives one sub-folder per imported task.
    pub out: PathBuf,
    /// Replace a task folder that already exists.
    pub force: bool,
    /// Rebase the case's Dockerfile `FROM` onto this image (WideSWE), or build the SWE-bench
    /// environment on it.
    pub base_image: Option<String>,
    /// The root of a WideSWE checkout (`cases/`, `benchmark/images/`), when importing from one:
    /// the image recipes the cases name are read from it.
    pub root: Option<PathBuf>,
}

/// How one case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaseStatus {
    /// Imported; nothing to review.
    Clean,
    /// Imported; warnings (notes) a curator should review.
    WithNotes,
    /// Not imported: at least one error; nothing was written for it.
    Failed,
}

impl CaseStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CaseStatus::Clean => "clean",
            CaseStatus::WithNotes => "with notes",
            CaseStatus::Failed => "failed",
        }
    }
}

/// One case's outcome: its diagnostics (with the texts they point into) and where it went.
#[derive(Debug, Clone)]
pub struct CaseReport {
    /// The case or instance id (or the folder name when the id could not be read).
    pub case: String,
    /// The written task folder, when imported.
    pub out: Option<PathBuf>,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: SourceMap,
    /// Runners, parsers, images and services, for the per-case table.
    pub summary: summary::CaseSummary,
}

impl CaseReport {
    pub fn status(&self) -> CaseStatus {
        if self.out.is_none() || self.diagnostics.iter().any(Diagnostic::is_error) {
            CaseStatus::Failed
        } else if self
            .diagnostics
            .iter()
            .any(|d| d.severity() == Severity::Warning)
        {
            CaseStatus::WithNotes
        } else {
            CaseStatus::Clean
        }
    }
}

/// Every case of one `taskc import` run, in the order given.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    pub cases: Vec<CaseReport>,
}

impl ImportReport {
    /// (clean, with notes, failed).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for r in &self.cases {
            match r.status() {
                CaseStatus::Clean => c.0 += 1,
                CaseStatus::WithNotes => c.1 += 1,
                CaseStatus::Failed => c.2 += 1,
            }
        }
        c
    }

    /// The summary table: one row per case, then the totals.
    pub fn table(&self) -> String {
        let width = self
            .cases
            .iter()
            .map(|c| c.case.chars().count())
            .max()
            .unwrap_or(4)
            .max(4);
        let mut out = format!(
            "{:<width$}  {:<10}  {:>6}  {:>5}\n",
            "case", "status", "errors", "notes"
        );
        for c in &self.cases {
            let errors = c.diagnostics.iter().filter(|d| d.is_error()).count();
            let notes = c.diagnostics.len() - errors;
            out.push_str(&format!(
                "{:<width$}  {:<10}  {:>6}  {:>5}\n",
                c.case,
                c.status().as_str(),
                errors,
                notes
            ));
        }
        let (clean, notes, failed) = self.counts();
        out.push_str(&format!(
            "{} case(s): {clean} clean, {notes} with notes, {failed} failed\n",
            self.cases.len()
        ));
        out
    }
}
