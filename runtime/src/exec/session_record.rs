//! Which sessions a cache has had, whether each still runs, and which images each used:
//! what lets `taskc gc` on a shared engine touch only its own cache's objects (issue 23,
//! item 6).
//!
//! Files under `<cache>/sessions/`: `<session>.lock`, held with an exclusive `flock` by
//! the session's process for its whole life (the lock, not a pid, says it is alive: the
//! kernel drops it when the process dies, however it dies), and `<session>.images`, one
//! image tag a line, each image the session ensured. A session id is owned by the cache
//! whose folder has its record; objects on the engine labelled with any other session are
//! another cache's (or another user's), and gc leaves them alone.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The session records of one cache.
#[derive(Debug, Clone)]
pub struct SessionRecords {
    dir: PathBuf,
}

/// A running session's hold on its record: alive while this value is.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

/// What the records of a cache say at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionCensus {
    /// Sessions whose process still holds their lock.
    pub live: BTreeSet<String>,
    /// Sessions of this cache that ended (cleanly or not).
    pub finished: BTreeSet<String>,
    /// Images live sessions used.
    pub live_images: BTreeSet<String>,
    /// Images finished sessions used.
    pub finished_images: BTreeSet<String>,
}

const LOCK: &str = "lock";
const IMAGES: &str = "images";

impl SessionRecords {
    /// The records under `<cache>/sessions/`.
    pub fn new(cache: &Path) -> SessionRecords {
        SessionRecords {
            dir: cache.join("sessions"),
        }
    }

    /// The folder holding the records.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn file(&self, session: &str, kind: &str) -> PathBuf {
        self.dir.join(format!("{session}.{kind}"))
    }

    /// Record session `session` as running in this cache, until the returned lock drops.
    pub fn open(&self, session: &str) -> std::io::Result<SessionLock> {
        std::fs::create_dir_all(&self.dir)?;
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.file(session, LOCK))?;
        file.lock()?;
        file.set_len(0)?;
        writeln!(file, "{}", std::process::id())?;
        Ok(SessionLock { _file: file })
    }

    /// Note that session `session` used image `tag`.
    pub fn note_image(&self, session: &str, tag: &str) -> std::io::Result<()> {
        if self.images_of(session)?.contains(tag) {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir)?;
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.file(session, IMAGES))?;
        writeln!(file, "{tag}")
    }

    fn images_of(&self, session: &str) -> std::io::Result<BTreeSet<String>> {
        match std::fs::read_to_string(self.file(session, IMAGES)) {
            Ok(text) => Ok(text
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeSet::new()),
            Err(e) => Err(e),
        }
    }

    /// Whether session `session` of this cache still runs: its lock is held. A session
    /// without a lock file is not running (it ended and gc retired its lock).
    pub fn is_live(&self, session: &str) -> std::io::Result<bool> {
        let file = match File::open(self.file(session, LOCK)) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(e),
        };
        match file.try_lock_shared() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Every session this cache has a record of, live or finished, with their images.
    pub fn census(&self) -> std::io::Result<SessionCensus> {
        let mut census = SessionCensus::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(census),
            Err(e) => return Err(e),
        };
        let mut sessions = BTreeSet::new();
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if let Some((session, _)) = name
                .rsplit_once('.')
                .filter(|(_, kind)| *kind == LOCK || *kind == IMAGES)
            {
                sessions.insert(session.to_string());
            }
        }
        for session in sessions {
            let images = self.images_of(&session)?;
            if self.is_live(&session)? {
                census.live_images.extend(images);
                census.live.insert(session);
            } else {
                census.finished_images.extend(images);
                census.finished.insert(session);
            }
        }
        Ok(census)
    }

    /// After a gc removed `removed_images`: drop those from the finished sessions' image
    /// lists, and retire the records of finished sessions with nothing left on the engine
    /// (`still_there`: sessions some object of which could not be removed).
    pub fn retire(
        &self,
        census: &SessionCensus,
        removed_images: &BTreeSet<String>,
        still_there: &BTreeSet<String>,
    ) -> std::io::Result<()> {
        for session in &census.finished {
            let left: Vec<String> = self
                .images_of(session)?
                .into_iter()
                .filter(|t| !removed_images.contains(t))
                .collect();
            if left.is_empty() {
                remove_if_there(&self.file(session, IMAGES))?;
            } else {
                std::fs::write(self.file(session, IMAGES), left.join("\n") + "\n")?;
            }
            if !still_there.contains(session) && left.is_empty() {
                remove_if_there(&self.file(session, LOCK))?;
            }
        }
        Ok(())
    }
}

fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_is_live_while_its_lock_is_held_and_finished_after() {
        let cache = tempfile::tempdir().unwrap();
        let records = SessionRecords::new(cache.path());
        let lock = records.open("s1-a").unwrap();
        records.note_image("s1-a", "taskc/task:x").unwrap();
        records.note_image("s1-a", "taskc/task:x").unwrap();
        records.note_image("s2-b", "taskc/task:y").unwrap();
        let census = records.census().unwrap();
        assert_eq!(census.live, BTreeSet::from(["s1-a".to_string()]));
        assert_eq!(census.finished, BTreeSet::from(["s2-b".to_string()]));
        assert_eq!(
            census.live_images,
            BTreeSet::from(["taskc/task:x".to_string()])
        );
        drop(lock);
        let census = records.census().unwrap();
        assert!(census.live.is_empty());
        assert_eq!(census.finished.len(), 2);
        records
            .retire(
                &census,
                &BTreeSet::from(["taskc/task:x".to_string()]),
                &BTreeSet::new(),
            )
            .unwrap();
        let census = records.census().unwrap();
        assert_eq!(census.finished, BTreeSet::from(["s2-b".to_string()]));
    }
}
