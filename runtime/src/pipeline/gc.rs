//! `taskc gc`: find (and unless dry-running, remove) what taskc left behind that no kept
//! spec needs — containers of sessions that no longer run, taskc images no kept plan
//! references, local image folders and run folders, and stored results.
//!
//! Only objects taskc labelled are touched: containers with the `taskc.session` label and
//! images with the `taskc.image` label. The base image `taskc/base:*` is never removed.
//! A session is live while the process whose id it carries (`s<pid>-…`) runs on this host.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bollard::container::{ListContainersOptions, RemoveContainerOptions};
use bollard::image::{ListImagesOptions, RemoveImageOptions};
use serde::Serialize;
use taskc_compiler::plan::Plan;

use super::PipelineError;
use crate::backend::{BackendError, IMAGE_LABEL, SESSION_LABEL};
use crate::docker::DockerBackend;
use crate::exec::images::tag;
use crate::exec::ResultStore;
use crate::local::LocalBackend;

/// Tag prefix of the base image, which gc never removes.
pub const BASE_IMAGE_PREFIX: &str = "taskc/base:";

/// What to keep: image tags and run ids referenced by the kept specs' plans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GcKeep {
    pub images: BTreeSet<String>,
    pub runs: BTreeSet<String>,
    /// Verification plans with phase-2 runs: their narrowed runs' ids follow from the
    /// stored phase-1 results, so they are known only when results are collected.
    pub targeted: Vec<taskc_compiler::plan::VerifyPlan>,
}

impl GcKeep {
    /// Keep the images of `plan` and the results of its verification or scoring runs.
    pub fn add_plan(&mut self, plan: &Plan) {
        self.images.insert(tag("env", &plan.images.environment.id));
        self.images.insert(tag("task", &plan.images.task.id));
        for run in plan.runs() {
            self.runs.insert(run.id.clone());
        }
        if let Some(v) = plan.verify.as_ref().filter(|v| !v.targeted.is_empty()) {
            self.targeted.push(v.clone());
        }
    }

    /// The narrowed runs of the kept targeted plans, from the results stored in `store`.
    fn narrowed(&self, store: &ResultStore) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for v in &self.targeted {
            let mut results = std::collections::BTreeMap::new();
            for r in &v.runs {
                let reps: Vec<_> = (0..).map_while(|k| store.get(&r.id, k)).collect();
                if !reps.is_empty() {
                    results.insert(r.id.clone(), reps);
                }
            }
            for n in crate::verify::phases::phase_two(v, &results) {
                out.insert(n.run.id);
            }
        }
        out
    }
}

/// One object gc removed (or, dry-running, would remove).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum GcItem {
    /// A Docker container of a session that no longer runs.
    Container { id: String, session: String },
    /// A Docker image (by tag, or by id when untagged) labelled `taskc.image`.
    Image { name: String },
    /// A local backend image folder.
    ImageFolder { path: PathBuf },
    /// A local backend run folder of a session that no longer runs.
    RunFolder { path: PathBuf },
    /// A stored result or log file.
    Result { path: PathBuf },
}

impl std::fmt::Display for GcItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GcItem::Container { id, session } => {
                let short = id.get(..12).unwrap_or(id);
                write!(f, "container {short} (session {session})")
            }
            GcItem::Image { name } => write!(f, "image {name}"),
            GcItem::ImageFolder { path } => write!(f, "local image {}", path.display()),
            GcItem::RunFolder { path } => write!(f, "local run {}", path.display()),
            GcItem::Result { path } => write!(f, "result {}", path.display()),
        }
    }
}

/// What one gc found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GcReport {
    /// Removed, or with `dry_run` to be removed.
    pub removed: Vec<GcItem>,
    /// Objects that could not be removed (e.g. an image still in use), with the reason.
    pub skipped: Vec<(GcItem, String)>,
    pub dry_run: bool,
}

/// Collect garbage of the Docker engine (`docker` is `Some`) or of the local backend under
/// `cache`, plus the stored results of that backend. With `dry_run`, nothing is removed.
pub async fn gc(
    docker: Option<&DockerBackend>,
    cache: &Path,
    keep: &GcKeep,
    dry_run: bool,
) -> Result<GcReport, PipelineError> {
    let mut report = GcReport {
        dry_run,
        ..GcReport::default()
    };
    let backend = match docker {
        Some(d) => {
            docker_gc(d, keep, &mut report).await?;
            "docker"
        }
        None => {
            local_gc(cache, keep, &mut report)?;
            "local"
        }
    };
    results_gc(cache, backend, keep, &mut report)?;
    Ok(report)
}

/// Whether the taskc session `id` (`s<pid>-<hex>`) belongs to a process running on this host.
pub fn session_is_live(id: &str) -> bool {
    let Some(pid) = id
        .strip_prefix('s')
        .and_then(|rest| rest.split('-').next())
        .and_then(|pid| pid.parse::<u32>().ok())
    else {
        // Not a session id taskc writes: not ours to judge, keep it.
        return true;
    };
    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
}

async fn docker_gc(
    docker: &DockerBackend,
    keep: &GcKeep,
    report: &mut GcReport,
) -> Result<(), PipelineError> {
    let client = docker.client();
    let containers = client
        .list_containers(Some(ListContainersOptions::<String> {
            all: true,
            filters: [("label".to_string(), vec![SESSION_LABEL.to_string()])].into(),
            ..Default::default()
        }))
        .await
        .map_err(|e| docker_err("list the taskc containers", e))?;
    for c in containers {
        let (Some(id), Some(session)) = (
            c.id.clone(),
            c.labels
                .as_ref()
                .and_then(|l| l.get(SESSION_LABEL))
                .cloned(),
        ) else {
            continue;
        };
        if session_is_live(&session) {
            continue;
        }
        let item = GcItem::Container { id, session };
        if !report.dry_run {
            let GcItem::Container { id, .. } = &item else {
                continue;
            };
            let options = RemoveContainerOptions {
                force: true,
                v: true,
                ..Default::default()
            };
            if let Err(e) = client.remove_container(id, Some(options)).await {
                if !is_status(&e, 404) {
                    report.skipped.push((item, e.to_string()));
                    continue;
                }
            }
        }
        report.removed.push(item);
    }

    let images = client
        .list_images(Some(ListImagesOptions::<String> {
            all: false,
            filters: [("label".to_string(), vec![IMAGE_LABEL.to_string()])].into(),
            ..Default::default()
        }))
        .await
        .map_err(|e| docker_err("list the taskc images", e))?;
    for image in images {
        let tags: Vec<&String> = image
            .repo_tags
            .iter()
            .filter(|t| t.as_str() != "<none>:<none>")
            .collect();
        let protected = tags
            .iter()
            .any(|t| t.starts_with(BASE_IMAGE_PREFIX) || keep.images.contains(t.as_str()));
        if protected {
            continue;
        }
        let names: Vec<String> = if tags.is_empty() {
            vec![image.id.clone()]
        } else {
            tags.iter().map(|t| t.to_string()).collect()
        };
        for name in names {
            let item = GcItem::Image { name };
            if !report.dry_run {
                let GcItem::Image { name } = &item else {
                    continue;
                };
                let options = RemoveImageOptions {
                    force: false,
                    noprune: false,
                };
                if let Err(e) = client.remove_image(name, Some(options), None).await {
                    if !is_status(&e, 404) {
                        report.skipped.push((item, e.to_string()));
                        continue;
                    }
                }
            }
            report.removed.push(item);
        }
    }
    Ok(())
}

fn local_gc(cache: &Path, keep: &GcKeep, report: &mut GcReport) -> Result<(), PipelineError> {
    let local = LocalBackend::new(cache.join("local"));
    let kept: BTreeSet<PathBuf> = keep.images.iter().map(|t| local.image_dir(t)).collect();
    let images = cache.join("local").join("images");
    for entry in list(&images)? {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if kept.contains(&path) || name.starts_with("taskc_base_") {
            continue;
        }
        remove(report, GcItem::ImageFolder { path })?;
    }
    let runs = cache.join("local").join("runs");
    for session in list(&runs)? {
        let name = session.file_name().to_string_lossy().into_owned();
        // Folder names are `<session id>-<12 hex>`: the session id is what precedes the hash.
        let id = name.rsplit_once('-').map_or(name.as_str(), |(id, _)| id);
        if session_is_live(id) {
            continue;
        }
        remove(
            report,
            GcItem::RunFolder {
                path: session.path(),
            },
        )?;
    }
    Ok(())
}

fn results_gc(
    cache: &Path,
    backend: &str,
    keep: &GcKeep,
    report: &mut GcReport,
) -> Result<(), PipelineError> {
    let dir = cache.join("results").join(backend);
    let store = ResultStore::new(cache, backend);
    let mut runs = keep.runs.clone();
    runs.extend(keep.narrowed(&store));
    let mut found = Vec::new();
    for e in list(&dir)? {
        let name = e.file_name().to_string_lossy().into_owned();
        let run = name.split('.').next().unwrap_or("");
        if !runs.contains(run) {
            found.push(GcItem::Result { path: e.path() });
        }
    }
    found.sort_by_key(|item| item.to_string());
    if !report.dry_run && !found.is_empty() {
        store.gc(&runs).map_err(|source| PipelineError::Io {
            what: format!("cannot remove stored results in {}", dir.display()),
            source,
        })?;
    }
    report.removed.extend(found);
    Ok(())
}

/// Entries of `dir`, sorted by name; none when it does not exist.
fn list(dir: &Path) -> Result<Vec<std::fs::DirEntry>, PipelineError> {
    let read = |source| PipelineError::Io {
        what: format!("cannot read {}", dir.display()),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(read(e)),
    };
    let mut out = entries.collect::<Result<Vec<_>, _>>().map_err(read)?;
    out.sort_by_key(|e| e.file_name());
    Ok(out)
}

fn remove(report: &mut GcReport, item: GcItem) -> Result<(), PipelineError> {
    if !report.dry_run {
        let (GcItem::ImageFolder { path } | GcItem::RunFolder { path }) = &item else {
            return Ok(());
        };
        match std::fs::remove_dir_all(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(PipelineError::Io {
                    what: format!("cannot remove {}", path.display()),
                    source: e,
                })
            }
            _ => {}
        }
    }
    report.removed.push(item);
    Ok(())
}

fn is_status(e: &bollard::errors::Error, code: u16) -> bool {
    matches!(e, bollard::errors::Error::DockerResponseServerError { status_code, .. } if *status_code == code)
}

fn docker_err(op: &str, e: bollard::errors::Error) -> PipelineError {
    PipelineError::Backend(BackendError::DockerUnreachable {
        detail: format!("cannot {op}: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_of_this_process_are_live_and_of_a_dead_pid_are_not() {
        assert!(session_is_live(&format!("s{}-abc", std::process::id())));
        // pid_max on Linux is at most 2^22: this pid cannot exist.
        assert!(!session_is_live("s99999999-abc"));
        // Labels taskc did not write are kept.
        assert!(session_is_live("someone-else"));
    }

    #[test]
    fn dry_run_on_a_local_cache_lists_without_removing() {
        let cache = tempfile::tempdir().unwrap();
        let img = cache
            .path()
            .join("local/images/taskc_task_img-1-aaaaaaaaaaaa");
        let base = cache
            .path()
            .join("local/images/taskc_base_bookworm-bbbbbbbbbbbb");
        let run = cache
            .path()
            .join("local/runs/s99999999-1f-cccccccccccc/run-1");
        let res = cache.path().join("results/local/run-1.0.json");
        for d in [&img, &base, &run] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(res.parent().unwrap()).unwrap();
        std::fs::write(&res, "{}").unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let report = rt
            .block_on(gc(None, cache.path(), &GcKeep::default(), true))
            .unwrap();
        assert_eq!(report.removed.len(), 3, "{:?}", report.removed);
        assert!(img.exists() && run.exists() && res.exists() && base.exists());
        let report = rt
            .block_on(gc(None, cache.path(), &GcKeep::default(), false))
            .unwrap();
        assert_eq!(report.removed.len(), 3);
        assert!(!img.exists() && !run.parent().unwrap().exists() && !res.exists());
        assert!(base.exists(), "the base image is never removed");
    }
}
