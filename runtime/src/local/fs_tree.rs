//! File-tree helpers of the local backend: copying image folders, mapping container paths.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// Maps an absolute container path (`/work/x`) under `root`; refuses `..`.
pub(crate) fn map_path(root: &Path, container_path: &str) -> Option<PathBuf> {
    let rel = Path::new(container_path.trim_start_matches('/'));
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(out)
}

/// Copies `from` into `to` (created), keeping symlinks as symlinks and permission bits.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(&src)?, &dst)?;
        } else if kind.is_dir() {
            copy_tree(&src, &dst)?;
            fs::set_permissions(&dst, entry.metadata()?.permissions())?;
        } else {
            fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

/// Writes `bytes` at `path` with `mode`, creating parent folders.
pub(crate) fn write_file(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, bytes)?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}

/// Reads a file, or every regular file below a folder, keyed by container path; a missing
/// path yields nothing. Symlinks are not followed (they could point outside the workspace).
pub(crate) fn collect(
    host: &Path,
    container_path: &str,
    out: &mut BTreeMap<String, Vec<u8>>,
) -> io::Result<()> {
    let meta = match fs::symlink_metadata(host) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if meta.is_file() {
        out.insert(container_path.to_string(), fs::read(host)?);
    } else if meta.is_dir() {
        let base = container_path.trim_end_matches('/');
        for entry in fs::read_dir(host)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            collect(&entry.path(), &format!("{base}/{name}"), out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_absolute_paths_under_root_and_refuses_dotdot() {
        let root = Path::new("/ws/root");
        assert_eq!(
            map_path(root, "/work/x"),
            Some(PathBuf::from("/ws/root/work/x"))
        );
        assert_eq!(map_path(root, "/"), Some(PathBuf::from("/ws/root")));
        assert_eq!(map_path(root, "/work/../../etc"), None);
    }
}
