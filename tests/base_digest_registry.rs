//! Base images pulled by digest and locked, against a REAL registry (Debian's
//! `docker-registry`, as `scripts/swarm-multinode.sh` runs it): the test starts one on a
//! free loopback port with its own storage folder, pushes a tag of the shared base image to
//! it (`127.0.0.1:PORT/wsegraph-base:v1`, untagged locally again so the build must pull),
//! and verifies a task whose multi-stage `env dockerfile` — a case image on a deps image on
//! that base, as `taskc import wideswe` writes it — names it by tag:
//!
//! 1. `verify` pulls the tag, builds from `…@sha256:D1` (image nodes, parents first) and the
//!    lock records `[base-images]` with D1;
//! 2. with the registry stopped, `verify` with the lock builds from the locked digest on the
//!    engine (nothing rebuilt: the same image ids, every run cached);
//! 3. another image pushed under the same tag (D2): `verify` with the lock refuses, E1800,
//!    naming both digests, and leaves the lock as it was — a moved tag is a stale lock,
//!    never a silent change.
//!
//! Before image nodes and pins, step 1 wrote no `[base-images]` and step 3 built silently on
//! the moved image. Everything the test starts (the registry process, its folder, the
//! `wsegraph-base` tags, taskc's images under its cache) is removed at the end.
//! Wall time: 120 s at load 14, 320 s at load 19 (2 cores; most of it the push of the base
//! image and the two specs' image builds).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::{docker_or_skip, text, DockerGuard};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BASE: &str = "taskc/base:bookworm";

/// A `docker-registry` process on `127.0.0.1:port`, killed (and its folder left to the
/// tempdir) when dropped.
struct Registry {
    child: Option<Child>,
    config: PathBuf,
    port: u16,
}

impl Registry {
    fn start(dir: &Path, port: u16) -> Registry {
        std::fs::create_dir_all(dir.join("storage")).unwrap();
        let config = dir.join("registry.yml");
        std::fs::write(
            &config,
            format!(
                "version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: 127.0.0.1:{port}\n",
                dir.join("storage").display()
            ),
        )
        .unwrap();
        let mut r = Registry {
            child: None,
            config,
            port,
        };
        r.resume();
        r
    }

    fn resume(&mut self) {
        let log = std::fs::File::create(self.config.with_extension("log")).unwrap();
        let child = Command::new("docker-registry")
            .arg("serve")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("docker-registry starts");
        self.child = Some(child);
        let until = Instant::now() + Duration::from_secs(30);
        while Instant::now() < until {
            if self.answers() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!(
            "the registry does not answer on 127.0.0.1:{}: {}",
            self.port,
            std::fs::read_to_string(self.config.with_extension("log")).unwrap_or_default()
        );
    }

    /// `GET /v2/` answers 200.
    fn answers(&self) -> bool {
        let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let req = format!(
            "GET /v2/ HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        );
        if s.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer.starts_with("HTTP/1.1 200")
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        self.stop();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    l.local_addr().unwrap().port()
}

fn docker(args: &[&str]) -> Output {
    let o = Command::new("docker").args(args).output().unwrap();
    assert!(
        o.status.success(),
        "docker {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The registry digest `docker push` reported for `reference`.
fn push(reference: &str) -> String {
    let o = docker(&["push", reference]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    out.split("digest: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no digest in the push's output: {out}"))
        .to_string()
}

fn write_task(dir: &Path, image: &str, last: &str) -> PathBuf {
    let repo = dir.join("repos/calc");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("calc.py"), "def sub(a, b):\n    return a - b\n").unwrap();
    std::fs::create_dir_all(dir.join("patches")).unwrap();
    std::fs::write(
        dir.join("patches/gold.patch"),
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,5 @@\n def sub(a, b):\n     return a - b\n+\n+def add(a, b):\n+    return a + b\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("patches/tests.patch"),
        "diff --git a/tests/test_add.py b/tests/test_add.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_add.py\n@@ -0,0 +1,10 @@\n+import pathlib\n+\n+import calc\n+\n+\n+def test_add():\n+    assert calc.add(2, 3) == 5\n+\n+def test_built_on_the_deps_node():\n+    assert pathlib.Path('/opt/wsegraph/os-release').exists()\n",
    )
    .unwrap();
    std::fs::write(dir.join("prompt.md"), "Add `calc.add(a, b)`.\n").unwrap();
    std::fs::create_dir_all(dir.join("environment")).unwrap();
    // A base recipe stage on the registry's image, a deps stage on it, the case image on
    // the deps image copying from the base stage.
    std::fs::write(
        dir.join("environment/Dockerfile"),
        format!(
            "FROM {image} AS base--wsegraph\nRUN python3 -c 'import pytest'\nFROM base--wsegraph AS deps--wsegraph\nRUN mkdir -p /opt/wsegraph\nFROM deps--wsegraph\nCOPY --from=base--wsegraph /etc/os-release /opt/wsegraph/os-release\n{last}"
        ),
    )
    .unwrap();
    let spec = dir.join("calc.task");
    std::fs::write(
        &spec,
        r#"task "calc-by-digest" {
  kind feature
  prompt file("prompt.md")
  verify per-repo

  env dockerfile {
    dockerfile file("environment/Dockerfile")
  }

  repo calc {
    source dir("repos/calc")
    gold file("patches/gold.patch")
    test {
      patch file("patches/tests.patch")
      run "python3 -m pytest -rA -p no:cacheprovider tests/test_add.py"
      parser pytest
      timeout 300
    }
  }
}
"#,
    )
    .unwrap();
    spec
}

/// The `[base-images]` line of `lock` for `image`, its digest.
fn locked(lock: &str, image: &str) -> Option<String> {
    let key = format!("\"{image}\" = \"");
    let at = lock.find(&key)? + key.len();
    Some(lock[at..].split('"').next()?.to_string())
}

#[test]
fn a_base_image_is_pulled_by_digest_locked_and_a_moved_tag_is_a_stale_lock() {
    if !docker_or_skip() {
        return;
    }
    if Command::new("docker-registry")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: no `docker-registry` (scripts/setup.sh installs it)");
        return;
    }
    let started = Instant::now();
    let guard = DockerGuard::new();
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut registry = Registry::start(&tmp.path().join("registry"), port);
    let image = format!("127.0.0.1:{port}/wsegraph-base:v1");
    guard.image(&image);
    docker(&["tag", BASE, &image]);
    let d1 = push(&image);
    // Untagged again: the first build has to pull it.
    docker(&["rmi", &image]);

    let dir = tmp.path().join("task");
    let spec = write_task(&dir, &image, "");
    // Another case over the same base and deps stages, with a last stage of its own.
    write_task(
        &tmp.path().join("other"),
        &image,
        "RUN touch /opt/wsegraph/other\n",
    );
    let cache = tmp.path().join("cache");
    let cache_s = cache.to_str().unwrap().to_string();
    let verify = || {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_taskc"));
        cmd.args([
            "verify",
            "--backend",
            "docker",
            "--color",
            "never",
            "--cache",
        ])
        .arg(&cache_s)
        .arg("calc.task")
        .current_dir(&dir)
        .env_remove("NO_COLOR");
        guard.output(&mut cmd)
    };
    let gc = || {
        let _ = Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(["gc", "--backend", "docker", "--cache"])
            .arg(&cache_s)
            .current_dir(&dir)
            .output();
    };

    // 1. Pulled by tag, built by digest, locked; both cases in one session: the two nodes
    // they share are built once.
    let mut both = Command::new(env!("CARGO_BIN_EXE_taskc"));
    both.args([
        "verify",
        "--backend",
        "docker",
        "--color",
        "never",
        "--cache",
    ])
    .arg(&cache_s)
    .args(["task/calc.task", "other/calc.task"])
    .current_dir(tmp.path())
    .env_remove("NO_COLOR");
    let o = guard.output(&mut both);
    let shown = text(&o);
    if o.status.code() != Some(0) {
        gc();
        panic!("{shown}");
    }
    // Each spec ensures the nodes it is built on; both name the same two (the progress
    // line's `cached` is a timing guess, so the tags are counted, not the words).
    let stderr = String::from_utf8_lossy(&o.stderr);
    let nodes: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("image taskc/node:"))
        .filter_map(|l| l.split(':').next())
        .collect();
    let distinct: std::collections::BTreeSet<&str> = nodes.iter().copied().collect();
    assert_eq!(nodes.len(), 4, "{shown}");
    assert_eq!(distinct.len(), 2, "{shown}");
    assert!(tmp.path().join("other/calc.lock").exists(), "{shown}");
    let lock_path = spec.with_extension("lock");
    let lock = std::fs::read_to_string(&lock_path).unwrap();
    assert!(lock.contains("[base-images]"), "{lock}");
    assert_eq!(
        locked(&lock, &image).as_deref(),
        Some(d1.as_str()),
        "{lock}"
    );
    assert!(lock.contains("tests/test_add.py::test_add"), "{lock}");
    assert!(
        lock.contains("tests/test_add.py::test_built_on_the_deps_node"),
        "{lock}"
    );
    let env_id = |lock: &str| {
        lock.lines()
            .find(|l| l.starts_with("environment = "))
            .map(str::to_string)
    };
    let first_env = env_id(&lock);

    // 2. No registry: the locked digest, as the engine holds it; nothing rebuilt or re-run.
    registry.stop();
    let o = verify();
    let shown = text(&o);
    assert_eq!(o.status.code(), Some(0), "{shown}");
    let lock_again = std::fs::read_to_string(&lock_path).unwrap();
    assert_eq!(env_id(&lock_again), first_env, "{lock_again}");
    assert_eq!(lock_again, lock, "the lock is unchanged");

    // 3. The tag moved in the registry: the locked verify refuses, naming both digests.
    registry.resume();
    let moved = tmp.path().join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::write(
        moved.join("Dockerfile"),
        format!("FROM {BASE}\nLABEL wsegraph.moved=\"yes\"\n"),
    )
    .unwrap();
    docker(&["build", "-q", "-t", &image, moved.to_str().unwrap()]);
    let d2 = push(&image);
    assert_ne!(d1, d2);
    let o = verify();
    let shown = text(&o);
    gc();
    registry.stop();
    assert_eq!(o.status.code(), Some(2), "{shown}");
    assert!(shown.contains("E1800"), "{shown}");
    assert!(shown.contains(&d1), "{shown}");
    assert!(shown.contains(&d2), "{shown}");
    assert!(shown.contains("[base-images]"), "{shown}");
    assert_eq!(
        std::fs::read_to_string(&lock_path).unwrap(),
        lock,
        "a refused verify leaves the lock alone"
    );
    // The pulled digest's name on the shared base image (an untag, never a removal).
    let _ = Command::new("docker")
        .args(["rmi", &format!("127.0.0.1:{port}/wsegraph-base@{d1}")])
        .output();
    eprintln!("wall time: {:.1} s", started.elapsed().as_secs_f64());
}
