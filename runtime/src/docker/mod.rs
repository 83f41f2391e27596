//! The Docker backend (bollard): one container per run, running the script as its command.
//!
//! Lifecycle of a run: create (labelled) → attach its stdin → start, the uploads written
//! to its stdin as one archive, which [`WRAPPER`] unpacks before the script runs → follow
//! the output (to a file or memory; SIGKILL the container past the log cap) while waiting
//! (SIGKILL the container at the timeout) → inspect (OOM) → remove. The collected files
//! come back on the container's stderr (a trailer the wrapper writes once the script
//! exited; only the root wrapper holds that stream: the script's stdout and stderr are both
//! the container's stdout, the log); when the trailer is missing (a killed run) they are
//! downloaded instead. No archive request per run, so the engine never mounts the
//! container's file system outside its start. Removal happens on every path, also when
//! the future is dropped (a guard spawns the removal).

mod buildkit;
mod errors;
mod gc;
mod pull;
mod services;
pub(crate) mod socket;

pub use buildkit::Builder;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use bollard::container::{
    AttachContainerOptions, Config, CreateContainerOptions, DownloadFromContainerOptions,
    KillContainerOptions, ListContainersOptions, LogsOptions, RemoveContainerOptions,
    StartContainerOptions, WaitContainerOptions,
};
use bollard::image::BuildImageOptions;
use bollard::models::HostConfig;
use bollard::Docker;
use futures_util::future::BoxFuture;
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use crate::backend::cache_mounts::without_cache_mounts;
use crate::backend::tar_archive::{build_tar, read_collected, upload_files, TarFile};
use crate::backend::{
    Backend, BackendError, GcReport, ImageBuild, KeepImages, LogBuffer, RunOutcome, RunRequest,
    IMAGE_LABEL, LOG_CAP, RUN_LABEL, SESSION_LABEL, TRUNCATION_MARKER,
};
pub(crate) use errors::{docker_error, is_not_found};

/// Name of the generated Dockerfile inside a build context.
const DOCKERFILE_NAME: &str = "taskc.Dockerfile";

/// How long to wait for a killed container to stop.
const KILL_GRACE: Duration = Duration::from_secs(30);

/// The container's command (`bash -c WRAPPER taskc-run SCRIPT COLLECT…`), as root: unpacks
/// the uploads from stdin, runs the script with its stdout and stderr on the container's
/// stdout (the log), then writes the trailer on its own stderr: `taskc-trailer exit=<code>`,
/// one line per collected path (a base64 tar of it, `-` when absent), `taskc-trailer end`.
/// An empty line is a `tar` that could not run (no process or memory left in the
/// container): the trailer is then ignored and the files are downloaded from the stopped
/// container, from outside, where nothing the tests left can starve the collection.
const WRAPPER: &str = r#"set -u
tar -x -p --numeric-owner --no-overwrite-dir -C / || { echo "taskc: cannot unpack the run's inputs" >&2; exit 125; }
s=$1; shift
bash -euo pipefail -c "$s" 2>&1 </dev/null
code=$?
printf 'taskc-trailer exit=%s\n' "$code" >&2
for p in "$@"; do
  if [ -e "$p" ]; then tar -c --numeric-owner -C "${p%/*}/" -- "${p##*/}" 2>/dev/null | base64 -w 0 >&2; else printf -- - >&2; fi
  printf '\n' >&2
done
printf 'taskc-trailer end\n' >&2
exit "$code"
"#;

/// The trailer's first line (then the exit code).
const TRAILER_EXIT: &[u8] = b"taskc-trailer exit=";
/// The trailer's last line.
const TRAILER_END: &[u8] = b"taskc-trailer end";
/// At most this much of the container's stderr is kept (the trailer: the harness's records
/// and messages); past it the collected files are downloaded instead.
const TRAILER_CAP: usize = 16 << 20;

/// The collected files of the trailer in `stderr` (see [`WRAPPER`]): one base64 tar per
/// path of `collect`, keyed by container path; `None` when the trailer is missing,
/// incomplete or malformed.
fn parse_trailer(stderr: &[u8], collect: &[String]) -> Option<BTreeMap<String, Vec<u8>>> {
    use base64::Engine as _;
    let start = memchr::memmem::rfind(stderr, TRAILER_EXIT)?;
    if start > 0 && stderr[start - 1] != b'\n' {
        return None;
    }
    let mut lines = stderr[start..].split(|b| *b == b'\n');
    lines.next()?;
    let mut out = BTreeMap::new();
    for path in collect {
        let line = lines.next()?.trim_ascii();
        if line == TRAILER_END {
            return None;
        }
        if line == b"-" {
            continue;
        }
        if line.is_empty() {
            return None;
        }
        let tar = base64::engine::general_purpose::STANDARD
            .decode(line)
            .ok()?;
        out.extend(read_collected(path, &tar).ok()?);
    }
    (lines.next()?.trim_ascii() == TRAILER_END).then_some(out)
}

/// Runs plans in Docker containers through the daemon's API.
#[derive(Debug, Clone)]
pub struct DockerBackend {
    docker: Docker,
    /// Each run's container in a top-level cgroup of its own (see [`RunParent`]), where the
    /// engine uses cgroup v1 with the `cgroupfs` driver on this host.
    own_parents: bool,
    /// The builder images are built with: `None` until the first build tells whether the
    /// engine has BuildKit (then BuildKit, or the classic builder from then on).
    builder: std::sync::Arc<std::sync::Mutex<Option<Builder>>>,
}

/// A run's container in a cgroup parent of its own, `/taskc-<pid>-<n>`, instead of Docker's
/// shared `/docker` (issue 20, Done-when 2). The kernel shares the CPU out among the groups
/// at each level by weight: every container under `/docker` shares that one group's weight
/// with every other container on the engine, so on a host with other load a hostile
/// neighbour's container took half of what the honest one got alone, whatever their CPU
/// quotas (measured in `docs/performance.md`, *Noisy neighbours*). Its own top-level group
/// makes a run one more competitor among the host's processes, as any other. The groups
/// Docker made for the parent are removed once the container is (best effort: a run
/// cancelled before it leaves them empty).
struct RunParent {
    name: String,
}

impl RunParent {
    fn new() -> RunParent {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        RunParent {
            name: format!("/taskc-{}-{n}", std::process::id()),
        }
    }

    /// Removes the (empty) groups of every controller Docker made for the parent.
    fn remove(&self) {
        let Ok(controllers) = std::fs::read_dir(CGROUP_V1) else {
            return;
        };
        for c in controllers.flatten() {
            let _ = std::fs::remove_dir(c.path().join(self.name.trim_start_matches('/')));
        }
    }

    /// Removes the (empty) parent groups runs of processes that have ended left behind (a
    /// run cancelled before its container was gone): `taskc-<pid>-<n>` whose `<pid>` is no
    /// longer alive. Groups still holding a process are not empty and stay.
    fn sweep_stale() {
        let Ok(controllers) = std::fs::read_dir(CGROUP_V1) else {
            return;
        };
        for c in controllers.flatten() {
            let Ok(groups) = std::fs::read_dir(c.path()) else {
                continue;
            };
            for g in groups.flatten() {
                let name = g.file_name();
                let Some(pid) = stale_parent_pid(&name.to_string_lossy()) else {
                    continue;
                };
                if !Path::new("/proc").join(pid.to_string()).exists() {
                    let _ = std::fs::remove_dir(g.path());
                }
            }
        }
    }
}

/// The pid in a run parent's name `taskc-<pid>-<n>`.
fn stale_parent_pid(name: &str) -> Option<u32> {
    let (pid, n) = name.strip_prefix("taskc-")?.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// Where this host mounts its cgroup v1 controllers.
const CGROUP_V1: &str = "/sys/fs/cgroup";

/// Whether the classic builder's fallback was announced (once per process).
static CLASSIC_NOTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl DockerBackend {
    /// Connects with the local defaults (`DOCKER_HOST` or the unix socket), negotiates the API
    /// version and pings the daemon.
    pub async fn connect() -> Result<DockerBackend, BackendError> {
        let unreachable = |e: bollard::errors::Error| BackendError::DockerUnreachable {
            detail: e.to_string(),
        };
        let docker = Docker::connect_with_local_defaults()
            .map_err(unreachable)?
            .with_timeout(Duration::from_secs(3600));
        let docker = docker.negotiate_version().await.map_err(unreachable)?;
        docker.ping().await.map_err(unreachable)?;
        // Own parents only where taskc can also remove them: cgroup v1 with the cgroupfs
        // driver, and the engine's `/docker` groups visible here (the engine is this host).
        let own_parents = match docker.info().await {
            Ok(info) => {
                matches!(
                    info.cgroup_driver,
                    Some(bollard::models::SystemInfoCgroupDriverEnum::CGROUPFS)
                ) && matches!(
                    info.cgroup_version,
                    Some(bollard::models::SystemInfoCgroupVersionEnum::_1)
                ) && Path::new(CGROUP_V1).join("cpu/docker").is_dir()
            }
            Err(_) => false,
        };
        if own_parents {
            RunParent::sweep_stale();
        }
        Ok(DockerBackend {
            docker,
            own_parents,
            builder: Default::default(),
        })
    }

    /// This backend building with `builder` only (BuildKit: no fallback to the classic
    /// builder; the classic builder: cache mounts taken out, as on an engine without BuildKit).
    pub fn with_builder(self, builder: Builder) -> DockerBackend {
        DockerBackend {
            builder: std::sync::Arc::new(std::sync::Mutex::new(Some(builder))),
            ..self
        }
    }

    fn chosen_builder(&self) -> Option<Builder> {
        self.builder.lock().map(|b| *b).unwrap_or(None)
    }

    fn choose_builder(&self, builder: Builder) {
        if let Ok(mut b) = self.builder.lock() {
            b.get_or_insert(builder);
        }
    }

    /// The underlying client, for the bootstrap and diagnostics.
    pub fn client(&self) -> &Docker {
        &self.docker
    }

    /// Whether an image with this tag exists.
    pub async fn image_exists(&self, tag: &str) -> Result<bool, BackendError> {
        match self.docker.inspect_image(tag).await {
            Ok(_) => Ok(true),
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => Err(docker_error("inspect image", tag, e)),
        }
    }

    /// Builds `build` even if its tag exists (then the tag moves to the new image).
    pub(crate) async fn build_image(&self, build: &ImageBuild) -> Result<(), BackendError> {
        self.build(build).await
    }

    /// Builds `build` (even if its tag exists) and returns the build's log; with `offline`
    /// the build's steps have no network. A step that needs to download what the download
    /// caches do not hold then fails: what tells that a rebuild downloads nothing again.
    pub async fn build_logged(
        &self,
        build: &ImageBuild,
        offline: bool,
    ) -> Result<String, BackendError> {
        self.build_with(build, offline.then_some("none")).await
    }

    async fn build(&self, build: &ImageBuild) -> Result<(), BackendError> {
        self.build_with(build, None).await.map(|_| ())
    }

    async fn build_with(
        &self,
        build: &ImageBuild,
        network: Option<&str>,
    ) -> Result<String, BackendError> {
        if build.context.iter().any(|f| f.path == DOCKERFILE_NAME) {
            return Err(BackendError::ImageBuild {
                tag: build.tag.clone(),
                detail: format!(
                    "the build context must not contain a file named `{DOCKERFILE_NAME}`"
                ),
                log: String::new(),
            });
        }
        let context = |dockerfile: &str| {
            let mut files = vec![TarFile {
                path: DOCKERFILE_NAME,
                bytes: dockerfile.as_bytes(),
                mode: 0o644,
                mtime: 0,
            }];
            files.extend(build.context.iter().map(|f| TarFile {
                path: &f.path,
                bytes: &f.bytes,
                mode: f.mode,
                mtime: f.mtime,
            }));
            build_tar(&files).map_err(|e| BackendError::ImageBuild {
                tag: build.tag.clone(),
                detail: format!("cannot write the build context archive: {e}"),
                log: String::new(),
            })
        };
        let mut labels = build.labels.clone();
        labels.insert(IMAGE_LABEL.into(), build.tag.clone());
        if self.chosen_builder() != Some(Builder::Classic) && !names_image_by_id(&build.dockerfile)
        {
            let request = buildkit::Request {
                tag: &build.tag,
                dockerfile: DOCKERFILE_NAME,
                labels: &labels,
                network,
            };
            match buildkit::build(&request, context(&build.dockerfile)?).await {
                buildkit::Outcome::Built { log } => {
                    self.choose_builder(Builder::BuildKit);
                    if !self.image_exists(&build.tag).await? {
                        return Err(build_failed(
                            &build.tag,
                            "the build ended without an image".into(),
                            &log,
                        ));
                    }
                    return Ok(log);
                }
                buildkit::Outcome::Failed { error, log } => {
                    return Err(build_failed(&build.tag, error, &log));
                }
                buildkit::Outcome::Transport(detail) => {
                    return Err(BackendError::DockerUnreachable {
                        detail: format!("build image `{}`: {detail}", build.tag),
                    });
                }
                buildkit::Outcome::Unavailable(why) => {
                    if self.chosen_builder() == Some(Builder::BuildKit) {
                        return Err(build_failed(
                            &build.tag,
                            format!("the engine cannot build with BuildKit: {why}"),
                            "",
                        ));
                    }
                    self.choose_builder(Builder::Classic);
                    if !CLASSIC_NOTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
                        eprintln!(
                            "note: docker: the engine cannot build with BuildKit ({why}); images \
                             are built with the classic builder, without download caches \
                             (every rebuilt layer downloads its packages again)"
                        );
                    }
                }
            }
        }
        // The classic builder: the same image, without cache mounts.
        let context = context(&without_cache_mounts(&build.dockerfile))?;
        let labels: HashMap<String, String> = labels.into_iter().collect();
        let options = BuildImageOptions {
            dockerfile: DOCKERFILE_NAME.to_string(),
            t: build.tag.clone(),
            rm: true,
            forcerm: true,
            labels,
            networkmode: network.unwrap_or_default().to_string(),
            ..Default::default()
        };
        let mut stream = self.docker.build_image(options, None, Some(context.into()));
        let mut log = String::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(info) => {
                    if let Some(text) = info.stream {
                        log.push_str(&text);
                    }
                    if let Some(error) = info.error {
                        return Err(build_failed(&build.tag, error, &log));
                    }
                }
                Err(bollard::errors::Error::DockerStreamError { error }) => {
                    return Err(build_failed(&build.tag, error, &log));
                }
                Err(e) => return Err(docker_error("build image", &build.tag, e)),
            }
        }
        if !self.image_exists(&build.tag).await? {
            return Err(build_failed(
                &build.tag,
                "the build ended without an image".into(),
                &log,
            ));
        }
        Ok(log)
    }

    async fn run_inner(&self, req: &RunRequest) -> Result<RunOutcome, BackendError> {
        req.check_paths()?;
        if req.services.is_empty() {
            return self.run_container(req, None).await;
        }
        // Services first, on the run's private network; the run joins it once they are ready.
        match services::start(&self.docker, &req.session, &req.run_id, &req.services).await? {
            services::Started::NotReady(set, failure) => {
                set.remove().await?;
                Ok(RunOutcome {
                    service_failure: Some(failure),
                    ..RunOutcome::default()
                })
            }
            services::Started::Ready(set) => {
                let result = self.run_container(req, Some(&set.network)).await;
                let removal = set.remove().await;
                let outcome = result?;
                removal?;
                Ok(outcome)
            }
        }
    }

    /// The run's own container: no network, or only `service_network` (internal).
    async fn run_container(
        &self,
        req: &RunRequest,
        service_network: Option<&str>,
    ) -> Result<RunOutcome, BackendError> {
        let labels = HashMap::from([
            (RUN_LABEL.to_string(), req.run_id.clone()),
            (SESSION_LABEL.to_string(), req.session.clone()),
        ]);
        // `TASKC_ROOT` is the mapped `/` of the local backend; empty here (see `local`).
        let env: Vec<String> = std::iter::once("TASKC_ROOT=".to_string())
            .chain(req.env.iter().map(|(k, v)| format!("{k}={v}")))
            .collect();
        let memory = req
            .limits
            .memory_bytes
            .map(|m| i64::try_from(m).unwrap_or(i64::MAX));
        let parent = self.own_parents.then(RunParent::new);
        let host_config = HostConfig {
            cgroup_parent: parent.as_ref().map(|p| p.name.clone()),
            // Swap equal to memory: no swap, so an over-limit run is OOM-killed, not slowed.
            memory,
            memory_swap: memory,
            nano_cpus: req.limits.cpus.map(|c| (c * 1e9) as i64),
            pids_limit: req.limits.pids,
            network_mode: Some(match service_network {
                Some(net) => net.to_string(),
                None if req.network => "bridge".into(),
                None => "none".into(),
            }),
            init: Some(true),
            ..Default::default()
        };
        let config = Config {
            image: Some(req.image.clone()),
            cmd: Some(
                ["bash", "-c", WRAPPER, "taskc-run", &req.script]
                    .into_iter()
                    .map(String::from)
                    .chain(req.collect.iter().cloned())
                    .collect(),
            ),
            // The uploads arrive on stdin (one archive), closed once written.
            open_stdin: Some(true),
            stdin_once: Some(true),
            attach_stdin: Some(true),
            working_dir: Some(req.workdir.clone()),
            env: Some(env),
            labels: Some(labels),
            network_disabled: Some(!req.network && service_network.is_none()),
            host_config: Some(host_config),
            ..Default::default()
        };
        let created = self
            .docker
            .create_container(None::<CreateContainerOptions<String>>, config)
            .await
            .map_err(|e| {
                if is_not_found(&e) {
                    BackendError::ImageMissing {
                        tag: req.image.clone(),
                        help: "build it first (ensure_image), or run `taskc image bootstrap` for \
                               the base image"
                            .into(),
                    }
                } else {
                    docker_error("create container", &req.image, e)
                }
            })?;
        let mut guard = RemoveGuard {
            docker: self.docker.clone(),
            id: Some(created.id.clone()),
        };
        let result = self.drive(&created.id, req).await;
        let removal = guard.remove_now().await;
        if let Some(p) = &parent {
            p.remove();
        }
        let outcome = result?;
        removal?;
        Ok(outcome)
    }

    async fn drive(&self, id: &str, req: &RunRequest) -> Result<RunOutcome, BackendError> {
        let files = upload_files(&req.uploads);
        let archive = build_tar(&files).map_err(|e| BackendError::InvalidRequest {
            run_id: req.run_id.clone(),
            detail: format!("cannot archive the uploads: {e}"),
        })?;
        // Attached before the start: the container's stdin is this connection.
        let attached = self
            .docker
            .attach_container(
                id,
                Some(AttachContainerOptions::<String> {
                    stdin: Some(true),
                    stream: Some(true),
                    ..Default::default()
                }),
            )
            .await
            .map_err(|e| docker_error("attach to container", id, e))?;
        let started = Instant::now();
        self.docker
            .start_container(id, None::<StartContainerOptions<String>>)
            .await
            .map_err(|e| docker_error("start container", id, e))?;
        let mut input = attached.input;
        // Kept until the inputs are written (the connection's other half).
        let output = attached.output;
        let upload = async move {
            let written = async {
                input.write_all(&archive).await?;
                input.flush().await?;
                input.shutdown().await
            };
            // Bounded: a container that never reads its stdin must not hang the run.
            match tokio::time::timeout(req.timeout, written).await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("the container did not read its inputs in time".to_string()),
            }
        };
        // The log streams while the container runs (to its file, or kept in memory), and
        // the container is killed as soon as it passes the cap; meanwhile the clock runs.
        let logs = async {
            let streamed = tokio::time::timeout(
                req.timeout + KILL_GRACE,
                self.stream_logs(id, req.log_to.as_deref()),
            )
            .await;
            match streamed {
                Ok(r) => r,
                Err(_) => Err(BackendError::Docker {
                    op: "read container logs",
                    target: id.to_string(),
                    detail: "the log stream did not end with the container".into(),
                    help: "retry; if it persists, check the Docker daemon's logs".into(),
                }),
            }
        };
        let waited = async {
            match tokio::time::timeout(req.timeout, self.wait(id)).await {
                Ok(code) => Ok((code?, false)),
                Err(_) => {
                    self.kill(id).await?;
                    // Bounded: a daemon that cannot kill the container must not hang the run.
                    let code = tokio::time::timeout(KILL_GRACE, self.wait(id))
                        .await
                        .ok()
                        .and_then(|r| r.ok())
                        .flatten();
                    Ok::<_, BackendError>((code, true))
                }
            }
        };
        let (uploaded, logs, waited) = tokio::join!(upload, logs, waited);
        drop(output);
        let (mut exit_code, timed_out) = waited?;
        let (log, log_truncated, stderr) = logs?;
        if let Err(detail) = uploaded {
            return Err(BackendError::Docker {
                op: "write the run's inputs to the container",
                target: id.to_string(),
                detail,
                help: "retry; if it persists, check the Docker daemon's logs".into(),
            });
        }
        let duration = started.elapsed();
        let inspect = self
            .docker
            .inspect_container(id, None)
            .await
            .map_err(|e| docker_error("inspect container", id, e))?;
        let state = inspect.state.unwrap_or_default();
        let oom_killed = state.oom_killed.unwrap_or(false);
        if timed_out || log_truncated {
            exit_code = None;
        } else if exit_code.is_none() {
            exit_code = state.exit_code;
        }
        // From the trailer; a run stopped before it wrote one is read from the container.
        let collected = match parse_trailer(&stderr, &req.collect) {
            Some(c) => c,
            None => {
                let mut collected = BTreeMap::new();
                for path in &req.collect {
                    collected.extend(self.download(id, path).await?);
                }
                collected
            }
        };
        Ok(RunOutcome {
            exit_code,
            log,
            log_truncated,
            timed_out,
            oom_killed,
            duration,
            collected,
            service_failure: None,
        })
    }

    /// SIGKILL the whole container (every process in it).
    async fn kill(&self, id: &str) -> Result<(), BackendError> {
        let kill = self
            .docker
            .kill_container(id, Some(KillContainerOptions { signal: "SIGKILL" }))
            .await;
        match kill {
            // The container may have exited in the meantime.
            Err(e) if !is_conflict(&e) && !is_not_found(&e) => {
                Err(docker_error("kill container", id, e))
            }
            _ => Ok(()),
        }
    }

    /// Waits for the container to stop; returns its exit code.
    async fn wait(&self, id: &str) -> Result<Option<i64>, BackendError> {
        let mut stream = self.docker.wait_container(
            id,
            Some(WaitContainerOptions {
                condition: "not-running",
            }),
        );
        match stream.next().await {
            Some(Ok(response)) => Ok(Some(response.status_code)),
            Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. })) => {
                Ok(Some(code))
            }
            Some(Err(e)) => Err(docker_error("wait for container", id, e)),
            None => Ok(None),
        }
    }

    /// Follows the container's output until it stops: its stdout (the log) into `to` (a
    /// file, written as it arrives) or into memory, its stderr (the wrapper's trailer, at
    /// most [`TRAILER_CAP`] bytes) into memory. Past [`LOG_CAP`] bytes of log it kills the
    /// container and reports the log as truncated; it never holds more than one chunk of a
    /// streamed log.
    async fn stream_logs(
        &self,
        id: &str,
        to: Option<&std::path::Path>,
    ) -> Result<(Vec<u8>, bool, Vec<u8>), BackendError> {
        let io_error = |e: std::io::Error| BackendError::Docker {
            op: "write the run's log",
            target: to.map(|p| p.display().to_string()).unwrap_or_default(),
            detail: e.to_string(),
            help: "check that the cache folder is writable and has space".into(),
        };
        let mut file = match to {
            Some(path) => Some(tokio::fs::File::create(path).await.map_err(io_error)?),
            None => None,
        };
        let mut buffer = LogBuffer::new(LOG_CAP);
        let mut written: usize = 0;
        let mut stream = self.docker.logs(
            id,
            Some(LogsOptions::<String> {
                follow: true,
                stdout: true,
                stderr: true,
                ..Default::default()
            }),
        );
        let mut truncated = false;
        let mut stderr = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| docker_error("read container logs", id, e))?;
            if let bollard::container::LogOutput::StdErr { message } = chunk {
                let take = TRAILER_CAP.saturating_sub(stderr.len()).min(message.len());
                stderr.extend_from_slice(&message[..take]);
                continue;
            }
            let bytes = chunk.into_bytes();
            match file.as_mut() {
                Some(f) => {
                    let take = LOG_CAP.saturating_sub(written).min(bytes.len());
                    f.write_all(&bytes[..take]).await.map_err(io_error)?;
                    written += take;
                    truncated = take < bytes.len();
                }
                None => {
                    buffer.push(&bytes);
                    truncated = buffer.truncated();
                }
            }
            if truncated {
                // Past the cap: the run is stopped, its output is not read any further.
                self.kill(id).await?;
                break;
            }
        }
        if let Some(mut f) = file {
            if truncated {
                f.write_all(TRUNCATION_MARKER).await.map_err(io_error)?;
            }
            f.flush().await.map_err(io_error)?;
            return Ok((Vec::new(), truncated, stderr));
        }
        let (log, truncated) = buffer.finish();
        Ok((log, truncated, stderr))
    }

    async fn download(
        &self,
        id: &str,
        path: &str,
    ) -> Result<BTreeMap<String, Vec<u8>>, BackendError> {
        let mut stream = self
            .docker
            .download_from_container(id, Some(DownloadFromContainerOptions { path }));
        let mut archive = Vec::new();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => archive.extend_from_slice(&bytes),
                Err(e) if is_not_found(&e) => return Ok(BTreeMap::new()),
                Err(e) => return Err(docker_error("download files from container", path, e)),
            }
        }
        read_collected(path, &archive).map_err(|e| BackendError::Docker {
            op: "download files from container",
            target: path.to_string(),
            detail: format!("the archive Docker returned is unreadable: {e}"),
            help: "retry; if it persists, check the Docker daemon's logs".into(),
        })
    }

    /// Ids of the containers (any state) labelled with `session`.
    pub async fn session_containers(&self, session: &str) -> Result<Vec<String>, BackendError> {
        let containers = self
            .list_containers(format!("{SESSION_LABEL}={session}"))
            .await?;
        Ok(containers.into_iter().filter_map(|c| c.id).collect())
    }

    async fn list_containers(
        &self,
        label_filter: String,
    ) -> Result<Vec<bollard::models::ContainerSummary>, BackendError> {
        self.docker
            .list_containers(Some(ListContainersOptions {
                all: true,
                filters: HashMap::from([("label".to_string(), vec![label_filter])]),
                ..Default::default()
            }))
            .await
            .map_err(|e| docker_error("list containers", "taskc containers", e))
    }

    async fn force_remove(&self, id: &str) -> Result<(), BackendError> {
        match self
            .docker
            .remove_container(
                id,
                Some(RemoveContainerOptions {
                    force: true,
                    v: true,
                    ..Default::default()
                }),
            )
            .await
        {
            Ok(()) => Ok(()),
            Err(e) if is_not_found(&e) || is_conflict(&e) => Ok(()),
            Err(e) => Err(docker_error("remove container", id, e)),
        }
    }
}

/// Whether a `FROM` line of `dockerfile` names its image by id (`FROM sha256:…`, as the CA
/// layer does): the engine's BuildKit resolves image names only, so such a build goes to the
/// classic builder (it has no cache mounts to lose).
fn names_image_by_id(dockerfile: &str) -> bool {
    dockerfile.lines().any(|l| {
        let mut words = l.split_whitespace();
        words.next().is_some_and(|w| w.eq_ignore_ascii_case("FROM"))
            && words
                .find(|w| !w.starts_with("--"))
                .is_some_and(|image| image.starts_with("sha256:"))
    })
}

fn build_failed(tag: &str, detail: String, log: &str) -> BackendError {
    BackendError::ImageBuild {
        tag: tag.to_string(),
        detail: detail.trim().to_string(),
        log: log.to_string(),
    }
}

fn is_conflict(e: &bollard::errors::Error) -> bool {
    matches!(
        e,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 409,
            ..
        }
    )
}

/// Removes a container when dropped (e.g. the run's future was cancelled by Ctrl-C).
struct RemoveGuard {
    docker: Docker,
    id: Option<String>,
}

impl RemoveGuard {
    async fn remove_now(&mut self) -> Result<(), BackendError> {
        let Some(id) = self.id.take() else {
            return Ok(());
        };
        let options = RemoveContainerOptions {
            force: true,
            v: true,
            ..Default::default()
        };
        match self.docker.remove_container(&id, Some(options)).await {
            Ok(()) => Ok(()),
            Err(e) if is_not_found(&e) => Ok(()),
            Err(e) => Err(docker_error("remove container", &id, e)),
        }
    }
}

impl Drop for RemoveGuard {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            let docker = self.docker.clone();
            handle.spawn(async move {
                let options = RemoveContainerOptions {
                    force: true,
                    v: true,
                    ..Default::default()
                };
                let _ = docker.remove_container(&id, Some(options)).await;
            });
        }
    }
}

impl Backend for DockerBackend {
    fn name(&self) -> &'static str {
        "docker"
    }

    fn ensure_image<'a>(
        &'a self,
        build: &'a ImageBuild,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(async move {
            if self.image_exists(&build.tag).await? {
                return Ok(());
            }
            self.build(build).await
        })
    }

    fn image_content_id<'a>(
        &'a self,
        tag: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        Box::pin(async move {
            match self.docker.inspect_image(tag).await {
                Ok(image) => Ok(image.id),
                Err(e) if is_not_found(&e) => Err(BackendError::ImageMissing {
                    tag: tag.to_string(),
                    help: "build the base image with `taskc image bootstrap`, or name one that \
                           exists in `taskc.toml` (`[images] base`)"
                        .into(),
                }),
                Err(e) => Err(docker_error("inspect image", tag, e)),
            }
        })
    }

    fn pull_image<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        Box::pin(async move { self.pull_reference(reference).await.map(Some) })
    }

    fn image_registry_digest<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, BackendError>> {
        Box::pin(self.registry_digest(reference))
    }

    fn run<'a>(&'a self, req: &'a RunRequest) -> BoxFuture<'a, Result<RunOutcome, BackendError>> {
        Box::pin(self.run_inner(req))
    }

    fn remove_session<'a>(
        &'a self,
        session: &'a str,
    ) -> BoxFuture<'a, Result<usize, BackendError>> {
        Box::pin(async move {
            let containers = self
                .list_containers(format!("{SESSION_LABEL}={session}"))
                .await?;
            let mut removed = 0;
            for id in containers.iter().filter_map(|c| c.id.as_deref()) {
                self.force_remove(id).await?;
                removed += 1;
            }
            // The runs' private networks to their services, once their containers are gone.
            let filter = format!("{SESSION_LABEL}={session}");
            for (name, _) in services::labelled_networks(&self.docker, filter).await? {
                services::remove_network(&self.docker, &name).await?;
            }
            Ok(removed)
        })
    }

    fn tag_image<'a>(
        &'a self,
        image: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(self.tag_inner(image, name))
    }

    fn gc<'a>(
        &'a self,
        keep: &'a KeepImages,
        dry_run: bool,
    ) -> BoxFuture<'a, Result<GcReport, BackendError>> {
        Box::pin(self.gc_inner(keep, dry_run))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn run_parents_of_ended_processes_are_swept() {
        assert_eq!(super::stale_parent_pid("taskc-17121-0"), Some(17121));
        assert_eq!(super::stale_parent_pid("taskc-17121-x"), None);
        assert_eq!(super::stale_parent_pid("taskc"), None);
        assert_eq!(super::stale_parent_pid("docker"), None);
        // Live where this host has writable cgroup v1 controllers (as root): a dead pid's
        // empty group goes, the group of this (living) process stays.
        let cpu = std::path::Path::new(super::CGROUP_V1).join("cpu");
        let dead = cpu.join("taskc-4194399-0");
        let alive = cpu.join(format!("taskc-{}-999999", std::process::id()));
        if std::fs::create_dir(&dead).is_err() || std::fs::create_dir(&alive).is_err() {
            let _ = std::fs::remove_dir(&dead);
            return;
        }
        super::RunParent::sweep_stale();
        let (dead_gone, alive_kept) = (!dead.exists(), alive.exists());
        let _ = std::fs::remove_dir(&alive);
        let _ = std::fs::remove_dir(&dead);
        assert!(dead_gone, "the group of an ended process was left");
        assert!(alive_kept, "the group of a living process was removed");
    }

    use base64::Engine as _;

    use super::*;

    fn tar_of(files: &[(&str, &[u8])]) -> String {
        let files: Vec<TarFile<'_>> = files
            .iter()
            .map(|(path, bytes)| TarFile {
                path,
                bytes,
                mode: 0o600,
                mtime: 0,
            })
            .collect();
        base64::engine::general_purpose::STANDARD.encode(build_tar(&files).unwrap())
    }

    #[test]
    fn an_image_named_by_id_is_built_by_the_classic_builder() {
        assert!(names_image_by_id("FROM sha256:abc\nRUN true\n"));
        assert!(names_image_by_id(
            "from --platform=linux/amd64 sha256:abc AS x\n"
        ));
        assert!(!names_image_by_id(
            "FROM taskc/base:bookworm\nRUN echo sha256:x\n"
        ));
    }

    #[test]
    fn the_trailer_gives_the_collected_files_by_path() {
        let collect = vec!["/taskc/harness".to_string(), "/tmp/absent".to_string()];
        let harness = tar_of(&[("harness/exit", b"0\n"), ("harness/ms", b"12\n")]);
        // What the wrapper wrote before (a tar warning) does not matter.
        let stderr =
            format!("tar: warning\ntaskc-trailer exit=0\n{harness}\n-\ntaskc-trailer end\n");
        let got = parse_trailer(stderr.as_bytes(), &collect).unwrap();
        assert_eq!(got["/taskc/harness/exit"], b"0\n");
        assert_eq!(got["/taskc/harness/ms"], b"12\n");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_missing_or_cut_trailer_is_none() {
        let collect = vec!["/taskc/harness".to_string()];
        let harness = tar_of(&[("harness/exit", b"0\n")]);
        assert_eq!(parse_trailer(b"", &collect), None);
        // Killed before the end line.
        let cut = format!("taskc-trailer exit=0\n{harness}\n");
        assert_eq!(parse_trailer(cut.as_bytes(), &collect), None);
        // Fewer lines than collected paths.
        assert_eq!(
            parse_trailer(b"taskc-trailer exit=0\ntaskc-trailer end\n", &collect),
            None
        );
        // A path whose archive could not be made (no fork left): not "absent".
        let starved = b"taskc-trailer exit=0\n\ntaskc-trailer end\n";
        assert_eq!(parse_trailer(starved, &collect), None);
        // Not base64.
        assert_eq!(
            parse_trailer(b"taskc-trailer exit=0\n%%%\ntaskc-trailer end\n", &collect),
            None
        );
    }
}
