//! Leaves no image of a test's own cache on the engine: the tags a `taskc` of the test
//! ensured are content-addressed (`taskc/task:img-…`, `taskc/env:img-…`, services, nodes),
//! so on a CI machine that keeps its Docker state they would pile up run after run.
//!
//! [`CacheImages`] is a guard over one test cache. When it is dropped (the test passed or
//! panicked) the cache's session records (`<cache>/sessions/`: which sessions it had, which
//! image tags each ensured) are gathered into one folder for the whole test binary, and
//! when the binary's last live guard is dropped, the project's own
//! `taskc gc --backend docker --cache <that folder>` removes the images those sessions
//! recorded that no running session or container uses, never `taskc/base:*`. Waiting for
//! the last guard matters: tests of one binary run in parallel and two of them may build
//! the same content-addressed tag in their own caches; removing it when the first ends would
//! pull it from under the other's next run. What gc leaves of the recorded tags (an image
//! that also carries a tag gc may not remove) is untagged with a plain `docker rmi <tag>`
//! (no force: an image a container uses stays). Tags no session recorded (the shared bases
//! `taskc/base:bookworm`, `parsers-runners:bookworm`, the fixtures `taskc-test/*`,
//! stand-ins, other caches' images) are never touched.
//!
//! Declare the guard after the cache's `TempDir` (locals drop in reverse order: the guard
//! runs while the cache still exists) and before any [`super::DockerGuard`] (whose
//! containers go first, so gc finds the images free).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Tags no test guard removes, whoever recorded them.
const NEVER: &[&str] = &[
    "taskc/base:bookworm",
    "parsers-runners:",
    "taskc-test/",
    "taskc-standin/",
];

/// The binary's live guards, what the engine held when the first of them was made, and the
/// session records of the caches whose guards ended.
struct Pending {
    live: usize,
    before: Option<Engine>,
    records: Option<tempfile::TempDir>,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    live: 0,
    before: None,
    records: None,
});

/// The image tags and image ids on the engine at one moment.
#[derive(Default)]
struct Engine {
    tags: BTreeSet<String>,
    ids: BTreeSet<String>,
}

impl Engine {
    fn now() -> Engine {
        let mut engine = Engine::default();
        let Ok(out) = Command::new("docker")
            .args([
                "images",
                "--no-trunc",
                "--format",
                "{{.ID}} {{.Repository}}:{{.Tag}}",
            ])
            .output()
        else {
            return engine;
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some((id, tag)) = line.split_once(' ') {
                engine.ids.insert(id.to_string());
                engine.tags.insert(tag.to_string());
            }
        }
        engine
    }
}

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the images of one test cache (with those of the binary's other caches) when the
/// binary's last guard is dropped. See the module's documentation.
#[allow(dead_code)] // not every test binary runs Docker
pub struct CacheImages {
    cache: PathBuf,
    docker: bool,
}

#[allow(dead_code)] // not every test binary runs Docker
impl CacheImages {
    /// A guard over the cache `cache` of a test that runs `taskc --backend <backend>`.
    /// On the `local` backend the images are folders of the cache: nothing to do.
    pub fn new(cache: &Path, backend: &str) -> CacheImages {
        let mut state = pending();
        if state.live == 0 && backend != "local" {
            state.before = Some(Engine::now());
        }
        state.live += 1;
        CacheImages {
            cache: cache.to_path_buf(),
            docker: backend != "local",
        }
    }

    /// The image tags the cache's sessions recorded (one tag a line in
    /// `<cache>/sessions/<session>.images`), minus those no guard removes.
    pub fn recorded(&self) -> BTreeSet<String> {
        recorded(&self.cache)
    }

    /// The recorded tags the engine has.
    pub fn on_engine(&self) -> Vec<String> {
        on_engine(&self.recorded())
    }
}

impl Drop for CacheImages {
    fn drop(&mut self) {
        let mut state = pending();
        if self.docker {
            keep_records(&mut state, &self.cache);
        }
        state.live = state.live.saturating_sub(1);
        if state.live > 0 {
            return;
        }
        let before = state.before.take().unwrap_or_default();
        let Some(records) = state.records.take() else {
            return;
        };
        let left = remove(records.path(), &before);
        if !left.is_empty() {
            eprintln!(
                "CacheImages: {} image tag(s) of the tests' caches still in use: {}",
                left.len(),
                left.join(", ")
            );
        }
    }
}

/// Copies the session records of `cache` into the binary's pending folder, without the
/// tags the engine already had when the binary's first guard was made (another cache made
/// them: they stay).
fn keep_records(state: &mut Pending, cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache.join("sessions")) else {
        return;
    };
    if state.records.is_none() {
        state.records = tempfile::tempdir().ok();
    }
    let Some(dir) = &state.records else {
        return;
    };
    let to = dir.path().join("sessions");
    let _ = std::fs::create_dir_all(&to);
    let before = state.before.as_ref();
    for e in entries.flatten() {
        if e.path().extension().is_some_and(|x| x == "images") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            let own: Vec<&str> = text
                .lines()
                .filter(|t| !before.is_some_and(|b| b.tags.contains(t.trim())))
                .collect();
            let _ = std::fs::write(to.join(e.file_name()), own.join("\n") + "\n");
        } else {
            let _ = std::fs::copy(e.path(), to.join(e.file_name()));
        }
    }
}

/// The tags recorded under `<cache>/sessions/*.images`, minus [`NEVER`].
pub fn recorded(cache: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(cache.join("sessions")) else {
        return out;
    };
    for e in entries.flatten() {
        if e.path().extension().is_some_and(|x| x == "images") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            out.extend(
                text.lines()
                    .map(str::trim)
                    .filter(|t| !t.is_empty() && !NEVER.iter().any(|n| t.starts_with(n)))
                    .map(str::to_string),
            );
        }
    }
    out
}

/// Those of `tags` the engine has.
fn on_engine(tags: &BTreeSet<String>) -> Vec<String> {
    tags.iter()
        .filter(|t| {
            Command::new("docker")
                .args(["image", "inspect", "--format", "{{.Id}}", t])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .cloned()
        .collect()
}

/// `taskc gc` on the records in `cache`, then `docker rmi` (no force) of the recorded tags
/// gc left and of the untagged images built for them since `before` (two caches that
/// build one tag at once leave the first build untagged); the recorded tags still on the
/// engine afterwards.
fn remove(cache: &Path, before: &Engine) -> Vec<String> {
    let tags = recorded(cache);
    if tags.is_empty() {
        return Vec::new();
    }
    let gc = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["gc", "--color", "never", "--backend", "docker"])
        .arg("--cache")
        .arg(cache)
        .stdin(std::process::Stdio::null())
        .output();
    match gc {
        Ok(o) if o.status.success() => {}
        Ok(o) => eprintln!(
            "CacheImages: taskc gc: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => eprintln!("CacheImages: taskc gc does not start: {e}"),
    }
    let after_gc = on_engine(&tags);
    if !after_gc.is_empty() {
        let _ = Command::new("docker").arg("rmi").args(&after_gc).output();
    }
    let untagged = untagged_builds(&tags, before);
    if !untagged.is_empty() {
        let _ = Command::new("docker").arg("rmi").args(&untagged).output();
    }
    let left = on_engine(&tags);
    eprintln!(
        "CacheImages: {} tag(s) recorded by the tests' caches: {} left after gc, {} untagged \
         build(s) of them removed, {} still in use",
        tags.len(),
        after_gc.len(),
        untagged.len(),
        left.len()
    );
    left
}

/// Untagged images labelled as builds of one of `tags` (`taskc.image`) that were not on
/// the engine at `before`.
fn untagged_builds(tags: &BTreeSet<String>, before: &Engine) -> Vec<String> {
    let Ok(out) = Command::new("docker")
        .args(["images", "-q", "--no-trunc", "--filter", "dangling=true"])
        .args(["--filter", "label=taskc.image"])
        .output()
    else {
        return Vec::new();
    };
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|id| !before.ids.contains(*id))
        .map(str::to_string)
        .collect();
    if ids.is_empty() {
        return ids;
    }
    let Ok(out) = Command::new("docker")
        .args(["image", "inspect", "--format"])
        .arg("{{.Id}} {{index .Config.Labels \"taskc.image\"}}")
        .args(ids)
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, tag)| tags.contains(*tag))
        .map(|(id, _)| id.to_string())
        .collect()
}
