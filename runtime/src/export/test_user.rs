//! The exported grader's test user, drawn per trial.
//!
//! Harbor runs many trials on one Docker host, each in its own container of a task image,
//! with no pids limit per container. The grader caps the test user's processes with
//! `prlimit --nproc` (`exec::script::NPROC_VAR`), a limit the kernel counts **per uid**
//! across every container. With the image's fixed `taskc-test` uid (10001) in every trial,
//! a fork bomb in one trial fills the count of its neighbours too, and an honest trial's
//! test command fails to start (reward 0 for an honest agent; `docs/security.md`, "Harbor:
//! trials beside a process hog"). So each grading draws a uid of its own from
//! [`TEST_UID_RANGE`] (at random, from `/dev/urandom`: no trial can predict a neighbour's),
//! gives `taskc-test` that uid and gid in the container's `/etc/passwd` and `/etc/group`
//! (tests that look their user up find it, as before), and the run script drops to it
//! (`exec::script::TEST_UID_VAR`). Every file the script hands to the test user is handed
//! to that uid; nothing in the image belongs to the test user before grading.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::exec::script::{TEST_UID_RANGE, TEST_USER};

/// Why the trial's test user could not be set up (`E1930`, `docs/diagnostics.md`).
#[derive(Debug, thiserror::Error)]
pub enum TestUserError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no free uid drawn in {tries} tries")]
    NoFreeUid { tries: usize },
}

/// Draw a uid for this trial's test user: uniform in [`TEST_UID_RANGE`], not the uid or
/// gid of any account or group of `root`'s `/etc/passwd` and `/etc/group`, nor of a process
/// under `root`'s `/proc`.
pub fn draw_uid(root: &Path) -> Result<u32, TestUserError> {
    let taken = taken_ids(root)?;
    let span = u64::from(TEST_UID_RANGE.end() - TEST_UID_RANGE.start()) + 1;
    const TRIES: usize = 64;
    let mut urandom =
        std::fs::File::open("/dev/urandom").map_err(|source| TestUserError::Read {
            path: "/dev/urandom".into(),
            source,
        })?;
    for _ in 0..TRIES {
        let mut bytes = [0u8; 8];
        urandom
            .read_exact(&mut bytes)
            .map_err(|source| TestUserError::Read {
                path: "/dev/urandom".into(),
                source,
            })?;
        // 64 random bits onto a span below 2^31: the bias is below 2^-33.
        let offset = u64::from_le_bytes(bytes) % span;
        let Ok(offset) = u32::try_from(offset) else {
            continue;
        };
        let uid = TEST_UID_RANGE.start() + offset;
        if !taken.contains(&uid) {
            return Ok(uid);
        }
    }
    Err(TestUserError::NoFreeUid { tries: TRIES })
}

/// Every uid and gid named in `root`'s `/etc/passwd` and `/etc/group`, and the real uid of
/// every process under `root`'s `/proc` (missing files name none).
fn taken_ids(root: &Path) -> Result<std::collections::BTreeSet<u32>, TestUserError> {
    let mut taken = std::collections::BTreeSet::new();
    for (file, fields) in [("etc/passwd", &[2usize, 3][..]), ("etc/group", &[2][..])] {
        for line in read_or_empty(&root.join(file))?.lines() {
            let parts: Vec<&str> = line.split(':').collect();
            for &f in fields {
                if let Some(id) = parts.get(f).and_then(|v| v.parse::<u32>().ok()) {
                    taken.insert(id);
                }
            }
        }
    }
    if let Ok(procs) = std::fs::read_dir(root.join("proc")) {
        for p in procs.flatten() {
            let Ok(status) = std::fs::read_to_string(p.path().join("status")) else {
                continue;
            };
            let uid = status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u32>().ok());
            if let Some(uid) = uid {
                taken.insert(uid);
            }
        }
    }
    Ok(taken)
}

fn read_or_empty(path: &Path) -> Result<String, TestUserError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(TestUserError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Give [`TEST_USER`] `uid` as its uid and gid in `root`'s `/etc/passwd` and `/etc/group`
/// (the entries the task image's `useradd` wrote; added when missing), each file replaced
/// whole (a new file renamed over it, its mode kept).
pub fn install(root: &Path, uid: u32) -> Result<(), TestUserError> {
    let home = format!("/tmp/{TEST_USER}-home");
    rewrite(
        &root.join("etc/passwd"),
        |fields| {
            fields[2] = uid.to_string();
            fields[3] = uid.to_string();
        },
        7,
        &format!("{TEST_USER}:x:{uid}:{uid}::{home}:/bin/bash"),
    )?;
    rewrite(
        &root.join("etc/group"),
        |fields| {
            fields[2] = uid.to_string();
        },
        4,
        &format!("{TEST_USER}:x:{uid}:"),
    )
}

/// `path` with the line of [`TEST_USER`] (at least `min_fields` `:`-separated fields) edited
/// by `edit`, or `missing` appended when it has none.
fn rewrite(
    path: &Path,
    edit: impl Fn(&mut Vec<String>),
    min_fields: usize,
    missing: &str,
) -> Result<(), TestUserError> {
    let text = read_or_empty(path)?;
    let mut found = false;
    let mut out = String::with_capacity(text.len() + missing.len() + 1);
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let mut fields: Vec<String> = body.split(':').map(str::to_string).collect();
        if !found && fields.len() >= min_fields && fields[0] == TEST_USER {
            found = true;
            edit(&mut fields);
            out.push_str(&fields.join(":"));
            out.push('\n');
        } else {
            out.push_str(line);
        }
    }
    if !found {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(missing);
        out.push('\n');
    }
    let mode = std::fs::metadata(path)
        .map(|m| std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o7777)
        .unwrap_or(0o644);
    let dir = path.parent().unwrap_or(Path::new("/"));
    let write_err = |source| TestUserError::Write {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(write_err)?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(write_err)?;
    std::fs::write(tmp.path(), out.as_bytes()).map_err(write_err)?;
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(mode),
    )
    .map_err(write_err)?;
    tmp.persist(path).map_err(|e| write_err(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::script::TEST_UID;

    fn etc(passwd: &str, group: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("etc")).unwrap();
        std::fs::write(d.path().join("etc/passwd"), passwd).unwrap();
        std::fs::write(d.path().join("etc/group"), group).unwrap();
        d
    }

    #[test]
    fn the_test_user_gets_the_drawn_uid_and_every_other_line_stays() {
        let d = etc(
            "root:x:0:0:root:/root:/bin/bash\n\
             taskc-test:x:10001:10001::/tmp/taskc-test-home:/bin/bash\n\
             taskc-tester:x:10002:10002::/home/t:/bin/sh\n",
            "root:x:0:\ntaskc-test:x:10001:\n",
        );
        install(d.path(), 123_456).unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join("etc/passwd")).unwrap(),
            "root:x:0:0:root:/root:/bin/bash\n\
             taskc-test:x:123456:123456::/tmp/taskc-test-home:/bin/bash\n\
             taskc-tester:x:10002:10002::/home/t:/bin/sh\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("etc/group")).unwrap(),
            "root:x:0:\ntaskc-test:x:123456:\n"
        );
    }

    #[test]
    fn a_missing_test_user_is_added() {
        let d = etc("root:x:0:0:root:/root:/bin/bash", "");
        install(d.path(), 200_000).unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join("etc/passwd")).unwrap(),
            "root:x:0:0:root:/root:/bin/bash\n\
             taskc-test:x:200000:200000::/tmp/taskc-test-home:/bin/bash\n"
        );
        assert_eq!(
            std::fs::read_to_string(d.path().join("etc/group")).unwrap(),
            "taskc-test:x:200000:\n"
        );
    }

    #[test]
    fn drawn_uids_are_in_range_free_and_differ() {
        let d = etc("root:x:0:0::/root:/bin/bash\n", "root:x:0:\n");
        let a = draw_uid(d.path()).unwrap();
        let b = draw_uid(d.path()).unwrap();
        assert!(TEST_UID_RANGE.contains(&a) && TEST_UID_RANGE.contains(&b));
        assert_ne!(a, TEST_UID);
        // Two draws from 2^31 values: equal with probability 2^-31.
        assert_ne!(a, b);
    }
}
