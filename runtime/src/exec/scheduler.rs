//! Executing a plan's runs on a backend: each image built once, up to `jobs` runs at
//! once, every result stored by run id as soon as it is known, cached results reused,
//! Ctrl-C or SIGTERM stops new work and removes this session's containers, service
//! containers and networks (interrupt.rs).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use taskc_compiler::plan::Run;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::interpret::interpret;
use super::interrupt::{Handling, Signal, Signals};
use super::progress::{Event, Progress};
use super::script;
use super::store::{ResultKey, ResultStore};
use crate::backend::{Backend, BackendError, ImageBuild, Limits, RunRequest};
use crate::canary;
use crate::results::RunResult;

/// Why executing a plan stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error(transparent)]
    Backend(#[from] BackendError),
    #[error("{0}")]
    Script(#[from] script::ScriptError),
    #[error("cannot store a run result in {path}: {source}")]
    Store {
        path: String,
        source: std::io::Error,
    },
    #[error("interrupted ({}): {finished} results kept; re-run to resume", signal.name())]
    Interrupted { finished: usize, signal: Signal },
    #[error("{0}")]
    Prepare(String),
}

impl ExecError {
    /// What to do about it (the CLI shows it as `help:`), when something is known.
    pub fn hint(&self) -> Option<String> {
        match self {
            ExecError::Backend(e) => e.hint(),
            _ => None,
        }
    }
}

/// What one execution did.
#[derive(Debug, Clone, Default)]
pub struct Execution {
    /// Results per run id, one per repetition.
    pub results: BTreeMap<String, Vec<RunResult>>,
    /// Runs executed now.
    pub executed: usize,
    /// Runs whose result was already stored.
    pub cached: usize,
    pub wall: Duration,
}

/// One plan execution's settings.
pub struct Executor {
    pub backend: Arc<dyn Backend>,
    pub store: ResultStore,
    /// Labels every container of this invocation (for Ctrl-C cleanup).
    pub session: String,
    pub jobs: usize,
    pub limits: Limits,
    /// Environment variables for every run (the recipe's local variant on the local backend).
    pub env: BTreeMap<String, String>,
    pub progress: Arc<Progress>,
    /// The repositories' files at base that the plan's patches touch: canary names avoid
    /// the tests they define.
    pub base_files: Arc<canary::BaseFiles>,
}

/// A run, the prediction it scores (none when verifying) and the agent patches it applies.
#[derive(Debug, Clone)]
pub struct Job {
    pub run: Run,
    /// The prediction's short id (`pred-<16 hex>`) when scoring.
    pub prediction: Option<String>,
    pub predictions: BTreeMap<String, String>,
    /// The patches are not the spec's own: an agent's code runs (see `RunRequest::untrusted`).
    pub untrusted: bool,
}

impl Job {
    /// A verification run.
    pub fn verify(run: &Run) -> Job {
        Job {
            run: run.clone(),
            prediction: None,
            predictions: BTreeMap::new(),
            untrusted: false,
        }
    }

    /// Where repetition `repetition` of this job's result is stored.
    pub fn key(&self, repetition: usize) -> ResultKey {
        ResultKey {
            run: self.run.id.clone(),
            prediction: self.prediction.clone(),
            repetition,
        }
    }
}

impl Executor {
    /// Build `build` unless the backend already has it.
    pub async fn ensure_image(&self, build: &ImageBuild) -> Result<(), ExecError> {
        let start = Instant::now();
        // Recorded before the build: gc of this cache then knows the image is its own,
        // and while this session lives, that it is in use.
        super::SessionRecords::new(self.store.cache())
            .note_image(&self.session, &build.tag)
            .map_err(|source| ExecError::Store {
                path: super::SessionRecords::new(self.store.cache())
                    .dir()
                    .display()
                    .to_string(),
                source,
            })?;
        self.backend.ensure_image(build).await?;
        let secs = start.elapsed().as_secs_f64();
        self.progress.emit(Event::ImageReady {
            image: build.tag.clone(),
            cached: secs < 0.5,
            secs,
        });
        Ok(())
    }

    /// Execute `jobs` from image `image` (patch texts in `blobs`), each `repeat` times,
    /// reusing stored results.
    pub async fn execute(
        &self,
        image: &str,
        blobs: &BTreeMap<String, String>,
        jobs: Vec<Job>,
        repeat: usize,
    ) -> Result<Execution, ExecError> {
        let start = Instant::now();
        let mut exec = Execution::default();
        let mut todo = Vec::new();
        self.progress.emit(Event::Planned {
            runs: jobs.len() * repeat.max(1),
        });
        for job in jobs {
            for k in 0..repeat.max(1) {
                let key = job.key(k);
                match self.store.get(&key) {
                    Some(r) => {
                        self.progress.emit(Event::RunCached {
                            run: key.subject(),
                            repetition: k,
                        });
                        exec.cached += 1;
                        exec.results.entry(key.subject()).or_default().push(r);
                    }
                    None => todo.push((job.clone(), k)),
                }
            }
        }
        let pending = todo.len();
        // SIGINT/SIGTERM are this scheduler's from before its first run starts.
        let mut signals = Signals::new();
        let _handling = Handling::start();
        let stop = Arc::new(AtomicBool::new(false));
        let permits = Arc::new(Semaphore::new(self.jobs.max(1)));
        let mut set = JoinSet::new();
        for (job, k) in todo {
            let (mut req, canaries) = self.request(image, blobs, &job, k)?;
            let partial = self.store.partial_log(&job.key(k));
            req.log_to = Some(partial.clone());
            let backend = self.backend.clone();
            let permits = permits.clone();
            let stop = stop.clone();
            let progress = self.progress.clone();
            let name = backend.name();
            let key = job.key(k);
            set.spawn(async move {
                let _permit = permits.acquire_owned().await.ok()?;
                if stop.load(Ordering::SeqCst) {
                    return None;
                }
                progress.emit(Event::RunStarted {
                    run: key.subject(),
                    repetition: k,
                });
                let started = Instant::now();
                let result = match backend.run(&req).await {
                    Ok(o) => match run_log(&o, &partial).await {
                        Ok(log) => {
                            let mut r = interpret(&job.run, &o, &log, name, &canaries);
                            r.run = key.subject();
                            let harness = o
                                .collected
                                .get(&script::harness_file(script::HARNESS_LOG))
                                .cloned()
                                .unwrap_or_default();
                            Ok((r, harness))
                        }
                        Err(source) => Err(ExecError::Store {
                            path: partial.display().to_string(),
                            source,
                        }),
                    },
                    Err(e) => Err(ExecError::Backend(e)),
                };
                if let Ok((r, _)) = &result {
                    progress.emit(Event::RunFinished {
                        run: key.subject(),
                        repetition: k,
                        failure: r.failure_text(),
                        secs: started.elapsed().as_secs_f64(),
                    });
                }
                Some((key, job.run.under_test, partial, result))
            });
        }
        loop {
            tokio::select! {
                next = set.join_next() => {
                    let Some(joined) = next else { break };
                    let Ok(Some((key, repo, partial, result))) = joined else { continue };
                    let (mut result, harness) = match result {
                        Ok(r) => r,
                        Err(e) => {
                            stop.store(true, Ordering::SeqCst);
                            set.abort_all();
                            let _ = self.backend.remove_session(&self.session).await;
                            let _ = std::fs::remove_file(&partial);
                            return Err(e);
                        }
                    };
                    for name in [repo.as_str(), "run"] {
                        let path = self.store.log_path(&key, name);
                        result.logs.insert(name.to_string(), path.display().to_string());
                    }
                    self.store
                        .keep_log(&key, &repo, &partial)
                        .and_then(|()| self.store.put_logs(&key, &[("run".to_string(), harness)]))
                        .and_then(|()| self.store.put(&key, &result))
                        .map_err(|source| ExecError::Store {
                            path: format!("{key}.json"),
                            source,
                        })?;
                    exec.executed += 1;
                    exec.results.entry(key.subject()).or_default().push(result);
                }
                signal = signals.recv() => {
                    stop.store(true, Ordering::SeqCst);
                    set.abort_all();
                    // Every run's future dropped before the session is cleaned up, so no
                    // container or network a run was creating appears after it.
                    while set.join_next().await.is_some() {}
                    let _ = self.backend.remove_session(&self.session).await;
                    self.progress.emit(Event::Interrupted {
                        finished: exec.executed,
                        pending: pending - exec.executed,
                    });
                    return Err(ExecError::Interrupted {
                        finished: exec.executed + exec.cached,
                        signal,
                    });
                }
            }
        }
        exec.wall = start.elapsed();
        self.progress.finish();
        Ok(exec)
    }

    fn request(
        &self,
        image: &str,
        blobs: &BTreeMap<String, String>,
        job: &Job,
        repetition: usize,
    ) -> Result<(RunRequest, canary::Placement), ExecError> {
        let seed = canary::Seed::from_os().map_err(|e| {
            ExecError::Prepare(format!(
                "cannot draw the run's canary seed from the OS: {e}"
            ))
        })?;
        let canaries = canary::place_with_base(&job.run, blobs, &self.base_files, &seed);
        let s = script::build(
            &job.run,
            blobs,
            &job.predictions,
            &canaries,
            &self.base_files,
        )?;
        let mut req = RunRequest::new(
            image,
            format!("{}-{repetition}", job.key(repetition).subject()),
            self.session.clone(),
            s.script,
        );
        req.uploads = s.uploads;
        req.collect = s.collect;
        req.workdir = "/work".into();
        req.env = self.env.clone();
        req.timeout = script::backend_timeout(&job.run);
        req.limits = self.limits;
        req.network = job.run.network;
        req.services = job.run.services.iter().map(service_spec).collect();
        req.untrusted = job.untrusted;
        Ok((req, canaries))
    }
}

/// A plan's service as the backend starts it: its image by the tag taskc built it under.
fn service_spec(s: &taskc_compiler::plan::RunService) -> crate::backend::ServiceSpec {
    use crate::backend::ServiceReady;
    use taskc_compiler::plan::ReadyProbe;
    crate::backend::ServiceSpec {
        name: s.name.clone(),
        hostname: s.hostname.clone(),
        image: taskc_compiler::plan::service_image_tag(&s.image),
        env: s.environment.clone(),
        command: s.command.clone(),
        ready: match &s.ready {
            ReadyProbe::Command { command } => ServiceReady::Command(command.clone()),
            ReadyProbe::Tcp { port } => ServiceReady::Tcp(*port),
            ReadyProbe::Started => ServiceReady::Started,
        },
        ready_timeout: std::time::Duration::from_secs(s.ready_timeout_secs),
        limits: crate::backend::Limits {
            memory_bytes: s.memory_bytes,
            cpus: s.cpus_milli.map(|m| m as f64 / 1000.0),
            pids: None,
        },
    }
}

/// The run's log, as a backend left it: streamed into `partial`, or (a backend that does
/// not stream) in memory, then written there. Read back for the parser (at most the cap),
/// unless it passed the cap.
async fn run_log(o: &crate::backend::RunOutcome, partial: &Path) -> std::io::Result<Vec<u8>> {
    match tokio::fs::metadata(partial).await {
        // Past the cap the run failed as output-too-large: nothing to parse, nothing to load.
        Ok(_) if o.log_truncated && o.log.is_empty() => Ok(Vec::new()),
        Ok(_) if o.log.is_empty() => tokio::fs::read(partial).await,
        _ => {
            tokio::fs::write(partial, &o.log).await?;
            Ok(o.log.clone())
        }
    }
}
