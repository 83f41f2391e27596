//! The task image: environment + every repository at base + setup commands.

use crate::model::{Repo, Source, Task};
use crate::plan::{
    canonical_digest, short_id, EnvImage, RepoMaterial, SourceRef, TaskImage, TEST_UID, TEST_USER,
};

use super::shell_word::quote;

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
    let dockerfile = dockerfile(&env.tag(), &repos);
    let digest = image_digest(env, &repos, &dockerfile);
    TaskImage {
        id: short_id("img", &digest),
        digest,
        from: env.id.clone(),
        repos,
        dockerfile,
    }
}

/// The task image's digest: the environment image, each repository's identity, the way
/// repositories are materialised, and the Dockerfile's text — changing how the image is
/// built changes its id (invariant 3).
fn image_digest(env: &EnvImage, repos: &[RepoMaterial], dockerfile: &str) -> String {
    let identity: Vec<_> = repos
        .iter()
        .map(|r| (&r.name, r.role, &r.path, &r.digest, &r.setup))
        .collect();
    canonical_digest(
        "taskc.task-image/2",
        &(&env.digest, "synthetic-commit/1", identity, dockerfile),
    )
}

/// The download caches a setup command finds at its tools' default places (pip, uv, npm,
/// yarn as root), as BuildKit cache mounts: kept by the engine across builds, outside the
/// image (a builder without them removes the folders at the step's end: the same image).
/// Only pure caches: go's module cache and cargo's registry are where the tests read their
/// dependencies offline, so they stay in the image.
const SETUP_CACHE_MOUNTS: &str = "--mount=type=cache,id=taskc-pip,target=/root/.cache/pip \
     --mount=type=cache,id=taskc-uv,target=/root/.cache/uv \
     --mount=type=cache,id=taskc-npm,target=/root/.npm \
     --mount=type=cache,id=taskc-yarn,target=/usr/local/share/.cache/yarn";

/// The task image's Dockerfile: the repositories (materialised by the runtime into the
/// build context's `work/`, one synthetic commit each), the unprivileged test user, then
/// every repository's setup commands in declaration order.
fn dockerfile(from: &str, repos: &[RepoMaterial]) -> String {
    let mut df = format!("FROM {from}\nCOPY work/ /work/\n");
    // The user the test command runs as (least privilege); tool folders under /root
    // (GOPATH, CARGO_HOME…) stay readable to it.
    df.push_str(&format!(
        "RUN groupadd -g {TEST_UID} {TEST_USER} && useradd -u {TEST_UID} -g {TEST_UID} -M -d /tmp/{TEST_USER}-home -s /bin/bash {TEST_USER} && chmod 0755 /root\n",
    ));
    for r in repos {
        for cmd in &r.setup {
            df.push_str(&format!(
                "RUN {SETUP_CACHE_MOUNTS} cd {} && bash -euo pipefail -c {}\n",
                quote(&r.path),
                quote(cmd)
            ));
        }
    }
    df.push_str("WORKDIR /work\n");
    df
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;

    fn env() -> EnvImage {
        serde_json::from_value(serde_json::json!({
            "id": "img-0123456789abcdef",
            "digest": "0".repeat(64),
            "recipe": "python",
            "params": {},
            "base_image": "debian:bookworm",
            "dockerfile": "FROM debian:bookworm\n",
            "local": { "id": "env-0123456789abcdef", "digest": "1".repeat(64), "requires": [], "env": {}, "setup": [] }
        }))
        .unwrap()
    }

    fn repo(setup: &[&str]) -> RepoMaterial {
        RepoMaterial {
            name: "proxy".into(),
            role: Role::Target,
            path: repo_path("proxy"),
            source: SourceRef::Git {
                url: "https://example.com/proxy.git".into(),
            },
            base: None,
            digest: "2".repeat(64),
            setup: setup.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_dockerfile_text_enters_the_id() {
        let (env, repos) = (env(), vec![repo(&["pip install -e ."])]);
        let df = dockerfile(&env.tag(), &repos);
        let a = image_digest(&env, &repos, &df);
        assert_eq!(a, image_digest(&env, &repos, &df));
        // Any change of the text — another instruction, another user — is another image.
        let more = format!("{df}RUN true\n");
        assert_ne!(a, image_digest(&env, &repos, &more));
        let other_user = df.replace("taskc-test", "tester");
        assert_ne!(df, other_user);
        assert_ne!(a, image_digest(&env, &repos, &other_user));
    }

    #[test]
    fn the_dockerfile_builds_on_the_environment_and_runs_quoted_setup_in_order() {
        let df = dockerfile(&env().tag(), &[repo(&["pip install -e .", "echo it's"])]);
        assert!(df.starts_with("FROM taskc/env:img-0123456789abcdef\nCOPY work/ /work/\n"));
        assert!(df.contains("useradd -u 10001 -g 10001"));
        let first = df.find("bash -euo pipefail -c 'pip install -e .'").unwrap();
        let second = df.find(r"-c 'echo it'\''s'").unwrap();
        assert!(first < second, "{df}");
        assert!(df.ends_with("WORKDIR /work\n"));
    }
}
