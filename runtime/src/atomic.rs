//! The one way taskc replaces a file: [`write_atomic`]. Locks, reports, plans, formatted
//! specs, stored results and logs all go through it, so a reader (or a crash) sees either
//! the old file or the new one, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Name prefix of the temporary files [`write_atomic`] creates beside their target.
pub const TEMP_PREFIX: &str = ".taskc-tmp-";

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replace `path` with `bytes` atomically and durably:
/// 1. write a temporary file in the same folder (so the rename cannot cross file systems),
/// 2. `fsync` it,
/// 3. give it the permissions of the file it replaces, or for a new file `0666` minus the
///    umask (as any program creating a file; not `0600`),
/// 4. rename it over `path`,
/// 5. `fsync` the folder, so the rename itself survives a crash.
///
/// On failure the temporary file is removed and `path` is unchanged.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file path"))?;
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    let (tmp, mut file) = create_temp(&dir, &name.to_string_lossy())?;
    let result = (|| {
        file.write_all(bytes)?;
        if let Some(perms) = existing {
            file.set_permissions(perms)?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        sync_dir(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// A new file `<dir>/.taskc-tmp-<pid>-<n>-<name>`, created exclusively with mode `0666`
/// (the kernel applies the umask).
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let short: String = name.chars().take(64).collect();
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!("{TEMP_PREFIX}{}-{n}-{short}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o666);
        }
        match options.open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    fn mode(p: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    /// The process umask, read without changing it (Linux ≥ 4.7).
    #[cfg(unix)]
    fn umask() -> u32 {
        let status = fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
        u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["x.lock"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_honours_the_umask_and_a_replaced_one_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("report.json");
        write_atomic(&p, b"{}").unwrap();
        assert_eq!(mode(&p), 0o666 & !umask());
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"{ }").unwrap();
        assert_eq!(mode(&p), 0o640);
    }

    #[test]
    fn a_failed_write_leaves_the_target_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a folder: the rename fails.
        let p = dir.path().join("taken");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("inside"), "mine").unwrap();
        assert!(write_atomic(&p, b"x").is_err());
        assert_eq!(fs::read_to_string(p.join("inside")).unwrap(), "mine");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["taken"]);
    }

    #[test]
    fn a_missing_folder_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(&dir.path().join("no/such/x"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
