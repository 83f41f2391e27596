//! The task image: environment + every repository at base + setup commands.

use crate::model::{Repo, Source, Task};
use crate::plan::{canonical_digest, short_id, EnvImage, RepoMaterial, SourceRef, TaskImage};

/// `/work/<name>`.
pub(crate) fn repo_path(name: &str) -> String {
    format!("/work/{name}")
}

/// The identity of a repository's tree: what decides its bytes, not where it is read from.
pub fn tree_digest(repo: &Repo) -> String {
    let base = repo.base.as_deref();
    match &repo.source {
        Source::Dir { digest, .. } => canonical_digest("taskc.tree/1", &("dir", digest, base)),
        Source::Git { url } => canonical_digest("taskc.tree/1", &("git", url, base)),
        Source::Bundle { digest, .. } => {
            canonical_digest("taskc.tree/1", &("bundle", digest, base))
        }
    }
}

fn source_ref(s: &Source) -> SourceRef {
    match s {
        Source::Dir { path, digest } => SourceRef::Dir {
            path: path.clone(),
            digest: digest.clone(),
        },
        Source::Git { url } => SourceRef::Git { url: url.clone() },
        Source::Bundle { path, digest } => SourceRef::Bundle {
            path: path.clone(),
            digest: digest.clone(),
        },
    }
}

pub(crate) fn task_image(task: &Task, env: &EnvImage) -> TaskImage {
    let repos: Vec<RepoMaterial> = task
        .repos
        .iter()
        .map(|r| RepoMaterial {
            name: r.name.clone(),
            role: r.role,
            path: repo_path(&r.name),
            source: source_ref(&r.source),
            base: r.base.clone(),
            digest: tree_digest(r),
            setup: r.setup.clone(),
        })
        .collect();
    let identity: Vec<_> = repos
        .iter()
        .map(|r| (&r.name, r.role, &r.path, &r.digest, &r.setup))
        .collect();
    let digest = canonical_digest(
        "taskc.task-image/1",
        &(&env.digest, "synthetic-commit/1", identity),
    );
    TaskImage {
        id: short_id("img", &digest),
        digest,
        from: env.id.clone(),
        repos,
    }
}
