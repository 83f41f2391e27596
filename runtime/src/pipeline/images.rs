//! Building a plan's environment and task images on the session's backend.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::model::Task;
use taskc_compiler::plan::Plan;

use super::build_log::ensure_image_logged;
use super::{PipelineError, Session, Site};
use crate::canary;
use crate::exec::images::{env_build, env_context, node_builds, service_builds, task_build};
use crate::repo::{materialize, RepoSource};

/// Build (or find) the environment and task images of `plan`; returns the task image tag.
/// Repositories are materialised from the spec's sources relative to `spec_dir` (git URLs
/// rewritten by `site`) FIRST: a source that cannot be fetched fails before any image build.
pub async fn prepare_images(
    session: &Session,
    plan: &Plan,
    task: &Task,
    spec_dir: &Path,
    site: &Site,
) -> Result<String, PipelineError> {
    Ok(
        prepare_images_and_base_files(session, plan, task, spec_dir, site)
            .await?
            .0,
    )
}

/// [`prepare_images`], and the texts at base of the files the plan's patches touch
/// ([`canary::BaseFiles`]): canary names must not collide with a test the hidden patch does
/// not show.
pub async fn prepare_images_and_base_files(
    session: &Session,
    plan: &Plan,
    task: &Task,
    spec_dir: &Path,
    site: &Site,
) -> Result<(String, canary::BaseFiles), PipelineError> {
    let work = tempfile::Builder::new()
        .prefix("materialise-")
        .tempdir_in(ensure_dir(&session.cache.join("tmp"))?)
        .map_err(|source| PipelineError::Io {
            what: "cannot create a temporary folder in the cache".into(),
            source,
        })?;
    let mut dirs = BTreeMap::new();
    for r in &plan.images.task.repos {
        let Some(repo) = task.repo(&r.name) else {
            continue;
        };
        let dest = work.path().join(&r.name);
        let source = RepoSource::resolve(&repo.source, spec_dir, &site.rewrites);
        let cache = session.cache.clone();
        let base = repo.base.clone();
        let m = tokio::task::spawn_blocking(move || {
            materialize(&source, base.as_deref(), &dest, &cache)
        })
        .await
        .map_err(|e| PipelineError::Io {
            what: "materialising repositories".into(),
            source: std::io::Error::other(e.to_string()),
        })?
        .map_err(|source| PipelineError::Repo {
            repo: r.name.clone(),
            source,
        })?;
        dirs.insert(r.name.clone(), m);
    }

    let env = &plan.images.environment;
    let exec = executor_for_images(session);
    let cache = &session.cache;
    // The image nodes the environment is built on, parents first; each is built once
    // whatever plan or spec of the session names it (`ensure_image` skips an existing tag).
    let nodes = node_builds(plan, spec_dir, &dirs).map_err(|source| PipelineError::Io {
        what: "reading an image node's build context".into(),
        source,
    })?;
    for n in &nodes {
        ensure_image_logged(&exec, n, cache).await?;
    }
    let mut env_image = env_build(plan, &env.base_image);
    env_image.context = env_context(plan, spec_dir).map_err(|source| PipelineError::Io {
        what: "reading the environment's build context".into(),
        source,
    })?;
    ensure_image_logged(&exec, &env_image, cache).await?;
    let services = service_builds(plan, spec_dir).map_err(|source| PipelineError::Io {
        what: "reading a service image's build context".into(),
        source,
    })?;
    for s in &services {
        ensure_image_logged(&exec, s, cache).await?;
    }
    let build = task_build(plan, &dirs).map_err(|source| PipelineError::Io {
        what: "reading the materialised repositories".into(),
        source,
    })?;
    ensure_image_logged(&exec, &build, cache).await?;
    let base_files = base_files(plan, work.path(), dirs.keys());
    Ok((build.tag, base_files))
}

/// The largest file read for [`base_files`].
const BASE_FILE_CAP: u64 = 4 << 20;

/// Per repository, the text at base of every file a patch of `plan` names that exists in
/// the materialised repository under `root` (UTF-8 files up to [`BASE_FILE_CAP`]).
pub(crate) fn base_files<'a>(
    plan: &Plan,
    root: &Path,
    repos: impl Iterator<Item = &'a String>,
) -> canary::BaseFiles {
    let mut paths = std::collections::BTreeSet::new();
    for text in plan.blobs.values() {
        let patch = taskc_compiler::patch::parse_patch_lenient(text);
        paths.extend(
            patch
                .files
                .iter()
                .flat_map(|f| [f.old_path.clone(), f.new_path.clone()])
                .flatten(),
        );
    }
    let mut out = canary::BaseFiles::new();
    for repo in repos {
        let dir = root.join(repo);
        // Go: a test name must be unique in its package, so every test file of a folder a
        // patch touches is read.
        let mut wanted = paths.clone();
        for path in paths.iter().filter(|p| p.ends_with(".go")) {
            let folder = Path::new(path).parent().unwrap_or(Path::new(""));
            for entry in std::fs::read_dir(dir.join(folder))
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with("_test.go") {
                    wanted.insert(folder.join(&name).to_string_lossy().into_owned());
                }
            }
        }
        for path in &wanted {
            let file = dir.join(path);
            let small = std::fs::symlink_metadata(&file)
                .is_ok_and(|m| m.is_file() && m.len() <= BASE_FILE_CAP);
            if let Some(text) = small.then(|| std::fs::read_to_string(&file).ok()).flatten() {
                out.entry(repo.clone())
                    .or_default()
                    .insert(path.clone(), text);
            }
        }
    }
    out
}

fn ensure_dir(p: &Path) -> Result<&Path, PipelineError> {
    std::fs::create_dir_all(p).map_err(|source| PipelineError::Io {
        what: format!("cannot create {}", p.display()),
        source,
    })?;
    Ok(p)
}

pub(crate) fn executor_for_images(session: &Session) -> crate::exec::Executor {
    crate::exec::Executor {
        backend: session.backend.clone(),
        store: crate::exec::ResultStore::new(&session.cache, session.backend.name()),
        session: session.id.clone(),
        jobs: session.jobs,
        limits: session.limits,
        env: BTreeMap::new(),
        progress: session.progress.clone(),
        base_files: Default::default(),
    }
}
