//! Task folders as data (path → file), read from and written to disk: folders are built
//! whole in memory, then each is written under a temporary name beside its final place and
//! renamed into it, so a failed export leaves no half-written task folder.

use std::collections::BTreeMap;
use std::path::Path;

use super::ExportError;
use super::ExportedTask;

/// One file of a task folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub bytes: Vec<u8>,
    /// `0o644`, `0o755`, or a symbolic link to `bytes` when `link`.
    pub mode: u32,
    pub link: bool,
    /// Modification time (seconds); `None`: the materialised repositories' default.
    pub mtime: Option<i64>,
}

impl Entry {
    pub fn file(bytes: Vec<u8>) -> Entry {
        Entry {
            bytes,
            mode: 0o644,
            link: false,
            mtime: None,
        }
    }

    pub fn exec(bytes: Vec<u8>) -> Entry {
        Entry {
            mode: 0o755,
            ..Entry::file(bytes)
        }
    }
}

/// A task folder: relative path → file, sorted.
pub type Tree = BTreeMap<String, Entry>;

/// Files and symlinks under `dir`, as paths relative to `root`.
pub fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(String, Entry)>) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let ty = e.file_type()?;
        let rel = path
            .strip_prefix(root)
            .map_err(std::io::Error::other)?
            .to_string_lossy()
            .replace('\\', "/");
        if ty.is_symlink() {
            let target = std::fs::read_link(&path)?;
            out.push((
                rel,
                Entry {
                    bytes: target.as_os_str().as_bytes().to_vec(),
                    mode: 0o777,
                    link: true,
                    mtime: None,
                },
            ));
        } else if ty.is_dir() {
            read_tree(root, &path, out)?;
        } else if ty.is_file() {
            let mode = if e.metadata()?.permissions().mode() & 0o111 != 0 {
                0o755
            } else {
                0o644
            };
            out.push((
                rel,
                Entry {
                    bytes: std::fs::read(&path)?,
                    mode,
                    link: false,
                    mtime: None,
                },
            ));
        }
    }
    Ok(())
}

/// Write every task folder under `out`. Without `force`, any folder that exists already
/// fails the export before anything is written; with it, those folders are replaced
/// (nothing else in `out` is touched).
pub fn write_all(
    out: &Path,
    trees: &[(ExportedTask, Tree)],
    force: bool,
) -> Result<(), ExportError> {
    let io = |what: String| move |source| ExportError::Write { what, source };
    if !force {
        for (t, _) in trees {
            let dir = out.join(&t.name);
            if std::fs::symlink_metadata(&dir).is_ok() {
                return Err(ExportError::OutExists { out: dir });
            }
        }
    }
    std::fs::create_dir_all(out).map_err(io(format!("cannot create {}", out.display())))?;
    for (t, tree) in trees {
        let dir = out.join(&t.name);
        let tmp = out.join(format!(".{}.taskc-tmp", t.name));
        if std::fs::symlink_metadata(&tmp).is_ok() {
            std::fs::remove_dir_all(&tmp)
                .map_err(io(format!("cannot remove {}", tmp.display())))?;
        }
        let written = write_tree(&tmp, tree);
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        if std::fs::symlink_metadata(&dir).is_ok() {
            std::fs::remove_dir_all(&dir)
                .map_err(io(format!("cannot replace {}", dir.display())))?;
        }
        std::fs::rename(&tmp, &dir).map_err(io(format!("cannot create {}", dir.display())))?;
    }
    Ok(())
}

fn write_tree(dir: &Path, tree: &Tree) -> Result<(), ExportError> {
    use std::os::unix::fs::PermissionsExt;
    let io = |what: String| move |source| ExportError::Write { what, source };
    let mut times: Vec<(std::path::PathBuf, i64)> = Vec::new();
    for (rel, e) in tree {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("cannot create {}", parent.display())))?;
        }
        if e.link {
            let target = String::from_utf8_lossy(&e.bytes).into_owned();
            std::os::unix::fs::symlink(&target, &path)
                .map_err(io(format!("cannot write {}", path.display())))?;
            continue;
        }
        std::fs::write(&path, &e.bytes).map_err(io(format!("cannot write {}", path.display())))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(e.mode))
            .map_err(io(format!("cannot set the mode of {}", path.display())))?;
        if let Some(t) = e.mtime {
            times.push((path, t));
        }
    }
    // Fixed times last (folders too), as in the task image: the image depends on bytes only.
    for (path, t) in &times {
        let time =
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(u64::try_from(*t).unwrap_or(0));
        let f = std::fs::File::options()
            .write(true)
            .open(path)
            .map_err(io(format!("cannot open {}", path.display())))?;
        f.set_times(
            std::fs::FileTimes::new()
                .set_accessed(time)
                .set_modified(time),
        )
        .map_err(io(format!("cannot set the time of {}", path.display())))?;
    }
    Ok(())
}
