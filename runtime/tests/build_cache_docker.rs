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
    env_build_on(env, tag, nonce, "taskc/base:bookworm")
}

/// [`env_build`] on the base image `base`.
fn env_build_on(env: &str, tag: &str, nonce: &str, base: &str) -> ImageBuild {
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
    let mut build = taskc_runtime::exec::images::env_build(&plan, base);
    let (_, rest) = build.dockerfile.split_once('\n').unwrap();
    build.dockerfile = format!("FROM {base}\nENV CACHE_TEST_NONCE={nonce}\n{rest}");
    build.tag = tag.to_string();
    build
}

/// What an image holds: every installed Debian package with its version, and every file
/// (path, size) under the folders a recipe writes, plus whatever is left of the cache folders.
async fn contents(docker: &DockerBackend, tag: &str) -> String {
    let script = "dpkg-query -W -f '${Package} ${Version}\\n' | sort; \
                  find /usr /opt /etc /root /var/cache/taskc -xdev -type d -printf 'd %p\\n' | sort; \
                  find /usr /opt /etc /root /var/cache/taskc -xdev ! -type d -printf '%y %p %s\\n' | sort";
    support::docker::run_script(docker, tag, "cache-contents", "cache-test", script).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebuilt_layer_installs_from_the_cache_offline_and_the_cache_is_not_in_the_image() {
    let Some(docker) = support::docker::connect_or_skip().await else {
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

/// The base image with the host's own CA certificates (`/usr/local/share/ca-certificates`,
/// where a site behind a TLS-intercepting proxy keeps its proxy's CA) layered on as
/// `[images] ca_certificates` does, so that the package index is reachable; the plain base
/// image when the host has none.
async fn base_for_the_index(docker: &DockerBackend) -> String {
    let plain = "taskc/base:bookworm";
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/local/share/ca-certificates")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "crt"))
                .collect()
        })
        .unwrap_or_default();
    if paths.is_empty() {
        return plain.to_string();
    }
    paths.sort();
    let certs = taskc_runtime::bootstrap::ca::read_ca_certificates(&paths).unwrap();
    let id = docker
        .client()
        .inspect_image(plain)
        .await
        .unwrap()
        .id
        .unwrap();
    let layer = taskc_runtime::bootstrap::ca::ca_layer(&id, &certs, &[("taskc.base", plain)]);
    // Content-addressed under the base image's name, as taskc itself leaves it (`gc` keeps it).
    if !docker.image_exists(&layer.tag).await.unwrap() {
        docker
            .clone()
            .with_builder(Builder::BuildKit)
            .build_logged(&layer, false)
            .await
            .unwrap();
    }
    layer.tag
}

/// The Dockerfile the python recipe rendered before issue 22's change: the requirement
/// layers install and nothing else, then a step of its own links Debian's pytest when they
/// brought none. Made from `dockerfile` by taking each requirement layer's removal of an
/// earlier link and its linking out, and putting the linking after the last.
fn with_a_link_step_of_its_own(dockerfile: &str) -> String {
    let unlink = "rm -rf /opt/taskc-pytest \"$(python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')/taskc-pytest.pth\" && ";
    let relink = " && if python -c 'import pytest' >/dev/null 2>&1; then ";
    let mut out = String::new();
    let mut link_step = None;
    for line in dockerfile.lines() {
        match line.find(relink) {
            Some(at) if line.contains(unlink) => {
                out.push_str(&line[..at].replacen(unlink, "", 1));
                out.push('\n');
                link_step = Some(format!("RUN {}", &line[at + " && ".len()..]));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    let link_step = link_step.expect("the recipe links Debian's pytest after its requirements");
    out.push_str(&link_step);
    out.push('\n');
    out
}

/// Appending a requirement rebuilds one layer because every requirement layer ends by
/// linking Debian's pytest (after removing an earlier layer's link), not a step after the
/// last (invariant 69). The image holds the same files, and the same pytest, as the
/// recipe's earlier layout: install everything, then link in a step of its own. Both when
/// the requirements bring no pytest (Debian's is linked) and when the last one brings it
/// (the link an earlier layer made is gone). Needs the package index.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirement_layers_that_link_pytest_give_the_files_of_a_link_step_after_them() {
    let Some(docker) = support::docker::connect_or_skip().await else {
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
    let base = base_for_the_index(&docker).await;
    let buildkit = docker.clone().with_builder(Builder::BuildKit);
    let script = "python -m pytest --version 2>&1; \
                  python -c 'import pytest, iniconfig; print(pytest.__file__, iniconfig.__file__)'; \
                  find /opt -printf '%y %p %s %l\\n' | sort";
    for (case, packages) in [
        ("debian-pytest", "\"iniconfig\""),
        ("pytest-from-packages", "\"iniconfig\", \"pytest<9\""),
    ] {
        let env =
            format!("  env python {{\n    version \"3.11\"\n    packages [{packages}]\n  }}\n");
        let folded = env_build_on(&env, &format!("cache-test/folded-{case}:1"), &nonce, &base);
        let mut step = folded.clone();
        step.tag = format!("cache-test/step-{case}:1");
        step.dockerfile = with_a_link_step_of_its_own(&folded.dockerfile);
        assert_eq!(
            step.dockerfile
                .lines()
                .filter(|l| l.starts_with("RUN "))
                .count(),
            folded
                .dockerfile
                .lines()
                .filter(|l| l.starts_with("RUN "))
                .count()
                + 1,
            "{}",
            step.dockerfile
        );
        // Both images go however the case ends.
        let _remove = RemoveImages(vec![folded.tag.clone(), step.tag.clone()]);
        let mut seen = Vec::new();
        for b in [&folded, &step] {
            let built = buildkit.build_logged(b, false).await;
            if let Err(e) = built {
                panic!("{case}: building {} failed: {e:?}\n{}", b.tag, b.dockerfile);
            }
            let mut req = RunRequest::new(
                &b.tag,
                format!("cache-pytest-{}", b.tag.replace([':', '/'], "-")),
                "cache-test",
                script,
            );
            req.timeout = Duration::from_secs(120);
            let out = docker.run(&req).await.unwrap();
            seen.push((out.succeeded(), out.log_text()));
            seen.push((true, contents(&docker, &b.tag).await));
        }
        let (ok, folded_pytest) = &seen[0];
        assert!(ok, "{case}: {folded_pytest}");
        match case {
            "debian-pytest" => {
                assert!(folded_pytest.contains("pytest 7."), "{folded_pytest}");
                assert!(
                    folded_pytest.contains("l /opt/taskc-pytest/pytest "),
                    "{folded_pytest}"
                );
            }
            _ => {
                assert!(folded_pytest.contains("pytest 8."), "{folded_pytest}");
                assert!(
                    !folded_pytest.contains("/opt/taskc-pytest"),
                    "{folded_pytest}"
                );
            }
        }
        assert_eq!(
            seen[0], seen[2],
            "{case}: another pytest than with a link step"
        );
        assert_eq!(
            seen[1], seen[3],
            "{case}: other files than with a link step"
        );
    }
}
