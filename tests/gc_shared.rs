//! `taskc gc` on a shared engine (issue 23, item 6), live: a `taskc score` runs in cache A
//! (a copy of an example whose tests sleep first) while `gc --dry-run` and `gc` run in
//! cache B, which has a finished session of its own (a container and an image it recorded).
//! B's gc lists and removes exactly B's two objects and nothing of A: A's running container,
//! its images and its results stay, and the score finishes with its grades. gc in A itself,
//! while the score runs, removes nothing of the running session either.
//! Real binary, real engine; skipped with `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

fn docker(args: &[&str]) -> String {
    let out = Command::new("docker").args(args).output().unwrap();
    assert!(out.status.success(), "docker {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn gc(cache: &Path, extra: &[&str]) -> String {
    let out: Output = Command::new(TASKC)
        .args(["gc", "--backend", "docker", "--cache"])
        .arg(cache)
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "taskc gc {extra:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The sessions recorded in `cache` (`<cache>/sessions/<id>.lock`).
fn sessions(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("sessions")).map_or_else(
        |_| Vec::new(),
        |d| {
            d.filter_map(|e| {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                name.strip_suffix(".lock").map(str::to_string)
            })
            .collect()
        },
    )
}

/// The image tags the sessions of `cache` recorded.
fn images(cache: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(cache.join("sessions")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "images") {
            out.extend(
                std::fs::read_to_string(&path)
                    .unwrap()
                    .lines()
                    .map(str::to_string),
            );
        }
    }
    out
}

/// Kills the background score and removes what this test made by hand, also on failure.
struct Cleanup {
    score: Option<Child>,
    container: String,
    image: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some(child) = self.score.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = Command::new("docker")
            .args(["rm", "-f", &self.container])
            .output();
        let _ = Command::new("docker").args(["rmi", &self.image]).output();
    }
}

#[test]
fn gc_in_another_cache_removes_nothing_of_a_running_score() {
    if !common::docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (cache_a, cache_b) = (tmp.path().join("cache-a"), tmp.path().join("cache-b"));
    let dir = tmp.path().join("task");
    let original = common::root().join("examples/cookie-split");
    common::copy_dir(&original, &dir);
    let spec = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("run \"", "run \"sleep 25; ");
    std::fs::write(&spec, text).unwrap();

    // Cache B's finished session (its pid cannot exist): a container and an image it used.
    let pid = std::process::id();
    let b_session = format!("s99999999-b{pid}");
    let b_image = format!("taskc-gc-shared/b:{pid}");
    std::fs::write(
        tmp.path().join("Dockerfile"),
        "FROM scratch\nLABEL taskc.image=gc-shared-test\n",
    )
    .unwrap();
    docker(&["build", "-q", "-t", &b_image, tmp.path().to_str().unwrap()]);
    let b_container = docker(&[
        "create",
        "--label",
        &format!("taskc.session={b_session}"),
        &b_image,
        "none",
    ]);
    let mut cleanup = Cleanup {
        score: None,
        container: b_container.clone(),
        image: b_image.clone(),
    };
    std::fs::create_dir_all(cache_b.join("sessions")).unwrap();
    std::fs::write(cache_b.join(format!("sessions/{b_session}.lock")), "1\n").unwrap();
    // A session records its image before it creates its container from it.
    std::fs::write(
        cache_b.join(format!("sessions/{b_session}.images")),
        format!("{b_image}\n"),
    )
    .unwrap();

    // A's score, in the background.
    let report = tmp.path().join("report");
    let child = Command::new(TASKC)
        .args(["score", "--backend", "docker", "--jobs", "1"])
        .args(["--allow-stale-lock", "--predictions", "gold", "--cache"])
        .arg(&cache_a)
        .arg("--out")
        .arg(&report)
        .arg(&spec)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    cleanup.score = Some(child);

    // Wait until one of A's runs is under way: a running container of A's session.
    let start = Instant::now();
    let (a_session, a_container) = loop {
        assert!(
            start.elapsed() < Duration::from_secs(600),
            "no run of the score started"
        );
        if let Some(s) = sessions(&cache_a).into_iter().next() {
            let filter = format!("label=taskc.session={s}");
            let ids = docker(&["ps", "-q", "--no-trunc", "--filter", &filter]);
            if let Some(id) = ids.lines().next() {
                break (s, id.to_string());
            }
        }
        if let Some(status) = cleanup.score.as_mut().unwrap().try_wait().unwrap() {
            panic!("the score ended before a run started: {status}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let a_images = images(&cache_a);
    assert!(!a_images.is_empty(), "A's session recorded its images");
    let a_short = &a_container[..12];

    // B's gc, dry-running then for real: B's two objects, nothing of A.
    let dry = gc(&cache_b, &["--dry-run"]);
    let removed = gc(&cache_b, &[]);
    for (text, verb) in [(&dry, "would remove"), (&removed, "removed")] {
        let listed: Vec<&str> = text.lines().filter(|l| l.starts_with(verb)).collect();
        assert_eq!(
            listed,
            [
                format!(
                    "{verb} container {} (session {b_session})",
                    &b_container[..12]
                )
                .as_str(),
                format!("{verb} image {b_image}").as_str(),
                format!("{verb} 2 object(s)").as_str(),
            ],
            "{text}"
        );
        assert!(
            !text.contains(&a_session) && !text.contains(a_short),
            "{text}"
        );
        for tag in &a_images {
            assert!(!text.contains(tag.as_str()), "{tag}: {text}");
        }
    }
    let gone = Command::new("docker")
        .args(["container", "inspect", &b_container])
        .output()
        .unwrap();
    assert!(!gone.status.success(), "B's container is removed");
    assert_eq!(
        sessions(&cache_b),
        Vec::<String>::new(),
        "B's record retired"
    );

    // gc in A itself while its score runs: nothing of the running session.
    let own = gc(&cache_a, &[]);
    assert!(own.contains("removed 0 object(s)"), "{own}");
    assert!(
        own.contains(&format!(
            "left alone the stored results: 1 session(s) of this cache still run ({a_session})"
        )),
        "{own}"
    );

    // A's container still runs, its images are there, and the score finishes with grades.
    assert_eq!(
        docker(&[
            "container",
            "inspect",
            "-f",
            "{{.State.Running}}",
            &a_container
        ]),
        "true"
    );
    for tag in &a_images {
        docker(&["image", "inspect", tag]);
    }
    let out = cleanup.score.take().unwrap().wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report.join("report.json")).unwrap())
            .unwrap();
    assert!(json.to_string().contains("resolved"), "{json}");

    // Once the score ended, A's gc may collect what A used, but here keeps what the
    // unmodified example needs (the same images), so nothing of other users' runs goes.
    let keep: PathBuf = original.join("cookie-split.task");
    let after = gc(&cache_a, &["--keep", keep.to_str().unwrap()]);
    assert!(!after.contains("left alone the stored results"), "{after}");
}
