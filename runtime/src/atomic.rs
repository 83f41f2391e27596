//! The one way taskc replaces a file: [`write_atomic`]. Locks, reports, plans, formatted
//! specs, workspace records, imported task folders, build logs, stored results and logs all
//! go through it, so a reader (or a crash) sees either the old file or the new one, never a
//! torn one. Two relatives keep the same durability where a whole-file replace does not fit:
//! [`keep_durably`] for a file streamed under a temporary name (a run's log), and
//! [`append_durably`] for a record added to a file others may append to (`collect -o`).

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
    let dir = folder_of(path);
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

/// Make `tmp` (written under a temporary name in `path`'s folder, e.g. a streamed log) the
/// file `path`, durably: `fsync` it, rename it over `path`, `fsync` the folder.
pub fn keep_durably(tmp: &Path, path: &Path) -> io::Result<()> {
    File::open(tmp)?.sync_all()?;
    fs::rename(tmp, path)?;
    sync_dir(&folder_of(path))
}

/// Append `bytes` to `path` (created with `0666` minus the umask if absent) in one write of
/// an `O_APPEND` file, then `fsync` it (and its folder when it was created). Appends of
/// concurrent writers do not interleave or overwrite each other, which a read-and-replace
/// would.
pub fn append_durably(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let created = fs::symlink_metadata(path).is_err();
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o666);
    }
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    if created {
        sync_dir(&folder_of(path))?;
    }
    Ok(())
}

/// The folder holding `path` (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
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

/// `fsync` a folder, so the renames into it survive a crash (after moving a staged folder
/// into place).
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
pub fn sync_dir(_: &Path) -> io::Result<()> {
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
    fn a_streamed_file_is_kept_under_its_name_and_appends_add_up() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join(format!("{TEMP_PREFIX}partial.log"));
        fs::write(&tmp, b"streamed").unwrap();
        let log = dir.path().join("run.log");
        keep_durably(&tmp, &log).unwrap();
        assert_eq!(fs::read(&log).unwrap(), b"streamed");
        assert!(!tmp.exists());
        let out = dir.path().join("predictions.jsonl");
        append_durably(&out, b"{\"a\":1}\n").unwrap();
        append_durably(&out, b"{\"b\":2}\n").unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "{\"a\":1}\n{\"b\":2}\n");
        // Concurrent appenders: every record arrives whole.
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let out = out.clone();
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        append_durably(&out, format!("{}\n", i.to_string().repeat(100)).as_bytes())
                            .unwrap();
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let text = fs::read_to_string(&out).unwrap();
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(lines.len(), 400);
        assert!(lines
            .iter()
            .all(|l| l.len() == 100 && l.chars().all(|c| l.starts_with(c))));
    }

    #[cfg(unix)]
    #[test]
    fn an_appended_file_honours_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("predictions.jsonl");
        append_durably(&out, b"x\n").unwrap();
        assert_eq!(mode(&out), 0o666 & !umask());
    }

    #[test]
    fn a_missing_folder_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(&dir.path().join("no/such/x"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
