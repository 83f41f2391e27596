//! Cleaning a debootstrapped root file system and archiving it for `docker import`.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::BootstrapError;

fn io(op: &'static str, path: &Path, source: std::io::Error) -> BootstrapError {
    BootstrapError::Io {
        op,
        path: path.to_path_buf(),
        source,
    }
}

/// Removes downloaded packages and apt lists (images run `apt-get update` first).
pub(super) fn clean_apt(root: &Path) -> Result<(), BootstrapError> {
    for (dir, keep_dirs) in [
        ("var/cache/apt/archives", true),
        ("var/cache/apt", true),
        ("var/lib/apt/lists", true),
    ] {
        let dir = root.join(dir);
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let entry = entry.map_err(|e| io("list", &dir, e))?;
            let path = entry.path();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir && keep_dirs {
                continue;
            }
            if entry.file_name() == "lock" {
                continue;
            }
            fs::remove_file(&path).map_err(|e| io("remove", &path, e))?;
        }
    }
    Ok(())
}

/// Archives `root` (owners, modes, symlinks and hard links as copies), skipping device
/// nodes, fifos and sockets (the container runtime provides `/dev`).
pub(super) fn tar_rootfs(root: &Path) -> Result<Vec<u8>, BootstrapError> {
    let mut builder = tar::Builder::new(Vec::new());
    append_dir(&mut builder, root, Path::new(""))?;
    builder.into_inner().map_err(|e| io("archive", root, e))
}

fn append_dir(
    builder: &mut tar::Builder<Vec<u8>>,
    host: &Path,
    rel: &Path,
) -> Result<(), BootstrapError> {
    let mut entries: Vec<_> = fs::read_dir(host)
        .map_err(|e| io("list", host, e))?
        .collect::<Result<_, _>>()
        .map_err(|e| io("list", host, e))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = rel.join(entry.file_name());
        let meta = fs::symlink_metadata(&path).map_err(|e| io("read", &path, e))?;
        let mut header = tar::Header::new_gnu();
        header.set_mode(meta.mode() & 0o7777);
        header.set_uid(u64::from(meta.uid()));
        header.set_gid(u64::from(meta.gid()));
        header.set_mtime(meta.mtime().max(0) as u64);
        let kind = meta.file_type();
        let result = if kind.is_symlink() {
            let target = fs::read_link(&path).map_err(|e| io("read link", &path, e))?;
            header.set_entry_type(tar::EntryType::Symlink);
            header.set_size(0);
            builder.append_link(&mut header, &name, &target)
        } else if kind.is_dir() {
            header.set_entry_type(tar::EntryType::Directory);
            header.set_size(0);
            builder
                .append_data(&mut header, &name, std::io::empty())
                .map_err(|e| io("archive", &path, e))?;
            append_dir(builder, &path, &name)?;
            continue;
        } else if kind.is_file() {
            let file = fs::File::open(&path).map_err(|e| io("read", &path, e))?;
            header.set_entry_type(tar::EntryType::Regular);
            header.set_size(meta.len());
            builder.append_data(&mut header, &name, file)
        } else {
            continue;
        };
        result.map_err(|e| io("archive", &path, e))?;
    }
    Ok(())
}
