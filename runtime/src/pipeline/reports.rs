//! Writing a scoring report: `report.json`, `report.md` and `report.html` into one folder,
//! each atomically.

use std::path::Path;

use super::PipelineError;
use crate::report::{html, markdown, Report};

/// Write the three reports of `report` into `dir` (created if missing); the Markdown text.
pub fn write_reports(dir: &Path, report: &Report) -> Result<String, PipelineError> {
    let md = markdown::render(report);
    let html = html::render(report).map_err(|e| PipelineError::Report {
        detail: e.to_string(),
    })?;
    std::fs::create_dir_all(dir).map_err(|source| PipelineError::Io {
        what: format!("cannot create {}", dir.display()),
        source,
    })?;
    for (name, text) in [
        ("report.json", report.to_json_pretty()),
        ("report.md", md.clone()),
        ("report.html", html),
    ] {
        let path = dir.join(name);
        crate::atomic::write_atomic(&path, text.as_bytes()).map_err(|source| {
            PipelineError::Io {
                what: format!("cannot write {}", path.display()),
                source,
            }
        })?;
    }
    Ok(md)
}
