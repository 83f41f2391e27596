//! The local backend: runs scripts with the host's toolchains in throw-away workspaces,
//! each inside a bubblewrap sandbox ([`sandbox`]).
//!
//! An "image" is a folder `<cache>/images/<name>/` standing for the container's `/`: the
//! build context files are written there and `local_setup` commands run in it once. A run
//! copies that folder to `<cache>/runs/<session>/run-*/root`, writes the uploads (container
//! path `/work/x` → `root/work/x`), and runs the script with a cleared environment:
//! `PATH`, `LANG`, `LC_ALL`, `HOME` and `TMPDIR` (both inside the workspace) and
//! `TASKC_ROOT` (the mapped `/`; the Docker backend sets it to the empty string, so scripts
//! written as `"$TASKC_ROOT/work/x"` run unchanged on both). Inside the sandbox the run's
//! copy is mounted at the image folder's path (`TASKC_ROOT` is that path), so absolute paths
//! setup recorded resolve into the copy; the cached image itself, the rest of the cache,
//! the caller's folder, other processes and the Docker socket are not visible, and the
//! run's workspace is the only writable place. The script's output reaches taskc through a
//! pipe. Its CPU, memory and process limits are cgroup v1 groups where the host lets taskc
//! create them ([`cgroup`]); else only the script's `prlimit --nproc`.
//!
//! Without bubblewrap (or when the host refuses a namespace it needs) the backend runs
//! unsandboxed: [`LocalBackend::sandbox_status`] says why, and a run marked
//! [`RunRequest::untrusted`] (a prediction's code) is refused with
//! [`BackendError::Unsandboxed`]. Unsandboxed runs with `network: false` still get a
//! network namespace when `unshare` allows it, and `TASKC_UNSANDBOXED=1`: only there does the
//! run script keep its user for the test command (sandboxed, as root, it drops to the
//! unprivileged test user as in Docker).

mod cgroup;
pub(crate) mod fs_tree;
mod gc;
pub(crate) mod process;
mod sandbox;

pub use sandbox::{SandboxStatus, BWRAP_VAR};

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};

use crate::backend::{
    Backend, BackendError, GcReport, ImageBuild, KeepImages, Limits, LogBuffer, RunOutcome,
    RunRequest, LOG_CAP,
};
use fs_tree::{collect, copy_tree, map_path, write_file};
use sandbox::{Mounts, Sandbox};

/// The `PATH` runs and setup commands see unless changed with [`LocalBackend::with_path`].
pub const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Marker file written last in a finished image folder.
const READY_MARKER: &str = ".taskc-image-ready";

/// Runs scripts as local processes under a cache folder.
#[derive(Debug, Clone)]
pub struct LocalBackend {
    cache: PathBuf,
    path_var: String,
    /// Wrapper giving an unsandboxed run no network (`unshare --net --`), when allowed.
    no_network: Option<Vec<String>>,
    /// Folders no sandbox shows even below a shown folder (besides the cache).
    hidden: Vec<PathBuf>,
    /// The bubblewrap program chosen with [`LocalBackend::with_bwrap`] (`Some(None)`: none).
    bwrap: Option<Option<PathBuf>>,
    /// The sandbox, probed on first use (after the builder calls), or why there is none.
    sandbox: Arc<OnceLock<Result<Sandbox, String>>>,
    /// Serialises image preparation within this process.
    build_lock: Arc<tokio::sync::Mutex<()>>,
}

impl LocalBackend {
    /// A backend keeping images and run workspaces under `cache`. Probes once whether runs
    /// can be cut off the network (see [`LocalBackend::isolates_network`]).
    pub fn new(cache: impl Into<PathBuf>) -> LocalBackend {
        LocalBackend {
            cache: cache.into(),
            path_var: DEFAULT_PATH.to_string(),
            no_network: process::probe_network_isolation(),
            hidden: Vec::new(),
            bwrap: None,
            sandbox: Arc::new(OnceLock::new()),
            build_lock: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    /// Folders no run may see (e.g. the whole taskc cache, the spec's folder): masked where a
    /// shown folder holds them, though a `PATH` folder inside one stays shown. This
    /// backend's own cache folder is never shown at all.
    pub fn with_hidden(mut self, paths: impl IntoIterator<Item = PathBuf>) -> LocalBackend {
        self.hidden.extend(paths);
        self.sandbox = Arc::new(OnceLock::new());
        self
    }

    /// Use this bubblewrap program (`None`: run unsandboxed) instead of `$TASKC_BWRAP` or
    /// `bwrap` on `PATH`.
    pub fn with_bwrap(mut self, program: Option<PathBuf>) -> LocalBackend {
        self.bwrap = Some(program);
        self.sandbox = Arc::new(OnceLock::new());
        self
    }

    /// Whether runs are sandboxed with bubblewrap, and if not, why (probed once).
    pub fn sandbox_status(&self) -> SandboxStatus {
        match self.sandbox() {
            Ok(s) => SandboxStatus::Sandboxed {
                bwrap: s.program().to_path_buf(),
            },
            Err(reason) => SandboxStatus::Unsandboxed {
                reason: reason.clone(),
            },
        }
    }

    fn sandbox(&self) -> &Result<Sandbox, String> {
        self.sandbox.get_or_init(|| {
            Sandbox::probe(
                self.bwrap.clone(),
                &self.path_var,
                std::slice::from_ref(&self.cache),
                &self.hidden,
            )
        })
    }

    /// Whether runs with `network: false` really have no network (a new network namespace,
    /// from the sandbox or `unshare`). When `false`, they run with the host's network.
    pub fn isolates_network(&self) -> bool {
        self.sandbox().is_ok() || self.no_network.is_some()
    }

    /// Replaces the `PATH` given to runs and used to check `local_requires`.
    pub fn with_path(mut self, path_var: impl Into<String>) -> LocalBackend {
        self.path_var = path_var.into();
        self.sandbox = Arc::new(OnceLock::new());
        self
    }

    /// The folder standing for image `tag`.
    pub fn image_dir(&self, tag: &str) -> PathBuf {
        self.cache.join("images").join(folder_name(tag))
    }

    fn runs_dir(&self) -> PathBuf {
        self.cache.join("runs")
    }

    fn session_dir(&self, session: &str) -> PathBuf {
        self.runs_dir().join(folder_name(session))
    }

    /// Whether image `tag` was fully prepared.
    pub fn image_exists(&self, tag: &str) -> bool {
        self.image_dir(tag).join(READY_MARKER).is_file()
    }

    fn find_program(&self, program: &str) -> bool {
        if program.contains('/') {
            return Path::new(program).is_file();
        }
        self.path_var
            .split(':')
            .filter(|d| !d.is_empty())
            .any(|d| Path::new(d).join(program).is_file())
    }

    fn base_env(&self, root: &Path, home: &Path, tmp: &Path) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), self.path_var.clone()),
            ("LANG".into(), "C.UTF-8".into()),
            ("LC_ALL".into(), "C.UTF-8".into()),
            ("HOME".into(), home.display().to_string()),
            ("TMPDIR".into(), tmp.display().to_string()),
            ("TASKC_ROOT".into(), root.display().to_string()),
        ]
    }

    async fn build(&self, build: &ImageBuild) -> Result<(), BackendError> {
        for program in &build.local_requires {
            if !self.find_program(program) {
                return Err(BackendError::MissingProgram {
                    tag: build.tag.clone(),
                    program: program.clone(),
                });
            }
        }
        // Setup runs in the image's final folder, so absolute paths it records (virtualenv
        // shebangs, …) stay valid; builds in this process are serialised.
        let _building = self.build_lock.lock().await;
        if self.image_exists(&build.tag) {
            return Ok(());
        }
        let images = self.cache.join("images");
        fs::create_dir_all(&images).map_err(|e| BackendError::io("create folder", &images, e))?;
        let root = self.image_dir(&build.tag);
        // A folder without the ready marker is what an interrupted build left behind.
        remove_dir(&root)?;
        fs::create_dir_all(&root).map_err(|e| BackendError::io("create folder", &root, e))?;
        let result = self.prepare(build, &root, &images).await;
        if result.is_err() {
            let _ = fs::remove_dir_all(&root);
        }
        result
    }

    /// Writes the context into `root` and runs the setup commands there.
    async fn prepare(
        &self,
        build: &ImageBuild,
        root: &Path,
        images: &Path,
    ) -> Result<(), BackendError> {
        let scratch = tempfile::Builder::new()
            .prefix(".setup-")
            .tempdir_in(images)
            .map_err(|e| BackendError::io("create a setup folder in", images, e))?;
        let home = scratch.path().join("home");
        let tmp = scratch.path().join("tmp");
        for dir in [&home, &tmp] {
            fs::create_dir_all(dir).map_err(|e| BackendError::io("create folder", dir, e))?;
        }
        for file in &build.context {
            let target = map_path(root, &file.path).ok_or_else(|| BackendError::ImageBuild {
                tag: build.tag.clone(),
                detail: format!("context file `{}` escapes the image folder", file.path),
                log: String::new(),
            })?;
            write_file(&target, &file.bytes, file.mode)
                .map_err(|e| BackendError::io("write context file", &target, e))?;
        }
        let env = self.base_env(root, &home, &tmp);
        for command in &build.local_setup {
            let log = scratch.path().join("setup.log");
            // Setup may use the network (package indexes); it sees and writes only its image
            // folder and its scratch folder.
            let (mut argv, cwd) = match self.sandbox() {
                Ok(sandbox) => {
                    let mounts = Mounts {
                        rw: vec![(root, root), (scratch.path(), scratch.path())],
                        chdir: root,
                        network: true,
                    };
                    (sandbox.argv(&mounts), scratch.path())
                }
                Err(_) => (Vec::new(), root),
            };
            argv.extend(bash(command));
            let finished = process::run_script(
                &argv,
                cwd,
                &env,
                &log,
                Duration::from_secs(3600),
                LOG_CAP as u64 + 1,
            )
            .await
            .map_err(|e| BackendError::io("run setup command in", root, e))?;
            if finished.exit_code != Some(0) {
                let output = fs::read(&log).unwrap_or_default();
                return Err(BackendError::LocalSetup {
                    tag: build.tag.clone(),
                    command: command.clone(),
                    status: match finished.exit_code {
                        Some(code) => format!("exit code {code}"),
                        None => "timed out".into(),
                    },
                    output: String::from_utf8_lossy(&output).into_owned(),
                });
            }
        }
        write_file(&root.join(READY_MARKER), build.tag.as_bytes(), 0o644)
            .map_err(|e| BackendError::io("write", root, e))
    }

    async fn run_inner(&self, req: &RunRequest) -> Result<RunOutcome, BackendError> {
        let invalid = |detail: String| BackendError::InvalidRequest {
            run_id: req.run_id.clone(),
            detail,
        };
        let sandbox = self.sandbox();
        if let (true, Err(reason)) = (req.untrusted, sandbox) {
            return Err(BackendError::Unsandboxed {
                run_id: req.run_id.clone(),
                reason: reason.clone(),
            });
        }
        req.check_paths()?;
        if !self.image_exists(&req.image) {
            return Err(BackendError::ImageMissing {
                tag: req.image.clone(),
                help: "prepare it first with ensure_image (local images live under the cache \
                       folder's `images/`)"
                    .into(),
            });
        }
        let session_dir = self.session_dir(&req.session);
        fs::create_dir_all(&session_dir)
            .map_err(|e| BackendError::io("create folder", &session_dir, e))?;
        let workspace = tempfile::Builder::new()
            .prefix("run-")
            .tempdir_in(&session_dir)
            .map_err(|e| BackendError::io("create workspace in", &session_dir, e))?;
        let root = workspace.path().join("root");
        let home = workspace.path().join("home");
        let tmp = workspace.path().join("tmp");
        let image = self.image_dir(&req.image);
        copy_tree(&image, &root).map_err(|e| BackendError::io("copy image folder", &image, e))?;
        let _ = fs::remove_file(root.join(READY_MARKER));
        for dir in [&home, &tmp] {
            fs::create_dir_all(dir).map_err(|e| BackendError::io("create folder", dir, e))?;
            // The test user (not root) writes there too.
            fs::set_permissions(dir, fs::Permissions::from_mode(0o1777))
                .map_err(|e| BackendError::io("set permissions of", dir, e))?;
        }
        for upload in &req.uploads {
            let target = map_path(&root, &upload.path)
                .ok_or_else(|| invalid(format!("upload path `{}` escapes", upload.path)))?;
            write_file(&target, &upload.bytes, upload.mode)
                .map_err(|e| BackendError::io("write upload", &target, e))?;
        }
        let cwd = map_path(&root, &req.workdir)
            .ok_or_else(|| invalid(format!("workdir `{}` escapes", req.workdir)))?;
        fs::create_dir_all(&cwd).map_err(|e| BackendError::io("create workdir", &cwd, e))?;
        let log_path = workspace.path().join("output.log");
        // Sandboxed, the run's copy is mounted where the image lives: TASKC_ROOT is the image
        // folder's path, and paths setup recorded there resolve into the copy.
        let (mut argv, env_root, outer_cwd) = match sandbox {
            Ok(sandbox) => {
                let inside_cwd = map_path(&image, &req.workdir)
                    .ok_or_else(|| invalid(format!("workdir `{}` escapes", req.workdir)))?;
                let mounts = Mounts {
                    rw: vec![(&root, &image), (&home, &home), (&tmp, &tmp)],
                    chdir: &inside_cwd,
                    network: req.network,
                };
                (
                    sandbox.argv(&mounts),
                    image.clone(),
                    workspace.path().to_path_buf(),
                )
            }
            Err(_) => {
                let prefix: Vec<OsString> = match (&self.no_network, req.network) {
                    (Some(prefix), false) => prefix.iter().map(OsString::from).collect(),
                    _ => Vec::new(),
                };
                (prefix, root.clone(), cwd.clone())
            }
        };
        argv.extend(bash(&req.script));
        let mut env = self.base_env(&env_root, &home, &tmp);
        env.extend(req.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        if sandbox.is_err() {
            // No sandbox: the run folder is not the test user's to reach, and only trusted
            // predictions run here; the script keeps its user (`exec::script`).
            env.push((crate::exec::script::UNSANDBOXED_VAR.into(), "1".into()));
        }
        // The run's share of the machine (CPU quota, memory, processes), where the host's
        // cgroup v1 controllers are writable; else the script's `prlimit --nproc` alone.
        let group = (req.limits != Limits::default() && cgroup::unavailable().is_none())
            .then(|| {
                cgroup::RunCgroup::create(&cgroup_name(&req.run_id, workspace.path()), &req.limits)
                    .ok()
            })
            .flatten();
        if let Some(g) = &group {
            argv = g.wrap(argv);
            if req.limits.pids.is_some_and(|p| p > 0) {
                // The run's own pids group limits it; a per-uid limit would be shared.
                env.push((crate::exec::script::PIDS_CGROUP_VAR.into(), "1".into()));
            }
        }
        let started = Instant::now();
        let finished = process::run_script(
            &argv,
            &outer_cwd,
            &env,
            &log_path,
            req.timeout,
            LOG_CAP as u64 + 1,
        )
        .await
        .map_err(|e| BackendError::io("start bash in", &cwd, e))?;
        let duration = started.elapsed();
        let (log, truncated) = read_capped(&log_path)?;
        let log_truncated = truncated || finished.overflowed;
        let mut collected = BTreeMap::new();
        for path in &req.collect {
            if let Some(host) = map_path(&root, path) {
                collect(&host, path, &mut collected)
                    .map_err(|e| BackendError::io("collect", &host, e))?;
            }
        }
        let mut oom_killed = false;
        if let Some(g) = group {
            oom_killed = g.oom_kills() > 0;
            // The harness cannot see the host's cgroups from the sandbox: the backend's
            // count of refused forks is the run's record (as `pids.events` is on Docker).
            let hits = g.pids_max_hits();
            let limits_file = crate::exec::script::harness_file(crate::exec::script::LIMITS_FILE);
            if hits > 0 {
                collected.insert(limits_file, format!("pids-max {hits}\n").into_bytes());
            }
        }
        let ws_path = workspace.path().to_path_buf();
        workspace
            .close()
            .map_err(|e| BackendError::io("remove workspace", &ws_path, e))?;
        Ok(RunOutcome {
            exit_code: finished.exit_code,
            log,
            log_truncated,
            timed_out: finished.timed_out,
            oom_killed,
            duration,
            collected,
            service_failure: None,
        })
    }
}

/// `bash -euo pipefail -c script`.
fn bash(script: &str) -> [OsString; 5] {
    ["bash", "-euo", "pipefail", "-c", script].map(OsString::from)
}

/// A file-system-safe, collision-free folder name for a tag or session.
fn folder_name(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let hash = hex::encode(Sha256::digest(s.as_bytes()));
    format!("{}-{}", clean.trim_start_matches('.'), &hash[..12])
}

fn read_capped(path: &Path) -> Result<(Vec<u8>, bool), BackendError> {
    use std::io::Read;
    let file = fs::File::open(path).map_err(|e| BackendError::io("read run output", path, e))?;
    let mut bytes = Vec::new();
    let mut limited = file.take(LOG_CAP as u64 + 1);
    limited
        .read_to_end(&mut bytes)
        .map_err(|e| BackendError::io("read run output", path, e))?;
    let mut buffer = LogBuffer::new(LOG_CAP);
    buffer.push(&bytes);
    Ok(buffer.finish())
}

fn remove_dir(path: &Path) -> Result<(), BackendError> {
    match fs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(BackendError::io("remove folder", path, e)),
    }
}

fn entries(dir: &Path) -> Result<Vec<fs::DirEntry>, BackendError> {
    match fs::read_dir(dir) {
        Ok(rd) => rd
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| BackendError::io("list folder", dir, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(BackendError::io("list folder", dir, e)),
    }
}

impl Backend for LocalBackend {
    fn name(&self) -> &'static str {
        "local"
    }

    fn ensure_image<'a>(
        &'a self,
        build: &'a ImageBuild,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(async move {
            if self.image_exists(&build.tag) {
                return Ok(());
            }
            self.build(build).await
        })
    }

    fn run<'a>(&'a self, req: &'a RunRequest) -> BoxFuture<'a, Result<RunOutcome, BackendError>> {
        if let Some(refused) = crate::backend::refuse_services("local", req) {
            return Box::pin(async move { Err(refused) });
        }
        Box::pin(self.run_inner(req))
    }

    fn remove_session<'a>(
        &'a self,
        session: &'a str,
    ) -> BoxFuture<'a, Result<usize, BackendError>> {
        Box::pin(async move {
            let dir = self.session_dir(session);
            let count = entries(&dir)?.len();
            remove_dir(&dir)?;
            Ok(count)
        })
    }

    fn tag_image<'a>(
        &'a self,
        _image: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(async move {
            Err(BackendError::Unsupported {
                backend: "local",
                op: format!(
                    "tag an image as `{name}` (local images are folders, not named images)"
                ),
                help: "pass `--backend docker`".into(),
            })
        })
    }

    fn gc<'a>(
        &'a self,
        keep: &'a KeepImages,
        dry_run: bool,
    ) -> BoxFuture<'a, Result<GcReport, BackendError>> {
        Box::pin(async move { self.gc_inner(keep, dry_run) })
    }
}

/// The name of a run's cgroups: the run id and its workspace folder's unique name. Run ids
/// are content-addressed, so two sessions (two `verify`s with their own caches, or one
/// scheduling the same run twice) run the same id at once; a group named by the id alone
/// was shared, and the first run to end killed what was left in it — the other's sandbox.
fn cgroup_name(run_id: &str, workspace: &Path) -> String {
    let unique = workspace
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{run_id}-{unique}")
}
