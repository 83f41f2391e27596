//! The modification time of materialised files: fixed and derived from the content, never the
//! clock, so image contents do not depend on when or where they were made; and at or after
//! 1980 (ZIP, used by wheel builders such as flit, cannot store earlier times).

use std::fs::{self, File, FileTimes};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::error::io;
use super::{Git, RepoError};

/// Time of every file of a `dir` source without a base: 2000-01-01T00:00:00Z, the date of
/// the synthetic commit.
pub const DIR_MTIME: i64 = 946_684_800;

/// Earliest time a file gets: 1980-01-02T00:00:00Z (a day after ZIP's epoch, so a local
/// time zone west of UTC still lands in 1980).
pub const MIN_MTIME: i64 = 315_619_200;

/// The committer date of `base` in `repo` (seconds since the epoch), at least [`MIN_MTIME`].
pub(crate) fn base_mtime(repo: &Git, base: &str) -> Result<i64, RepoError> {
    let text = repo.read(&["show", "-s", "--format=%ct", base])?;
    let secs: i64 = text.trim().parse().map_err(|_| RepoError::Git {
        command: format!("git show -s --format=%ct {base}"),
        dir: std::path::PathBuf::from("."),
        status: "unexpected output".into(),
        stderr: text.clone(),
    })?;
    Ok(secs.max(MIN_MTIME))
}

/// Sets the modification (and access) time of every file and folder under `root`, and of
/// `root`, to `secs`; symbolic links are left alone (their own time is not portable).
pub(crate) fn set_tree_mtime(root: &Path, secs: i64) -> Result<(), RepoError> {
    let time = UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0));
    set_dir(root, time)
}

fn set_dir(dir: &Path, time: SystemTime) -> Result<(), RepoError> {
    let entries = fs::read_dir(dir).map_err(|e| io("read folder", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("read folder", dir, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| io("read", &path, e))?;
        if kind.is_dir() {
            set_dir(&path, time)?;
        } else if kind.is_file() {
            set_one(&path, time)?;
        }
    }
    // After the children: writing into a folder changes its time.
    set_one(dir, time)
}

fn set_one(path: &Path, time: SystemTime) -> Result<(), RepoError> {
    let times = FileTimes::new().set_modified(time).set_accessed(time);
    let file = File::open(path).map_err(|e| io("open", path, e))?;
    file.set_times(times)
        .map_err(|e| io("set the modification time of", path, e))
}
