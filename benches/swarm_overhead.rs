//! Swarm figures: per-run overhead of the swarm backend against the Docker backend, and
//! runs per minute of the examples' `verify` on the swarm as it is (one node, or more).
//!
//! `cargo bench --bench swarm_overhead` (the engine must be a swarm manager: `docker swarm
//! init --advertise-addr 127.0.0.1`, or run it inside `scripts/swarm-multinode.sh`):
//!
//! 1. `TASKC_BENCH_N` (default 50) runs of the script `true` in `taskc/base:bookworm` on
//!    each backend, interleaved round-robin so load drifts equally over both; the full
//!    `Backend::run` (docker: create → start → logs → remove; swarm: configs → service →
//!    task → log stream → remove). Prints median and p90 per backend.
//! 2. `taskc verify` of every example (`TASKC_BENCH_EXAMPLES`) at `--jobs 2` on
//!    `--backend swarm` with a fresh results cache (images warm from a first, uncounted
//!    verify), and the same on docker: runs executed, wall time, runs per minute, and on
//!    how many swarm nodes the runs' tasks landed.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use taskc_runtime::backend::{Backend, RunRequest};

const EXAMPLES: &str = "cookie-split,config-merge,unsound-partial,context-docs,sdk-retry";

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("swarm_overhead bench: run with `cargo bench --bench swarm_overhead`");
        return;
    }
    let n: usize = env_or("TASKC_BENCH_N", "50").parse().unwrap_or(50);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let (docker, swarm) = match rt.block_on(async {
        let d = taskc_runtime::pipeline::open_backend(
            taskc_runtime::pipeline::BackendChoice::Docker,
            Path::new("/tmp"),
        )
        .await?;
        let s = taskc_runtime::pipeline::open_backend(
            taskc_runtime::pipeline::BackendChoice::Swarm,
            Path::new("/tmp"),
        )
        .await?;
        Ok::<_, taskc_runtime::backend::BackendError>((d.0, s.0))
    }) {
        Ok(b) => b,
        Err(e) => {
            println!("swarm_overhead bench: no swarm here ({e}); skipped");
            return;
        }
    };
    println!("swarm_overhead: {n} `true` runs per backend, interleaved");
    println!("load average before: {}", load_average());
    let image = "taskc/base:bookworm";
    let mut times: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for i in 0..=n {
        for (k, backend) in [&docker, &swarm].into_iter().enumerate() {
            let t = rt.block_on(one(backend, image, i));
            if i > 0 {
                times[k].push(t); // run 0 warms up
            }
        }
    }
    for (k, name) in ["docker", "swarm"].into_iter().enumerate() {
        let (median, p90) = stats(&mut times[k]);
        println!("{name:<7} per-run: median {median:>7.3} s  p90 {p90:>7.3} s");
    }
    println!("load average after: {}", load_average());

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let taskc = PathBuf::from(env!("CARGO_BIN_EXE_taskc"));
    let examples = env_or("TASKC_BENCH_EXAMPLES", EXAMPLES);
    let specs: Vec<String> = examples
        .split(',')
        .map(|e| format!("examples/{e}/{e}.task"))
        .collect();
    println!("\nverify of {examples} at --jobs 2");
    for backend in ["docker", "swarm"] {
        let cache = root.join(format!("target/bench-swarm/{backend}"));
        // Warm-up: images, mirrors (not counted).
        verify(&taskc, &root, &specs, backend, &cache);
        let _ = std::fs::remove_dir_all(cache.join("results"));
        let started = Instant::now();
        let runs = verify(&taskc, &root, &specs, backend, &cache);
        let wall = started.elapsed().as_secs_f64();
        println!(
            "{backend:<7} {runs:>3} runs in {wall:>7.1} s: {:>6.1} runs/min",
            runs as f64 * 60.0 / wall
        );
    }
    println!("swarm nodes: {}", swarm_nodes());
}

async fn one(backend: &Arc<dyn Backend>, image: &str, i: usize) -> Duration {
    let mut req = RunRequest::new(image, format!("bench-{i}"), "bench-swarm-overhead", "true");
    req.timeout = Duration::from_secs(120);
    let started = Instant::now();
    let out = backend.run(&req).await.expect("run");
    assert!(out.succeeded(), "{}", out.log_text());
    started.elapsed()
}

/// Executed runs summed over the `N runs: E executed` headers.
fn verify(taskc: &Path, root: &Path, specs: &[String], backend: &str, cache: &Path) -> usize {
    let out = Command::new(taskc)
        .arg("verify")
        .args(specs)
        .args([
            "--backend",
            backend,
            "--jobs",
            "2",
            "--no-lock",
            "--color",
            "never",
        ])
        .arg("--cache")
        .arg(cache)
        .current_dir(root)
        .stderr(Stdio::null())
        .output()
        .expect("taskc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once(" runs: ")?;
            rest.split(' ').next()?.parse::<usize>().ok()
        })
        .sum()
}

fn swarm_nodes() -> String {
    Command::new("docker")
        .args([
            "node",
            "ls",
            "--format",
            "{{.Hostname}} {{.Status}} {{.ManagerStatus}}",
        ])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .replace('\n', "; ")
        })
        .unwrap_or_default()
}

fn stats(v: &mut [Duration]) -> (f64, f64) {
    v.sort();
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize].as_secs_f64();
    (at(0.5), at(0.9))
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
