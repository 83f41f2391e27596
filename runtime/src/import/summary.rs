//! The per-case import table a benchmark author reads after a batch (`taskc import …
//! --report FILE`): for each case its status, the runner and parser of each test profile, the
//! images its environment stands on, the services it needs and every note, as JSON or
//! Markdown.

use serde::Serialize;
use taskc_compiler::{Diagnostic, SourceMap};

use super::{CaseReport, ImportReport};

/// What one case is made of, as far as the importer read it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CaseSummary {
    /// One row per scored repository's test profile.
    pub profiles: Vec<ProfileRow>,
    /// The images the case's tests run in, each with how the importer provides it.
    pub images: Vec<ImageRow>,
    /// Services the case needs beside the test process (compose services, servers its
    /// scripts start): recorded, not started by the spec.
    pub services: Vec<String>,
}

/// A repository's test profile: its runner and the parser chosen for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProfileRow {
    pub repo: String,
    pub profile: String,
    /// The runner as WideSWE's census names it (`vitest`, `go test`, …), when one was found.
    pub runner: Option<String>,
    /// The parser the spec names; `None` when no parser of this taskc reads the runner.
    pub parser: Option<String>,
    /// The parser a dedicated implementation would carry, when another stands in or none
    /// exists.
    pub needs: Option<String>,
}

/// An image of the case's environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageRow {
    /// As the case names it (`ecosyncbench/base/go:1.26-bookworm`, `golang:1.26-bookworm`).
    pub name: String,
    /// Where its recipe came from, or why it has none.
    pub from: String,
}

#[derive(Serialize)]
struct JsonNote<'a> {
    code: &'static str,
    severity: &'static str,
    message: &'a str,
    at: String,
}

#[derive(Serialize)]
struct JsonCase<'a> {
    case: &'a str,
    status: &'static str,
    out: Option<String>,
    #[serde(flatten)]
    summary: &'a CaseSummary,
    notes: Vec<JsonNote<'a>>,
}

fn place(d: &Diagnostic, sources: &SourceMap) -> String {
    let f = sources.get(d.primary.source);
    let (line, col) = f.line_col(d.primary.span.start as usize);
    format!("{}:{line}:{col}", f.name)
}

fn notes<'a>(c: &'a CaseReport) -> Vec<JsonNote<'a>> {
    c.diagnostics
        .iter()
        .map(|d| JsonNote {
            code: d.code.as_str(),
            severity: if d.is_error() { "error" } else { "warning" },
            message: &d.message,
            at: place(d, &c.sources),
        })
        .collect()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

impl ImportReport {
    /// The table as JSON: `{"cases": [{case, status, out, profiles, images, services, notes}]}`.
    pub fn to_json(&self) -> String {
        let cases: Vec<JsonCase<'_>> = self
            .cases
            .iter()
            .map(|c| JsonCase {
                case: &c.case,
                status: c.status().as_str(),
                out: c.out.as_ref().map(|p| p.display().to_string()),
                summary: &c.summary,
                notes: notes(c),
            })
            .collect();
        let (clean, with_notes, failed) = self.counts();
        let value = serde_json::json!({
            "schema": "taskc.import-report/1",
            "totals": {"clean": clean, "with_notes": with_notes, "failed": failed},
            "cases": cases,
        });
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    }

    /// The table as Markdown: one row per case, then each case's notes.
    pub fn to_markdown(&self) -> String {
        let (clean, with_notes, failed) = self.counts();
        let mut out = format!(
            "# Import report\n\n{} case(s): {clean} clean, {with_notes} with notes, {failed} failed\n\n| case | status | runners (repo: runner → parser) | images | services | notes |\n|---|---|---|---|---|---|\n",
            self.cases.len()
        );
        for c in &self.cases {
            let s = &c.summary;
            let runners: Vec<String> = s
                .profiles
                .iter()
                .map(|p| {
                    let runner = p.runner.as_deref().unwrap_or("?");
                    match (&p.parser, &p.needs) {
                        (Some(parser), None) => format!("{}: {runner} → {parser}", p.repo),
                        (Some(parser), Some(n)) => {
                            format!("{}: {runner} → {parser} (until `{n}`)", p.repo)
                        }
                        (None, Some(n)) => format!("{}: {runner} → none (needs `{n}`)", p.repo),
                        (None, None) => format!("{}: {runner} → none", p.repo),
                    }
                })
                .collect();
            let images: Vec<String> = s
                .images
                .iter()
                .map(|i| format!("`{}` ({})", i.name, i.from))
                .collect();
            let mut codes: Vec<&str> = c.diagnostics.iter().map(|d| d.code.as_str()).collect();
            codes.sort_unstable();
            let mut counted: Vec<String> = Vec::new();
            for code in &codes {
                let n = codes.iter().filter(|x| *x == code).count();
                let t = if n > 1 {
                    format!("{code}×{n}")
                } else {
                    code.to_string()
                };
                if !counted.contains(&t) {
                    counted.push(t);
                }
            }
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                cell(&c.case),
                c.status().as_str(),
                cell(&runners.join("; ")),
                cell(&images.join("; ")),
                cell(&if s.services.is_empty() {
                    "none".to_string()
                } else {
                    s.services.join(", ")
                }),
                counted.join(" ")
            ));
        }
        for c in self.cases.iter().filter(|c| !c.diagnostics.is_empty()) {
            out.push_str(&format!("\n## {}\n\n", c.case));
            for n in notes(c) {
                out.push_str(&format!(
                    "- {} {} ({}): {}\n",
                    n.severity,
                    n.code,
                    n.at,
                    cell(n.message)
                ));
            }
        }
        out
    }
}
