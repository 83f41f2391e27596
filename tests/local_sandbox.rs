//! Attacks on the host through `--backend local` (issue 9, defence 9), with the real binary:
//! code under test that looks for the `taskc` process in /proc to read the spec folder and
//! the gold patches, writes the fix into the cached local image (so `empty` would later
//! score solved), leaves a detached process behind, or reaches the Docker socket. Each
//! attack wins (scores `solved`) if it succeeds; each must stay unsolved, leave no marker
//! on the host, no process behind and the cached image as it was; `empty` still scores 0
//! and `gold` 1 on the same cache. Without bubblewrap the same predictions are refused.
//! Fixtures: tests/adversarial/host/.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");
const ATTACKS: &[&str] = &["proc_spec", "image_write", "detached", "docker_socket"];
/// The probe of what the test user may do (`privileges` in attack.py).
const PROBE: &str = "privileges";

struct Lab {
    tmp: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let lab = Lab {
            tmp: tempfile::tempdir().unwrap(),
        };
        common::copy_dir(&root().join("examples/cookie-split"), &lab.spec_dir());
        lab
    }

    /// A copy of the example: the spec folder an attack would look for.
    fn spec_dir(&self) -> PathBuf {
        self.tmp.path().join("spec")
    }

    fn cache(&self) -> PathBuf {
        self.tmp.path().join("cache")
    }

    fn marker(&self, attack: &str) -> PathBuf {
        self.tmp.path().join(format!("host-marker-{attack}"))
    }

    fn taskc(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = Command::new(TASKC);
        cmd.args(args)
            .args(["--backend", "local", "--cache"])
            .arg(self.cache())
            .current_dir(self.spec_dir());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// An attack prediction, built the way an agent's would be: export, edit, collect.
    fn prediction(&self, attack: &str) -> String {
        let ws = self.tmp.path().join(format!("ws-{attack}"));
        let o = Command::new(TASKC)
            .args(["workspace", "--backend", "local", "--cache"])
            .arg(self.cache())
            .arg("--out")
            .arg(&ws)
            .arg(self.spec_dir().join("cookie-split.task"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let gold = |repo: &str| {
            let text = std::fs::read_to_string(self.spec_dir().join(format!("gold/{repo}.patch")))
                .unwrap();
            serde_json::to_string(&text).unwrap()
        };
        let source = std::fs::read_to_string(root().join("tests/adversarial/host/attack.py"))
            .unwrap()
            .replace("@ATTACK@", attack)
            .replace("@MARKER@", &self.marker(attack).display().to_string())
            .replace(
                "@GOLD@",
                &format!(
                    "\"proxy\": {}, \"gateway\": {}",
                    gold("proxy"),
                    gold("gateway")
                ),
            );
        std::fs::write(ws.join("proxy/proxy/_attack.py"), &source).unwrap();
        prepend(
            &ws.join("proxy/proxy/__init__.py"),
            "from . import _attack  # noqa\n",
        );
        if attack == PROBE {
            // Its own copy in each target: in independent mode a run has only its own
            // target's patch.
            std::fs::write(ws.join("gateway/gateway/_attack.py"), &source).unwrap();
            prepend(
                &ws.join("gateway/gateway/__init__.py"),
                "from . import _attack  # noqa\n",
            );
        } else {
            prepend(
                &ws.join("gateway/gateway/__init__.py"),
                "import proxy._attack  # noqa\n",
            );
        }
        let o = Command::new(TASKC)
            .arg("collect")
            .arg(&ws)
            .args(["--model", attack])
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        String::from_utf8(o.stdout).unwrap()
    }

    /// `taskc score` of `predictions`; returns the report's solved count per model.
    fn score(&self, predictions: &str) -> Vec<(String, u64)> {
        self.score_in(predictions, "joint")
    }

    /// `taskc score --mode mode` of `predictions`; the report's solved count per model.
    fn score_in(&self, predictions: &str, mode: &str) -> Vec<(String, u64)> {
        let out = self
            .tmp
            .path()
            .join(format!("report-{mode}-{}", predictions.len()));
        let o = self.taskc(
            &[
                "score",
                "cookie-split.task",
                "--predictions",
                predictions,
                "--mode",
                mode,
                "--jobs",
                "2",
                "--color",
                "never",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
        report["summaries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["model"].as_str().unwrap().to_string(),
                    s["metrics"]["solved"].as_u64().unwrap(),
                )
            })
            .collect()
    }
}

/// The repository's root (the examples and fixtures are under it).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn prepend(file: &Path, line: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, format!("{line}{text}")).unwrap();
}

/// Host processes whose command line names `needle`.
fn processes(needle: &str) -> Vec<String> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(needle))
        .collect()
}

/// Every `proxy/cookies.py` in the cached local images.
fn cached_cookies(cache: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let images = cache.join("local/images");
    for e in std::fs::read_dir(&images).unwrap().flatten() {
        let f = e.path().join("work/proxy/proxy/cookies.py");
        if let Ok(text) = std::fs::read_to_string(&f) {
            out.push((f, text));
        }
    }
    out
}

#[test]
fn attacks_on_the_host_fail_in_the_sandbox_and_are_refused_without_it() {
    let lab = Lab::new();
    let jsonl: String = ATTACKS.iter().map(|a| lab.prediction(a)).collect();
    let file = lab.tmp.path().join("attacks.jsonl");
    std::fs::write(&file, &jsonl).unwrap();
    let base_cookies =
        std::fs::read_to_string(lab.spec_dir().join("repos/proxy/proxy/cookies.py")).unwrap();

    // Without bubblewrap, a prediction's code is refused before any of it runs.
    let refused = lab.taskc(
        &[
            "score",
            "cookie-split.task",
            "--predictions",
            file.to_str().unwrap(),
            "--out",
            lab.tmp.path().join("refused").to_str().unwrap(),
        ],
        &[("TASKC_BWRAP", "")],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("runs unsandboxed"), "{stderr}");
    assert!(stderr.contains("refuses to run the code"), "{stderr}");
    for a in ATTACKS {
        assert!(!lab.marker(a).exists(), "{a} ran unsandboxed");
    }

    // `verify` runs the spec's own patches unsandboxed, and says so on one line.
    let verify = lab.taskc(
        &[
            "verify",
            "cookie-split.task",
            "--no-lock",
            "--color",
            "never",
        ],
        &[("TASKC_BWRAP", "")],
    );
    let stderr = String::from_utf8_lossy(&verify.stderr);
    assert_eq!(verify.status.code(), Some(0), "{stderr}");
    let notes: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("unsandboxed"))
        .collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(
        notes[0].starts_with("note: the local backend runs unsandboxed"),
        "{stderr}"
    );

    // Sandboxed: every attack runs and fails.
    let scored = lab.score(file.to_str().unwrap());
    assert_eq!(scored.len(), ATTACKS.len(), "{scored:?}");
    for (model, solved) in &scored {
        assert_eq!(*solved, 0, "attack `{model}` scored solved: {scored:?}");
    }
    // The daemon would mark after 3 s.
    std::thread::sleep(std::time::Duration::from_secs(4));
    for a in ATTACKS {
        let marker = lab.marker(a);
        assert!(
            !marker.exists(),
            "{a} reached the host: {}",
            std::fs::read_to_string(&marker).unwrap_or_default()
        );
    }
    assert_eq!(processes("taskc-adversary-daemon"), Vec::<String>::new());
    let cached = cached_cookies(&lab.cache());
    assert!(!cached.is_empty(), "no cached local image found");
    for (path, text) in cached {
        assert_eq!(text, base_cookies, "{} was rigged", path.display());
    }
    // The gold patches in the spec folder are where they were, unread or not.
    assert!(lab.spec_dir().join("gold/proxy.patch").is_file());

    // The same cache still gives the baselines their true scores.
    assert_eq!(lab.score("empty"), vec![("empty".to_string(), 0)]);
    assert_eq!(lab.score("gold"), vec![("gold".to_string(), 1)]);
}

/// Every `taskc-probe {…}` line in the stored logs under `cache`.
fn probe_lines(dir: &Path, out: &mut Vec<serde_json::Value>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        if path.is_dir() {
            probe_lines(&path, out);
        } else if path.extension().is_some_and(|x| x == "log") {
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
            for line in text.lines() {
                if let Some(json) = line.strip_prefix("taskc-probe ") {
                    out.push(serde_json::from_str(json).unwrap_or_else(|e| {
                        panic!("{}: bad probe line {json}: {e}", path.display())
                    }));
                }
            }
        }
    }
}

#[test]
fn the_test_command_runs_unprivileged_and_reads_no_upload() {
    // As root (CI), the sandboxed test command must drop to the test user; as another
    // user there is no one to drop to (and nothing of root's to protect).
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let root = status
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"));
    if !root {
        eprintln!("not root: the privilege drop is not tested");
        return;
    }
    let lab = Lab::new();
    let file = lab.tmp.path().join("probe.jsonl");
    std::fs::write(&file, lab.prediction(PROBE)).unwrap();
    // Independent mode: the run testing `gateway` also uploads `proxy`'s gold patch.
    let scored = lab.score_in(file.to_str().unwrap(), "independent");
    let mut probes = Vec::new();
    probe_lines(&lab.cache(), &mut probes);
    let cwds: std::collections::BTreeSet<String> = probes
        .iter()
        .map(|p| {
            p["cwd"]
                .as_str()
                .unwrap_or_default()
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert!(
        cwds.contains("proxy") && cwds.contains("gateway"),
        "the probe ran in both targets' runs: {probes:#?}"
    );
    for p in &probes {
        assert_ne!(p["uid"], 0, "the test command ran as root: {p}");
        assert_ne!(p["euid"], 0, "{p}");
        for cap in p["caps"].as_array().unwrap() {
            assert_eq!(cap, "0000000000000000", "a capability left: {p}");
        }
        assert_eq!(p["harness_exists"], true, "{p}");
        assert_eq!(
            p["read"],
            serde_json::json!([]),
            "read the harness's files: {p}"
        );
        assert_eq!(
            p["wrote"],
            serde_json::json!([]),
            "wrote outside its repo: {p}"
        );
        assert_eq!(p["wrote_own"], true, "its own repository is its own: {p}");
        // Defence 14: on a cgroup v1 host (as root) the run has its own cpu, memory and pids
        // groups, with the container's limits; its `cpu` group is a top-level one of its own
        // (`/taskc-<run>`, not under a shared parent whose one weight all runs would share).
        if std::path::Path::new("/sys/fs/cgroup/pids/cgroup.procs").is_file() {
            for (c, prefix) in [
                ("cpu", "/taskc-"),
                ("memory", "/taskc/"),
                ("pids", "/taskc/"),
            ] {
                let path = p["cgroups"][c].as_str().unwrap_or_default();
                assert!(
                    path.starts_with(prefix),
                    "the run is not in a `{c}` group of its own ({prefix}…): {p}"
                );
            }
        }
    }
    assert!(!lab.marker(PROBE).exists(), "read a gold patch");
    assert_eq!(scored, vec![(PROBE.to_string(), 0)], "{scored:?}");
}
