//! Helpers shared by the end-to-end tests.

use std::path::{Path, PathBuf};
use std::process::Command;

mod cache_images;
#[allow(unused_imports)] // not every test binary runs Docker
pub use cache_images::{recorded, CacheImages};
#[allow(dead_code)] // only the WideSWE importer's tests use it
pub mod wideswe;

/// The repository's root (examples are under it).
#[allow(dead_code)] // not every test binary needs it
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether the Docker tests run: they do unless `TASKC_SKIP_DOCKER=1`; when they should
/// and the engine does not answer, the test FAILS (no silent skip).
#[allow(dead_code)] // not every test binary runs Docker
pub fn docker_or_skip() -> bool {
    if std::env::var_os("TASKC_SKIP_DOCKER").is_some_and(|v| v == "1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker test");
        return false;
    }
    let ok = Command::new("docker")
        .arg("info")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        ok,
        "the Docker Engine does not answer: start it (scripts/setup.sh checks it) or set TASKC_SKIP_DOCKER=1"
    );
    true
}

/// Copies the folder `from` to `to`, recursively (an example or fixture into a test's own
/// temporary folder).
#[allow(dead_code)] // not every test binary copies folders
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        let dst = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).expect("copy");
        }
    }
}

/// Leaves no Docker container behind a test: every `taskc` started through
/// [`DockerGuard::output`] is remembered by its process id, and when the guard is dropped —
/// at the end of the test, also when it panics — every container (any state) whose
/// `taskc.session` label is one of those processes' sessions (`s<pid>-…`) is removed, and so
/// is every test-specific image named with [`DockerGuard::image`]. Other sessions'
/// containers on the shared engine are never touched.
#[allow(dead_code)] // not every test binary runs Docker
#[derive(Default)]
pub struct DockerGuard {
    pids: std::sync::Mutex<Vec<u32>>,
    images: std::sync::Mutex<Vec<String>>,
}

#[allow(dead_code)] // not every test binary runs Docker
impl DockerGuard {
    pub fn new() -> DockerGuard {
        DockerGuard::default()
    }

    /// Runs `cmd` (a `taskc` that may start containers) to the end, like
    /// [`Command::output`], remembering its process id.
    pub fn output(&self, cmd: &mut Command) -> std::process::Output {
        let child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the command starts");
        self.pids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(child.id());
        child.wait_with_output().expect("the command runs")
    }

    /// An image this test built for itself, removed with the guard.
    pub fn image(&self, tag: &str) {
        self.images
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tag.to_string());
    }

    /// The ids of the containers the remembered processes' sessions left.
    pub fn leftovers(&self) -> Vec<String> {
        let pids = self.pids.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if pids.is_empty() {
            return Vec::new();
        }
        let Ok(out) = Command::new("docker")
            .args(["ps", "-aq", "--no-trunc", "--filter", "label=taskc.session"])
            .args(["--format", "{{.ID}} {{.Label \"taskc.session\"}}"])
            .output()
        else {
            return Vec::new();
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(_, session)| pids.iter().any(|p| session.starts_with(&format!("s{p}-"))))
            .map(|(id, _)| id.to_string())
            .collect()
    }
}

impl Drop for DockerGuard {
    fn drop(&mut self) {
        let ids = self.leftovers();
        if !ids.is_empty() {
            eprintln!(
                "DockerGuard: removing {} container(s) left behind",
                ids.len()
            );
            let _ = Command::new("docker")
                .args(["rm", "-f", "-v"])
                .args(&ids)
                .output();
        }
        let images = self
            .images
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !images.is_empty() {
            let _ = Command::new("docker")
                .args(["rmi", "-f"])
                .args(&images)
                .output();
        }
    }
}

/// Replace the wall time of `verify` header lines (`12.3 s`) so the table snapshots are stable.
#[allow(dead_code)] // not every test binary prints tables
pub fn redact(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines() {
        let line = match line.rfind(", ") {
            Some(i) if line.starts_with("verify ") && line.ends_with(" s)") => {
                format!("{}, [time])", &line[..i])
            }
            _ => line.to_string(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Runs `git <args>` in `dir` without the system's or the user's config (a fixed identity
/// for commits); its trimmed stdout. Fails the test when git fails.
#[allow(dead_code)] // not every test binary runs git
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Every file below `dir` whose name ends in `.{ext}`, recursively, sorted.
#[allow(dead_code)] // not every test binary walks folders
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let path = e.expect("entry").path();
            if path.is_dir() {
                walk(&path, ext, out);
            } else if path.extension().is_some_and(|x| x == ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out);
    out.sort();
    out
}

/// The stand-in image `tag` (`taskc-standin/<what>`), built by `scripts/standins/build.sh
/// <what>` from the host's own toolchains if the engine lacks it; left in place afterwards,
/// so the suite builds each stand-in once per engine.
#[allow(dead_code)] // not every test binary uses a stand-in
pub fn ensure_stand_in(tag: &str) {
    let have = Command::new("docker")
        .args(["image", "inspect", tag])
        .output()
        .unwrap();
    if have.status.success() {
        return;
    }
    let what = tag.strip_prefix("taskc-standin/").unwrap_or(tag);
    let o = Command::new(root().join("scripts/standins/build.sh"))
        .arg(what)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "scripts/standins/build.sh {what}: {o:?}"
    );
}

/// A finished command as text for an assertion's message: its exit code, stdout and stderr.
#[allow(dead_code)] // not every test binary needs it
pub fn text(o: &std::process::Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
