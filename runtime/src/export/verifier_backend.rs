//! The backend of the exported grader: runs each scoring run's script **in the container
//! it is in** — Harbor's verifier container, a fresh container of the task image the agent
//! never ran in — as root, with `$TASKC_ROOT` empty, exactly as the Docker backend runs it
//! in a fresh container (`exec::script`'s contract). Runs are sequential; before each one
//! every repository is put back to its base commit (ownership, tracked files, untracked
//! files; ignored files, which setup commands leave, are kept) and the harness folders of
//! the previous run are removed, so each run starts as in a fresh container of the image.
//! It has no images and no services (the exporter refuses tasks with services).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use futures_util::future::BoxFuture;

use super::bundle::BundleRepo;
use crate::backend::{
    Backend, BackendError, GcReport, ImageBuild, KeepImages, LogBuffer, RunOutcome, RunRequest,
    LOG_CAP,
};
use crate::exec::script::{SELECT_DIR, TASKC_DIR};
use crate::local::fs_tree::{collect, write_file};
use crate::local::process::run_script;

/// The backend name results are stored under.
pub const NAME: &str = "harbor-verifier";

/// Runs scripts in this very container (see the module's documentation).
pub struct InContainer {
    /// Every repository of the image, put back to base before each run.
    pub repos: Vec<BundleRepo>,
    /// The image's environment, as the container gave it to the grader.
    pub env: Vec<(String, String)>,
    /// A root-only folder for the runs' logs.
    pub scratch: PathBuf,
    /// The test user's uid in this trial (`export::test_user`), handed to every run script.
    pub test_uid: u32,
}

impl InContainer {
    /// The container as the image left it: repositories at base, no harness folder.
    async fn reset(&self, req: &RunRequest) -> Result<(), BackendError> {
        let mut script = String::from("set -e\n");
        script.push_str(&format!(
            "rm -rf {} {}\n",
            crate::exec::script::sh_quote(TASKC_DIR),
            crate::exec::script::sh_quote(SELECT_DIR)
        ));
        for r in &self.repos {
            let dir = crate::exec::script::sh_quote(&r.path);
            let commit = crate::exec::script::sh_quote(&r.commit);
            // The previous run handed its repository to the test user: back to root first,
            // so that root's git trusts it.
            script.push_str(&format!(
                "chown -R 0:0 {dir}\n\
                 git -C {dir} reset -q --hard {commit}\n\
                 git -C {dir} clean -q -f -f -d\n"
            ));
        }
        let log = self.scratch.join("reset.log");
        let finished = run_script(
            &bash(&script),
            Path::new("/"),
            &self.env,
            &log,
            std::time::Duration::from_secs(600),
            LOG_CAP as u64,
        )
        .await
        .map_err(|e| BackendError::io("start bash in", "/", e))?;
        if finished.exit_code != Some(0) {
            let out = std::fs::read(&log).unwrap_or_default();
            return Err(BackendError::InvalidRequest {
                run_id: req.run_id.clone(),
                detail: format!(
                    "cannot put the repositories back to base before the run: {}",
                    String::from_utf8_lossy(&out).trim()
                ),
            });
        }
        Ok(())
    }

    async fn run_inner(&self, req: &RunRequest) -> Result<RunOutcome, BackendError> {
        req.check_paths()?;
        if let Some(e) = crate::backend::refuse_services(NAME, req) {
            return Err(e);
        }
        self.reset(req).await?;
        for upload in &req.uploads {
            write_file(Path::new(&upload.path), &upload.bytes, upload.mode)
                .map_err(|e| BackendError::io("write upload", &upload.path, e))?;
        }
        let cwd = PathBuf::from(&req.workdir);
        std::fs::create_dir_all(&cwd).map_err(|e| BackendError::io("create workdir", &cwd, e))?;
        // As the local backend: the log in memory, the scheduler writes it where it keeps it.
        let log_path = self.scratch.join("output.log");
        let mut env = self.env.clone();
        env.retain(|(k, _)| !req.env.contains_key(k) && k != "TASKC_ROOT");
        env.extend(req.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        env.push(("TASKC_ROOT".into(), String::new()));
        // No pids limit per run in this container: the test user gets a process limit
        // (the pid-holder attack otherwise forks until the verifier times out).
        env.push((crate::exec::script::NPROC_VAR.into(), "1".into()));
        // ... counted for this trial's own test uid, not the one every trial's image has.
        env.push((
            crate::exec::script::TEST_UID_VAR.into(),
            self.test_uid.to_string(),
        ));
        let started = Instant::now();
        let finished = run_script(
            &bash(&req.script),
            &cwd,
            &env,
            &log_path,
            req.timeout,
            LOG_CAP as u64 + 1,
        )
        .await
        .map_err(|e| BackendError::io("start bash in", &cwd, e))?;
        let duration = started.elapsed();
        let (log, truncated) = read_capped(&log_path)?;
        let mut collected = BTreeMap::new();
        for path in &req.collect {
            collect(Path::new(path), path, &mut collected)
                .map_err(|e| BackendError::io("collect", path, e))?;
        }
        Ok(RunOutcome {
            exit_code: finished.exit_code,
            log,
            log_truncated: truncated || finished.overflowed,
            timed_out: finished.timed_out,
            oom_killed: false,
            duration,
            collected,
            service_failure: None,
        })
    }
}

/// `bash -euo pipefail -c script`, as every backend runs it.
fn bash(script: &str) -> Vec<OsString> {
    ["bash", "-euo", "pipefail", "-c", script]
        .map(OsString::from)
        .to_vec()
}

fn read_capped(path: &Path) -> Result<(Vec<u8>, bool), BackendError> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).map_err(|e| BackendError::io("read run output", path, e))?;
    let mut bytes = Vec::new();
    file.take(LOG_CAP as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| BackendError::io("read run output", path, e))?;
    let mut buffer = LogBuffer::new(LOG_CAP);
    buffer.push(&bytes);
    Ok(buffer.finish())
}

impl Backend for InContainer {
    fn name(&self) -> &'static str {
        NAME
    }

    fn ensure_image<'a>(
        &'a self,
        _build: &'a ImageBuild,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        // The image is the container this runs in.
        Box::pin(async { Ok(()) })
    }

    fn tag_image<'a>(
        &'a self,
        _image: &'a str,
        _name: &'a str,
    ) -> BoxFuture<'a, Result<(), BackendError>> {
        Box::pin(async {
            Err(BackendError::Unsupported {
                backend: NAME,
                op: "tag an image".into(),
                help: "the exported grader only grades, in its own container".into(),
            })
        })
    }

    fn run<'a>(&'a self, req: &'a RunRequest) -> BoxFuture<'a, Result<RunOutcome, BackendError>> {
        Box::pin(self.run_inner(req))
    }

    fn remove_session<'a>(
        &'a self,
        _session: &'a str,
    ) -> BoxFuture<'a, Result<usize, BackendError>> {
        Box::pin(async { Ok(0) })
    }

    fn gc<'a>(
        &'a self,
        _keep: &'a KeepImages,
        _dry_run: bool,
    ) -> BoxFuture<'a, Result<GcReport, BackendError>> {
        Box::pin(async { Ok(GcReport::default()) })
    }
}
