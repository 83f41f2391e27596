//! Run results stored by backend, run id and repetition, written atomically (temp file +
//! rename) so an interrupted session keeps every finished result and a re-run resumes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::results::{RunResult, RESULT_SCHEMA};

#[derive(Debug, Clone)]
pub struct ResultStore {
    dir: PathBuf,
}

impl ResultStore {
    /// Results of `backend` under `<cache>/results/<backend>/`.
    pub fn new(cache: &Path, backend: &str) -> ResultStore {
        ResultStore {
            dir: cache.join("results").join(backend),
        }
    }

    fn path(&self, run: &str, repetition: usize) -> PathBuf {
        self.dir.join(format!("{run}.{repetition}.json"))
    }

    /// The stored result, if any (an unreadable or foreign file counts as absent).
    pub fn get(&self, run: &str, repetition: usize) -> Option<RunResult> {
        let text = std::fs::read_to_string(self.path(run, repetition)).ok()?;
        let r: RunResult = serde_json::from_str(&text).ok()?;
        (r.schema == RESULT_SCHEMA && r.run == run).then_some(r)
    }

    /// Forget a stored result (to run it again); its logs stay until overwritten.
    pub fn forget(&self, run: &str, repetition: usize) -> std::io::Result<()> {
        match std::fs::remove_file(self.path(run, repetition)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Store `result` atomically.
    pub fn put(&self, result: &RunResult, repetition: usize) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        let json = serde_json::to_vec_pretty(result).map_err(std::io::Error::other)?;
        tmp.write_all(&json)?;
        tmp.as_file().sync_all()?;
        tmp.persist(self.path(&result.run, repetition))
            .map_err(|e| e.error)?;
        Ok(())
    }

    /// Store the logs of one run (`name` is a repository, or `run` for the script's own
    /// output) as `<run>.<repetition>.<name>.log`, atomically. Written before the result,
    /// so a stored result always has its logs.
    pub fn put_logs(
        &self,
        run: &str,
        repetition: usize,
        logs: &[(String, Vec<u8>)],
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        for (name, bytes) in logs {
            let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
            tmp.write_all(bytes)?;
            tmp.persist(self.dir.join(format!("{run}.{repetition}.{name}.log")))
                .map_err(|e| e.error)?;
        }
        Ok(())
    }

    /// Where a run's log streams while it runs (in the store's folder, so keeping it is a
    /// rename); a stale one is removed by [`ResultStore::gc`].
    pub fn partial_log(&self, run: &str, repetition: usize) -> PathBuf {
        // Best effort: a folder that cannot be created fails the backend's write, reported.
        let _ = std::fs::create_dir_all(&self.dir);
        self.dir.join(format!(".partial-{run}.{repetition}.log"))
    }

    /// Keep the streamed log `partial` as the log of `name` (the repository under test).
    pub fn keep_log(
        &self,
        run: &str,
        repetition: usize,
        name: &str,
        partial: &Path,
    ) -> std::io::Result<()> {
        std::fs::rename(partial, self.log_path(run, repetition, name))
    }

    /// Where the log of `name` (a repository or `run`) of a stored run is.
    pub fn log_path(&self, run: &str, repetition: usize, name: &str) -> PathBuf {
        self.dir.join(format!("{run}.{repetition}.{name}.log"))
    }

    /// Remove stored results whose run id is not in `keep`; returns how many.
    pub fn gc(&self, keep: &std::collections::BTreeSet<String>) -> std::io::Result<usize> {
        let mut removed = 0;
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(0);
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let run = name.split('.').next().unwrap_or("");
            if !keep.contains(run) {
                std::fs::remove_file(e.path())?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}
