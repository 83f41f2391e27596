//! The runners' image — Debian bookworm's test runners (`scripts/fixtures/runners.Dockerfile`,
//! tag `parsers-runners:bookworm`, or `TASKC_RUNNERS_IMAGE` for another image built from
//! the same Dockerfile) — built when absent, and bash scripts run in it without network.
//!
//! The image is kept between runs on purpose (its build takes minutes; later runs reuse
//! it); the containers are removed, also when a test fails.

// Test code: an unwrap/expect/panic that fires is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::docker::RemoveContainer;

/// The runners' image unless `TASKC_RUNNERS_IMAGE` names another.
pub const IMAGE: &str = "parsers-runners:bookworm";

/// `scripts/fixtures`: the Dockerfile's context.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/fixtures")
}

/// `true` (and says so) when `TASKC_SKIP_DOCKER=1`.
pub fn docker_skipped() -> bool {
    let skip = std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1");
    if skip {
        eprintln!("skipped: TASKC_SKIP_DOCKER=1");
    }
    skip
}

/// What the runners' image must have for a test; it is (re)built otherwise (the build
/// reuses the cached layers it shares with an older image).
#[derive(Clone, Copy)]
pub enum Needs {
    /// Only that the image is there.
    Image,
    /// A command on its `PATH` (one a later layer of the Dockerfile installs).
    Command(&'static str),
}

/// The runners' image, built when it lacks what the test `needs`; `None` when Docker tests
/// are skipped. Panics (the test fails) when the engine does not answer or the build fails.
pub fn runners_image(needs: Needs) -> Option<String> {
    if docker_skipped() {
        return None;
    }
    let image = std::env::var("TASKC_RUNNERS_IMAGE").unwrap_or_else(|_| IMAGE.into());
    let ready = match needs {
        Needs::Image => Command::new("docker")
            .args(["image", "inspect", &image])
            .output(),
        Needs::Command(command) => Command::new("docker")
            .args(["run", "--rm", "--network", "none", &image, "sh", "-c"])
            .arg(format!("command -v {command}"))
            .output(),
    }
    .expect("the docker CLI runs");
    if !ready.status.success() {
        let built = Command::new("docker")
            .args(["build", "-q", "-t", &image, "-f"])
            .arg(fixtures().join("runners.Dockerfile"))
            .arg(fixtures())
            .output()
            .expect("docker build runs");
        assert!(
            built.status.success(),
            "docker build {image}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
    }
    Some(image)
}

/// `docker run --rm --name <name> --network none <args> <image> bash -c <script>`: its
/// output. The container is removed even when this test is interrupted mid-run.
pub fn run_bash(name: &str, args: &[String], image: &str, script: &str) -> Output {
    let _remove = RemoveContainer(name.to_string());
    Command::new("docker")
        .args(["run", "--rm", "--name", name, "--network", "none"])
        .args(args)
        .args([image, "bash", "-c", script])
        .output()
        .expect("docker run runs")
}

/// `-u 65534:65534 -e HOME=/tmp`: runs as an unprivileged user (who needs a home).
pub fn unprivileged() -> Vec<String> {
    ["-u", "65534:65534", "-e", "HOME=/tmp"]
        .map(str::to_string)
        .to_vec()
}

/// A temporary folder of case folders (`<root>/<case>`) that one container reads at
/// `/src` (read-only), and `<root>/out`, where it writes the logs, at `/out`; both open to
/// the container's unprivileged user. Removed when dropped.
pub struct CaseFolders {
    root: tempfile::TempDir,
    out: PathBuf,
}

impl Default for CaseFolders {
    fn default() -> Self {
        Self::new()
    }
}

impl CaseFolders {
    pub fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        // The container's unprivileged user reads the cases and writes the logs.
        let chmod = |mode: &str, path: &Path| {
            let st = Command::new("chmod").arg(mode).arg(path).status().unwrap();
            assert!(st.success(), "chmod {mode} {}", path.display());
        };
        chmod("755", root.path());
        chmod("777", &out);
        Self { root, out }
    }

    /// The folder of `case` (`/src/<case>` in the container).
    pub fn case(&self, case: &str) -> PathBuf {
        self.root.path().join(case)
    }

    /// What the container wrote to `/out/<file>`.
    pub fn output(&self, file: &str) -> Vec<u8> {
        std::fs::read(self.out.join(file)).unwrap()
    }

    /// `script` (its lines each one case's run, logging to `/out`) in one container of
    /// `image` named `name`, with `args` before the mounts; fails the test unless it ends
    /// with 0. Says how long it took and what the script printed to stderr.
    pub fn run(&self, image: &str, name: &str, args: &[String], script: &str) {
        let started = std::time::Instant::now();
        let mut all = args.to_vec();
        all.extend([
            "-v".to_string(),
            format!("{}:/src:ro", self.root.path().display()),
            "-v".to_string(),
            format!("{}:/out", self.out.display()),
        ]);
        let ran = run_bash(name, &all, image, script);
        assert!(ran.status.success(), "{ran:?}");
        eprintln!(
            "docker run {:.1}s; each run's end:\n{}",
            started.elapsed().as_secs_f64(),
            String::from_utf8_lossy(&ran.stderr)
        );
    }
}
