//! Writing a scoring report: `report.json`, `report.md` and `report.html` into one folder,
//! each atomically, with every run's log linked relative to that folder.

use std::path::{Component, Path, PathBuf};

use super::PipelineError;
use crate::report::{html, markdown, Report};

/// Write the three reports of `report` into `dir` (created if missing); the Markdown text.
/// The log paths of every row (`run_logs`) are first made relative to `dir`, so a link in
/// any of the three opens the log wherever the cache and the folder are.
pub fn write_reports(dir: &Path, report: &mut Report) -> Result<String, PipelineError> {
    std::fs::create_dir_all(dir).map_err(|source| PipelineError::Io {
        what: format!("cannot create {}", dir.display()),
        source,
    })?;
    link_logs(dir, report);
    let md = markdown::render(report);
    let html = html::render(report).map_err(|e| PipelineError::Report {
        detail: e.to_string(),
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

/// Every row's `run_logs` relative to `dir` (which exists). A path that cannot be resolved
/// (the log is gone) is left as it was.
fn link_logs(dir: &Path, report: &mut Report) {
    let Ok(base) = dir.canonicalize() else { return };
    for row in &mut report.rows {
        for path in row.run_logs.values_mut() {
            if let Some(rel) = Path::new(path.as_str())
                .canonicalize()
                .ok()
                .and_then(|p| relative_to(&p, &base))
            {
                *path = rel.to_string_lossy().into_owned();
            }
        }
    }
}

/// `path` relative to `base` (both absolute and canonical): `..` up to their common
/// ancestor, then down. `None` when they share no root (another drive).
fn relative_to(path: &Path, base: &Path) -> Option<PathBuf> {
    let p: Vec<Component<'_>> = path.components().collect();
    let b: Vec<Component<'_>> = base.components().collect();
    if p.first() != b.first() {
        return None;
    }
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_is_linked_up_to_the_common_folder_then_down() {
        let rel = |p: &str, b: &str| relative_to(Path::new(p), Path::new(b));
        assert_eq!(
            rel("/c/results/docker/r.proxy.log", "/w/out"),
            Some(PathBuf::from("../../c/results/docker/r.proxy.log"))
        );
        assert_eq!(
            rel("/w/out/cache/r.log", "/w/out"),
            Some(PathBuf::from("cache/r.log"))
        );
        assert_eq!(
            rel("/w/r.log", "/w/out/a"),
            Some(PathBuf::from("../../r.log"))
        );
    }
}
