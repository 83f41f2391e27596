//! End to end on a real single-node swarm (`--backend swarm`), with the real binary: the
//! truth table of every example equals the Docker backend's (its committed snapshot), and
//! `score` with the `gold` / `empty` predictions gives the Docker backend's reports. The
//! engine becomes a swarm for this binary and is left afterwards if the test made it
//! (`runtime/tests/support/swarm_guard.rs`). FAILS when the engine does not answer, unless
//! `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[path = "../runtime/tests/support/swarm_guard.rs"]
mod swarm_guard;

use common::{docker_or_skip, redact, root};

use std::path::Path;
use std::process::Command;

const EXAMPLES: &[(&str, i32)] = &[
    ("cookie-split", 0),
    ("config-merge", 0),
    ("unsound-partial", 1),
    ("context-docs", 0),
    ("sdk-retry", 0),
];
const SOUND: &[&str] = &["cookie-split", "config-merge", "context-docs", "sdk-retry"];

fn swarm_or_skip() -> bool {
    if !docker_or_skip() {
        return false;
    }
    swarm_guard::ensure_swarm().expect("a single-node swarm");
    true
}

fn taskc(args: &[String], cache: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .arg("--cache")
        .arg(cache)
        .args(["--color", "never", "--jobs", "2", "--backend", "swarm"])
        .current_dir(root())
        .output()
        .expect("the taskc binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The body of the Docker backend's committed snapshot of `example`'s table.
fn docker_table(example: &str) -> String {
    let name = example.replace('-', "_");
    let path = root().join(format!(
        "tests/snapshots/verify_examples__docker_{name}.snap"
    ));
    let text = std::fs::read_to_string(&path).expect("the docker snapshot");
    let body = text.splitn(3, "---\n").nth(2).expect("an insta snapshot");
    body.to_string()
}

#[test]
fn verify_on_swarm_gives_the_docker_truth_table_of_every_example() {
    if !swarm_or_skip() {
        return;
    }
    let mut differ = Vec::new();
    // One cache per example; their images go when the last guard does (shared layers are
    // built once).
    let caches: Vec<_> = EXAMPLES
        .iter()
        .map(|_| tempfile::tempdir().expect("temp dir"))
        .collect();
    let _images: Vec<_> = caches
        .iter()
        .map(|c| common::CacheImages::new(c.path(), "swarm"))
        .collect();
    for ((example, code), cache) in EXAMPLES.iter().zip(&caches) {
        let spec = format!("examples/{example}/{example}.task");
        let args = ["verify".to_string(), spec, "--no-lock".to_string()];
        let (got, stdout, stderr) = taskc(&args, cache.path());
        assert_eq!(got, *code, "verify {example} on swarm:\n{stdout}\n{stderr}");
        let table = redact(&stdout);
        if table.trim_end() != docker_table(example).trim_end() {
            differ.push(format!(
                "{example}:\n--- swarm\n{table}\n--- docker\n{}",
                docker_table(example)
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// (solved, predictions, invalid) of a `score` on swarm.
fn score(predictions: &str) -> (u64, u64, u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let _images = common::CacheImages::new(&dir.path().join("cache"), "swarm");
    let out = dir.path().join("report");
    let mut args = vec!["score".to_string()];
    args.extend(SOUND.iter().map(|e| format!("examples/{e}/{e}.task")));
    args.extend(["--predictions", predictions, "--mode", "joint", "--out"].map(String::from));
    args.push(out.display().to_string());
    let (code, _, stderr) = taskc(&args, &dir.path().join("cache"));
    assert_eq!(code, 0, "taskc score on swarm failed:\n{stderr}");
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let m = &report["summaries"][0]["metrics"];
    let n = |k: &str| m[k].as_u64().unwrap_or(u64::MAX);
    (n("solved"), n("predictions"), n("invalid"))
}

#[test]
fn score_on_swarm_gives_the_docker_reports_for_gold_and_empty() {
    if !swarm_or_skip() {
        return;
    }
    // The Docker backend's figures (tests/score_examples.rs).
    assert_eq!(score("gold"), (4, 4, 0), "gold solves every sound example");
    assert_eq!(score("empty"), (0, 4, 0), "empty solves none");
}

#[test]
fn an_unreachable_engine_is_an_infrastructure_error_naming_the_swarm_operation() {
    // No engine: nothing to skip for.
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "examples/cookie-split/cookie-split.task",
            "--no-lock",
        ])
        .args(["--color", "never", "--backend", "swarm", "--cache"])
        .arg(tempfile::tempdir().expect("temp dir").path())
        .env("DOCKER_HOST", "unix:///nonexistent/taskc-swarm-test.sock")
        .current_dir(root())
        .output()
        .expect("the taskc binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit code 2 (infrastructure):\n{stderr}"
    );
    assert!(
        stderr.contains("swarm: connect to the manager's engine"),
        "{stderr}"
    );
    assert!(
        stderr.contains("cannot reach the Docker daemon"),
        "{stderr}"
    );
    assert!(stderr.contains("help: start Docker"), "{stderr}");
}

/// Result files stored under `cache` (one per finished run, whatever the backend's folder).
fn stored_results(cache: &Path) -> usize {
    fn walk(dir: &Path, n: &mut usize) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, n);
            } else if p.extension().is_some_and(|x| x == "json") {
                *n += 1;
            }
        }
    }
    let mut n = 0;
    walk(&cache.join("results"), &mut n);
    n
}

/// `(executed, cached)` from `verify`'s first line (`… N runs: E executed, C cached, …`).
fn run_counts(stdout: &str) -> (usize, usize) {
    let line = stdout.lines().next().unwrap_or_default();
    let count = |word: &str| {
        line.split(", ")
            .flat_map(|part| part.split(": "))
            .find_map(|p| p.strip_suffix(word).and_then(|n| n.trim().parse().ok()))
            .unwrap_or_else(|| panic!("no `{word}` count in {line:?}"))
    };
    (count(" executed"), count(" cached"))
}

#[test]
fn an_interrupted_verify_on_swarm_resumes_from_the_results_it_stored() {
    if !swarm_or_skip() {
        return;
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let _images = common::CacheImages::new(cache.path(), "swarm");
    let child = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "verify",
            "examples/cookie-split/cookie-split.task",
            "--no-lock",
        ])
        .arg("--cache")
        .arg(cache.path())
        .args(["--color", "never", "--jobs", "1", "--backend", "swarm"])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the taskc binary runs");
    // Interrupt once at least one run's result is stored (and before the last: 8 runs).
    let start = std::time::Instant::now();
    while stored_results(cache.path()) == 0 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(600),
            "no run finished on the swarm"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let out = child.wait_with_output().expect("taskc ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "interrupted:\n{stderr}");
    let kept = stored_results(cache.path());
    assert!((1..8).contains(&kept), "{kept} results kept:\n{stderr}");
    // The re-run takes the stored results and runs only the rest; the verdict is the
    // Docker backend's.
    let args = [
        "verify".to_string(),
        "examples/cookie-split/cookie-split.task".to_string(),
        "--no-lock".to_string(),
    ];
    let (code, stdout, stderr) = taskc(&args, cache.path());
    assert_eq!(code, 0, "re-run:\n{stdout}\n{stderr}");
    let (executed, cached) = run_counts(&stdout);
    assert!(
        cached >= kept,
        "{cached} cached, {kept} were stored:\n{stdout}"
    );
    // Targeted verification: 7 runs (the gateway-only configuration is already failed by
    // proxy's base run, so its gateway cell is not run).
    assert_eq!(executed + cached, 7, "{stdout}");
    let body = |t: &str| t.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        body(&redact(&stdout)).trim_end(),
        body(&docker_table("cookie-split")).trim_end(),
        "the resumed verdict is the Docker backend's"
    );
}

/// `taskc` on `backend` (the helper above is the swarm's).
fn taskc_on(backend: &str, args: &[String], cache: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .arg("--cache")
        .arg(cache)
        .args(["--color", "never", "--jobs", "2", "--backend", backend])
        .current_dir(root())
        .output()
        .expect("the taskc binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const STOCK: &str = "examples/stock-value/stock-value.task";

/// The example whose tests talk to a real Postgres and a mock HTTP server (issue 19):
/// sound on Docker and on the swarm, with one truth table, and `gold` / `empty` scoring
/// 100 % / 0 % on both. One cache per backend is shared by its verify and scores (the
/// images and the gold runs are built and run once per backend).
#[test]
fn stock_value_with_its_services_is_sound_and_scores_100_and_0_on_docker_and_swarm() {
    if !swarm_or_skip() {
        return;
    }
    let mut tables = Vec::new();
    let caches = ["docker", "swarm"].map(|_| tempfile::tempdir().expect("temp dir"));
    let _images = caches
        .each_ref()
        .map(|c| common::CacheImages::new(c.path(), "docker"));
    for (backend, cache) in ["docker", "swarm"].into_iter().zip(&caches) {
        let args = [
            "verify".to_string(),
            STOCK.to_string(),
            "--no-lock".to_string(),
        ];
        let (code, stdout, stderr) = taskc_on(backend, &args, cache.path());
        assert_eq!(
            code, 0,
            "verify stock-value on {backend}:\n{stdout}\n{stderr}"
        );
        tables.push(
            redact(&stdout)
                .lines()
                .skip(1)
                .collect::<Vec<_>>()
                .join("\n"),
        );
        for (predictions, solved) in [("gold", 1), ("empty", 0)] {
            let out = cache.path().join(format!("report-{predictions}"));
            let args = [
                "score",
                STOCK,
                "--predictions",
                predictions,
                "--mode",
                "joint",
                "--out",
            ]
            .map(String::from)
            .into_iter()
            .chain([out.display().to_string()])
            .collect::<Vec<_>>();
            let (code, _, stderr) = taskc_on(backend, &args, cache.path());
            assert_eq!(code, 0, "score {predictions} on {backend}:\n{stderr}");
            let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
            let report: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let m = &report["summaries"][0]["metrics"];
            let n = |k: &str| m[k].as_u64().unwrap_or(u64::MAX);
            assert_eq!(
                (n("solved"), n("predictions"), n("invalid")),
                (solved, 1, 0),
                "{predictions} on {backend}: {m}"
            );
        }
    }
    assert_eq!(tables[0], tables[1], "the swarm's truth table is Docker's");
}

/// The engine objects of the taskc process `pid` (its session is `s<pid>-…`) still there:
/// swarm services and configs, networks, containers.
fn leftovers(pid: u32) -> Vec<String> {
    let prefix = format!("s{pid}-");
    let kinds: [(&[&str], &str); 4] = [
        (
            &["service", "ls", "-q"],
            "{{index .Spec.Labels \"taskc.session\"}}",
        ),
        (
            &["config", "ls", "-q"],
            "{{index .Spec.Labels \"taskc.session\"}}",
        ),
        (
            &["network", "ls", "-q"],
            "{{index .Labels \"taskc.session\"}}",
        ),
        (
            &[
                "container",
                "ls",
                "-aq",
                "--filter",
                "label=com.docker.swarm.task",
            ],
            "{{index .Config.Labels \"taskc.session\"}}",
        ),
    ];
    let mut left = Vec::new();
    for (list, format) in kinds {
        let out = Command::new("docker")
            .args(list)
            .args(["--filter", "label=taskc.session"])
            .output()
            .expect("docker");
        for id in String::from_utf8_lossy(&out.stdout).lines() {
            let inspect = Command::new("docker")
                .args([list[0], "inspect", "--format", format, id])
                .output()
                .expect("docker");
            // Gone meanwhile: not left.
            if String::from_utf8_lossy(&inspect.stdout).starts_with(&prefix) {
                left.push(format!("{} {id}", list[0]));
            }
        }
    }
    left
}

/// `verify` of stock-value on `backend`, interrupted (SIGINT) once a run's services start:
/// exit 130 and nothing of its session left (containers, networks, services, configs).
fn ctrl_c_while_services_run_leaves_nothing(backend: &str, cache: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["verify", STOCK, "--no-lock", "--cache"])
        .arg(cache)
        .args(["--color", "never", "--jobs", "2", "--backend", backend])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the taskc binary runs");
    // Interrupt once one of its runs has a service network (and so services starting).
    let pid = child.id();
    let start = std::time::Instant::now();
    while !leftovers(pid).iter().any(|o| o.starts_with("network")) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(900),
            "no service started"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    std::thread::sleep(std::time::Duration::from_secs(2));
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    let status = child.wait().expect("taskc ends");
    assert_eq!(status.code(), Some(130), "interrupted on {backend}");
    let mut left = leftovers(pid);
    for _ in 0..100 {
        if left.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        left = leftovers(pid);
    }
    panic!("left after Ctrl-C on {backend}: {left:?}");
}

#[test]
fn a_ctrl_c_while_services_run_leaves_nothing_on_docker_and_swarm() {
    if !swarm_or_skip() {
        return;
    }
    // One cache per backend; their images go when the last guard does.
    let caches = ["docker", "swarm"].map(|_| tempfile::tempdir().expect("temp dir"));
    let _images = caches
        .each_ref()
        .map(|c| common::CacheImages::new(c.path(), "docker"));
    ctrl_c_while_services_run_leaves_nothing("docker", caches[0].path());
    ctrl_c_while_services_run_leaves_nothing("swarm", caches[1].path());
}
