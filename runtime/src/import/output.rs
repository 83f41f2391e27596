//! One imported task as files, checked before it is written, and written all at once: the
//! folder appears complete or not at all, and an existing folder is replaced only with
//! `--force`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;
use taskc_compiler::{Diagnostic, SourceMap};

/// The files of one imported task, relative to its folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFolder {
    /// The task id: also the folder's and the spec's name.
    pub id: String,
    /// Every file, the spec (`<id>.task`) included.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl TaskFolder {
    pub fn spec_name(&self) -> String {
        format!("{}.task", self.id)
    }

    pub fn spec_text(&self) -> String {
        self.files
            .get(&self.spec_name())
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// Check the generated spec against the generated files (nothing is read from disk).
    pub fn check(&self) -> (Vec<Diagnostic>, SourceMap) {
        let mut loader = MemLoader::new();
        for (k, v) in &self.files {
            loader = loader.with(k, v.clone());
        }
        let spec = self.spec_name();
        let bytes = self.files.get(&spec).cloned().unwrap_or_default();
        let checked = check_spec(&spec, &bytes, &loader);
        (checked.diagnostics.sorted().0, checked.sources)
    }
}

/// Why a task folder was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The folder exists and `--force` was not given.
    Exists(PathBuf),
    Io(PathBuf, std::io::Error),
}

/// Write `folder` as `out/<id>/`, replacing an existing folder only when `force`.
pub fn write(out: &Path, folder: &TaskFolder, force: bool) -> Result<PathBuf, WriteError> {
    let dest = out.join(&folder.id);
    if dest.symlink_metadata().is_ok() && !force {
        return Err(WriteError::Exists(dest));
    }
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| WriteError::Io(p, e)
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    let partial = tempfile::Builder::new()
        .prefix(&format!(".{}.partial-", folder.id))
        .tempdir_in(out)
        .map_err(io(out))?;
    for (rel, bytes) in &folder.files {
        let p = partial.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        crate::atomic::write_atomic(&p, bytes).map_err(io(&p))?;
    }
    let staged = partial.keep();
    if dest.symlink_metadata().is_ok() {
        // --force: move the old folder aside, put the new one in place, then remove the old.
        let old = out.join(format!(".{}.old-{}", folder.id, std::process::id()));
        std::fs::rename(&dest, &old).map_err(io(&dest))?;
        if let Err(e) = std::fs::rename(&staged, &dest) {
            let _ = std::fs::rename(&old, &dest);
            let _ = std::fs::remove_dir_all(&staged);
            return Err(WriteError::Io(dest, e));
        }
        let _ = std::fs::remove_dir_all(&old);
    } else if let Err(e) = std::fs::rename(&staged, &dest) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(WriteError::Io(dest, e));
    }
    // Every file was written durably in the staged folder; make its move durable too.
    crate::atomic::sync_dir(out).map_err(io(out))?;
    Ok(dest)
}
