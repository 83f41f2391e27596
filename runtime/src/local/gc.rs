//! `Backend::gc` on the local backend: image folders no kept plan uses (never the base
//! image's) and run folders of sessions that no longer run.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use super::{entries, folder_name, LocalBackend};
use crate::backend::{
    session_is_live, BackendError, GcItem, GcReport, KeepImages, BASE_IMAGE_PREFIX,
};

impl LocalBackend {
    pub(super) fn gc_inner(
        &self,
        keep: &KeepImages,
        dry_run: bool,
    ) -> Result<GcReport, BackendError> {
        let mut report = GcReport::new(dry_run);
        let kept: BTreeSet<String> = keep.tags.iter().map(|t| folder_name(t)).collect();
        let base = folder_name(BASE_IMAGE_PREFIX);
        let base = base.split('-').next().unwrap_or("taskc_base_");
        for entry in sorted(entries(&self.cache.join("images"))?) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let live = keep
                .owner
                .live_images
                .iter()
                .any(|t| folder_name(t) == name);
            if kept.contains(&name) || name.starts_with(base) || live {
                continue;
            }
            remove(&mut report, GcItem::ImageFolder { path: entry.path() })?;
        }
        for session in sorted(entries(&self.runs_dir())?) {
            let name = session.file_name().to_string_lossy().into_owned();
            // Folder names are `<session id>-<12 hex>`: the session id precedes the hash.
            let id = name.rsplit_once('-').map_or(name.as_str(), |(id, _)| id);
            if session_is_live(id) || keep.owner.live_sessions.contains(id) {
                continue;
            }
            remove(
                &mut report,
                GcItem::RunFolder {
                    path: session.path(),
                },
            )?;
        }
        Ok(report)
    }
}

fn sorted(mut e: Vec<fs::DirEntry>) -> Vec<fs::DirEntry> {
    e.sort_by_key(|e| e.file_name());
    e
}

fn remove(report: &mut GcReport, item: GcItem) -> Result<(), BackendError> {
    if !report.dry_run {
        let path: Option<&PathBuf> = match &item {
            GcItem::ImageFolder { path } | GcItem::RunFolder { path } => Some(path),
            _ => None,
        };
        if let Some(path) = path {
            match fs::remove_dir_all(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(BackendError::io("remove folder", path, e));
                }
                _ => {}
            }
        }
    }
    report.removed.push(item);
    Ok(())
}
