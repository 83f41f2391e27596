//! Named build contexts on the real engine with BOTH builders (BuildKit through
//! `POST /build?version=2` without a session, and the classic builder): the fixture
//! `tests/fixtures/named-contexts` (a folder context and a repository context, each holding
//! a `.dockerignore` that would hide their files if it were read) lowered as `verify` lowers
//! it, its context nodes built from the folder and from the repository materialised at base,
//! then the environment `COPY --from=` them; the files land, `.git` does not. Fails loudly
//! when Docker does not answer, unless `TASKC_SKIP_DOCKER=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::check::check_spec;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::plan::Plan;
use taskc_runtime::backend::{Backend, ImageBuild};
use taskc_runtime::docker::{Builder, DockerBackend};
use taskc_runtime::exec::images::{env_build, env_context, node_builds};
use taskc_runtime::repo::{materialize, RepoSource, Rewrites};

use support::docker::RemoveImages;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/named-contexts")
}

/// The fixture checked and lowered, and the node and environment builds, their tags (and
/// the Dockerfiles naming them) moved under `prefix` so that each builder builds its own.
fn builds(work: &Path, prefix: &str) -> (Plan, Vec<ImageBuild>) {
    let dir = fixture();
    let loader = taskc_runtime::fs_loader::FsLoader::new(&dir);
    let bytes = std::fs::read(dir.join("named-contexts.task")).unwrap();
    let checked = check_spec("named-contexts.task", &bytes, &loader);
    let task = checked
        .task
        .unwrap_or_else(|| panic!("{:?}", checked.diagnostics));
    let plan = lower_verify(&task, &LowerOptions::default()).unwrap();
    let mut dirs = BTreeMap::new();
    for r in &task.repos {
        let source = RepoSource::resolve(&r.source, &dir, &Rewrites::default());
        let dest = work.join(&r.name);
        let cache = work.join("cache");
        let m = materialize(&source, r.base.as_deref(), &dest, &cache).unwrap();
        dirs.insert(r.name.clone(), m);
    }
    let mut out = node_builds(&plan, &dir, &dirs).unwrap();
    let mut env = env_build(&plan, "taskc/base:bookworm");
    env.context = env_context(&plan, &dir).unwrap();
    out.push(env);
    for b in &mut out {
        b.tag = b.tag.replace("taskc/", prefix);
        b.dockerfile = b
            .dockerfile
            .replace("taskc/node:", &format!("{prefix}node:"));
    }
    (plan, out)
}

async fn listing(docker: &DockerBackend, tag: &str) -> String {
    let script = "cat /opt/ctx/expected /opt/deps/calc.lock; find /opt/src | sort";
    support::docker::run_script(docker, tag, "ctx-contexts", "ctx-contexts", script).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folder_and_repository_contexts_build_on_buildkit_and_the_classic_builder() {
    let Some(docker) = support::docker::connect_or_skip().await else {
        return;
    };
    for (builder, prefix) in [
        (Builder::BuildKit, "ctx-buildkit-"),
        (Builder::Classic, "ctx-classic-"),
    ] {
        let work = tempfile::tempdir().unwrap();
        let (plan, builds) = builds(work.path(), prefix);
        assert_eq!(plan.images.nodes.len(), 2, "{:#?}", plan.images.nodes);
        let _remove = RemoveImages(builds.iter().map(|b| b.tag.clone()).collect());
        let backend = docker.clone().with_builder(builder);
        for b in &builds {
            backend
                .ensure_image(b)
                .await
                .unwrap_or_else(|e| panic!("{builder:?} building {}: {e:?}", b.tag));
        }
        let env = &builds.last().unwrap().tag;
        let seen = listing(&docker, env).await;
        // The folder's file despite its `.dockerignore` of `*`; the repository's lock file
        // despite its `.dockerignore` of `*.lock`; its work tree, without `.git`.
        assert!(seen.contains("42\ncalc-lock 42\n"), "{builder:?}: {seen}");
        assert!(seen.contains("/opt/src/answer.sh"), "{builder:?}: {seen}");
        assert!(
            seen.contains("/opt/src/.dockerignore"),
            "{builder:?}: {seen}"
        );
        assert!(!seen.contains("/opt/src/.git"), "{builder:?}: {seen}");
    }
}
