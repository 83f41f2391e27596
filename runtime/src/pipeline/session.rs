//! Opening the session every executing command shares: the chosen backend (and a note when
//! `auto` fell back to local), the cache folder, the number of runs at once, a fresh session
//! id (recorded in the cache and held while the session runs, see
//! [`SessionRecords`]) and the progress printer.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{default_cache, new_session_id, open_backend, BackendChoice, PipelineError, Session};
use crate::exec::{Progress, ProgressStyle, SessionRecords};

/// What a command asks of its session (`--backend`, `--jobs`, `--cache`, `--format`).
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub backend: BackendChoice,
    /// Runs at once; `None`: the number of cores.
    pub jobs: Option<usize>,
    /// `None`: [`default_cache`].
    pub cache: Option<PathBuf>,
    pub progress: ProgressStyle,
}

/// An open session, and what the user should know about how it was opened.
pub struct OpenSession {
    pub session: Session,
    /// Set when `--backend auto` fell back to local, or the local backend is unsandboxed.
    pub note: Option<String>,
}

/// `cache`, else the default cache folder.
pub fn cache_or_default(cache: Option<&Path>) -> PathBuf {
    let cache = cache.map(Path::to_path_buf).unwrap_or_else(default_cache);
    // Runs change their working directory (the local backend runs in each run's folder):
    // a relative cache would then name another folder for every run. `absolute` reads only
    // the working directory, never the file system; where it cannot, the path stays.
    std::path::absolute(&cache).unwrap_or(cache)
}

/// Open the backend and the session every executing command uses.
pub async fn open_session(opts: &SessionOptions) -> Result<OpenSession, PipelineError> {
    let cache = cache_or_default(opts.cache.as_deref());
    let (backend, note) = open_backend(opts.backend, &cache).await?;
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let jobs = opts.jobs.unwrap_or(cores);
    let id = new_session_id();
    let records = SessionRecords::new(&cache);
    let record = records.open(&id).map_err(|source| PipelineError::Io {
        what: format!("cannot record the session in {}", records.dir().display()),
        source,
    })?;
    Ok(OpenSession {
        session: Session {
            backend,
            cache,
            id,
            record: Arc::new(record),
            jobs: jobs.max(1),
            limits: super::fair_limits(cores, jobs),
            progress: Arc::new(Progress::new(opts.progress).with_jobs(jobs)),
        },
        note,
    })
}
