//! Download caches across image builds (issue 22, item 3), against the real engine: a
//! recipe's rebuilt layer installs what an earlier build downloaded with the build's network
//! off, and the caches are outside the image (the classic builder, which has none, builds
//! the same files). Fails loudly when Docker does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use taskc_compiler::check::check_spec;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_runtime::backend::{Backend, ImageBuild, RunRequest};
use taskc_runtime::docker::{Builder, DockerBackend};

use support::docker::RemoveImages;

/// Connects, or returns `None` when the suite is told to skip Docker.
async fn docker() -> Option<DockerBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker test");
        return None;
    }
    match DockerBackend::connect().await {
        Ok(d) => Some(d),
        Err(e) => panic!("Docker is required for this test (set TASKC_SKIP_DOCKER=1 to skip): {e}"),
    }
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The environment image build of the `cookie-split` example with `env` as its environment,
/// lowered as `verify` lowers it, tagged `tag`, every layer made new by `nonce` (so no
/// earlier run's layer is reused and the steps really run).
fn env_build(env: &str, tag: &str, nonce: &str) -> ImageBuild {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cookie-split");
    copy(&root, dir.path());
    let spec = dir.path().join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let old = "  env python {\n    version \"3.11\"\n  }\n";
    assert!(text.contains(old));
    let text = text.replace(old, env);
    let loader = taskc_runtime::fs_loader::FsLoader::new(dir.path());
    let checked = check_spec("cookie-split.task", text.as_bytes(), &loader);
    let task = checked.task.expect("the spec checks");
    let plan = lower_verify(&task, &LowerOptions::default()).unwrap();
    let mut build = taskc_runtime::exec::images::env_build(&plan, "taskc/base:bookworm");
    let (from, rest) = build.dockerfile.split_once('\n').unwrap();
    build.dockerfile = format!("{from}\nENV CACHE_TEST_NONCE={nonce}\n{rest}");
    build.tag = tag.to_string();
    build
}

/// What an image holds: every installed Debian package with its version, and every file
/// (path, size) under the folders a recipe writes, plus whatever is left of the cache folders.
async fn contents(docker: &DockerBackend, tag: &str) -> String {
    let script = "dpkg-query -W -f '${Package} ${Version}\\n' | sort; \
                  find /usr /opt /etc /root /var/cache/taskc -xdev -type d -printf 'd %p\\n' | sort; \
                  find /usr /opt /etc /root /var/cache/taskc -xdev ! -type d -printf '%y %p %s\\n' | sort";
    let mut req = RunRequest::new(
        tag,
        format!("cache-contents-{}", tag.replace(':', "-")),
        "cache-test",
        script,
    );
    req.timeout = Duration::from_secs(120);
    let out = docker.run(&req).await.unwrap();
    assert!(out.succeeded(), "{}", out.log_text());
    out.log_text()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuilt_layer_installs_from_the_cache_offline_and_the_cache_is_not_in_the_image() {
    let Some(docker) = docker().await else {
        return;
    };
    let nonce = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let env = |packages: &str| {
        format!("  env python {{\n    version \"3.11\"\n    system-packages [{packages}]\n  }}\n")
    };
    let warm = env_build(&env("\"tree\", \"jq\""), "cache-test/warm:1", &nonce);
    let added = env_build(&env("\"jq\", \"tree\""), "cache-test/added:1", &nonce);
    let tags = [
        warm.tag.clone(),
        added.tag.clone(),
        "cache-test/classic:1".to_string(),
    ];
    // The three images go however the test ends.
    let _remove = RemoveImages(tags.to_vec());
    let started = Instant::now();
    let buildkit = docker.clone().with_builder(Builder::BuildKit);
    // The first build downloads (the lists, both packages) into the cache mounts.
    let log = buildkit.build_logged(&warm, false).await.unwrap();
    assert!(log.contains("jq"), "{log}");
    // Another package set (another layer, nothing of it cached) builds with no network at
    // all: apt's lists and archives come from the cache. Before the caches, `apt-get update`
    // found no lists and the install failed.
    let offline = buildkit.build_logged(&added, true).await;
    let offline_log = offline.unwrap_or_else(|e| panic!("the offline rebuild failed: {e:?}"));
    // The step ran (no layer of it was reused), and apt fetched nothing.
    assert!(offline_log.contains("Setting up tree"), "{offline_log}");
    assert!(!offline_log.contains("\nGet:"), "{offline_log}");
    // The classic builder (no cache mounts, everything downloaded) builds the same files.
    let mut classic_build = warm.clone();
    classic_build.tag = tags[2].clone();
    let classic = docker.clone().with_builder(Builder::Classic);
    classic.build_logged(&classic_build, false).await.unwrap();
    let with_cache = contents(&docker, &warm.tag).await;
    let without = contents(&docker, &tags[2]).await;
    let offline_contents = contents(&docker, &added.tag).await;
    assert!(with_cache.contains("jq "), "{with_cache}");
    assert!(with_cache.contains("f /usr/bin/tree "), "{with_cache}");
    // The caches' folders are there, empty (BuildKit's mount points).
    assert!(
        with_cache.contains("d /var/cache/taskc/apt/lists\n"),
        "{with_cache}"
    );
    assert!(
        !with_cache
            .lines()
            .any(|l| !l.starts_with("d ") && l.contains(" /var/cache/taskc/")),
        "{with_cache}"
    );
    assert_eq!(
        with_cache, without,
        "the cache changed what the image holds"
    );
    assert_eq!(
        with_cache, offline_contents,
        "the order of the packages changed the image"
    );
    eprintln!("three builds and their checks took {:?}", started.elapsed());
}
