//! Building a plan's environment and task images on the session's backend.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::model::Task;
use taskc_compiler::plan::Plan;

use super::build_log::ensure_image_logged;
use super::{PipelineError, Session, Site};
use crate::exec::images::{env_build, env_context, service_builds, task_build};
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
    Ok(build.tag)
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
    }
}
