//! Verify overhead: `taskc verify` wall time against the raw test-command time.
//!
//! `cargo bench --bench verify_overhead` runs the real `taskc` binary on
//! `examples/cookie-split` and `examples/sdk-retry`, on the docker and the local backend, at
//! `--jobs 2` (`TASKC_BENCH_JOBS`). Per (example, backend) it first runs one warm-up verify
//! (builds or checks the images, fills the mirrors; not counted), then `TASKC_BENCH_REPEAT`
//! (default 1) measured verifies, each with a fresh results cache (`<cache>/results/`
//! removed). After each it reads the stored results and prints:
//!
//! - `wall`: wall time of the whole `taskc verify` process;
//! - `sum test`: the sum over runs and repositories of `test_ms`, the raw test command's
//!   wall time measured inside the run;
//! - `sum run`: the sum of `wall_ms` (the Docker backend measures container start → exit);
//! - `wall/test`: the overhead ratio (runs overlap at `--jobs 2`, so this can be
//!   below 1);
//! - `wall/(test/jobs)`: against the ideal parallel time, the sum divided by the jobs.
//!
//! `TASKC_BENCH_EXAMPLES=cookie-split,sdk-retry` and `TASKC_BENCH_BACKENDS=docker,local`
//! select; the cache is `target/bench-verify/cache` (kept between invocations).
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use taskc_runtime::results::RunResult;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("verify_overhead bench: run with `cargo bench --bench verify_overhead`");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let taskc = PathBuf::from(env!("CARGO_BIN_EXE_taskc"));
    let jobs: usize = env_or("TASKC_BENCH_JOBS", "2").parse().unwrap_or(2);
    let repeat: usize = env_or("TASKC_BENCH_REPEAT", "1").parse().unwrap_or(1);
    let examples = env_or("TASKC_BENCH_EXAMPLES", "cookie-split,sdk-retry");
    let backends = env_or("TASKC_BENCH_BACKENDS", "docker,local");
    let cache = root.join("target/bench-verify/cache");

    println!("verify_overhead: taskc {}", taskc.display());
    println!("jobs {jobs}, repeat {repeat}, cache {}", cache.display());
    println!("load average before: {}", load_average());
    println!(
        "\n{:<14} {:<7} {:>5} {:>9} {:>9} {:>9} {:>10} {:>16}  load",
        "example",
        "backend",
        "runs",
        "wall",
        "sum test",
        "sum run",
        "wall/test",
        "wall/(test/jobs)"
    );
    for example in examples.split(',').filter(|s| !s.is_empty()) {
        let spec = root
            .join("examples")
            .join(example)
            .join(format!("{example}.task"));
        for backend in backends.split(',').filter(|s| !s.is_empty()) {
            // Warm-up: images, mirrors and materialised repositories; not counted.
            if let Err(e) = verify(&taskc, &spec, backend, jobs, &cache) {
                println!("{example:<14} {backend:<7} warm-up failed: {e}");
                continue;
            }
            for _ in 0..repeat {
                let _ = std::fs::remove_dir_all(cache.join("results"));
                let wall = match verify(&taskc, &spec, backend, jobs, &cache) {
                    Ok(w) => w,
                    Err(e) => {
                        println!("{example:<14} {backend:<7} failed: {e}");
                        continue;
                    }
                };
                let (runs, test_ms, run_ms) = sum_results(&cache.join("results").join(backend));
                let test = test_ms as f64 / 1000.0;
                println!(
                    "{:<14} {:<7} {:>5} {:>8.1}s {:>8.1}s {:>8.1}s {:>10.2} {:>16.2}  {}",
                    example,
                    backend,
                    runs,
                    wall,
                    test,
                    run_ms as f64 / 1000.0,
                    wall / test,
                    wall / (test / jobs as f64),
                    load_average()
                );
            }
        }
    }
    println!("load average after: {}", load_average());
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Runs `taskc verify` once; returns its wall time in seconds.
fn verify(
    taskc: &Path,
    spec: &Path,
    backend: &str,
    jobs: usize,
    cache: &Path,
) -> Result<f64, String> {
    let t = Instant::now();
    let out = Command::new(taskc)
        .arg("verify")
        .arg(spec)
        .args([
            "--backend",
            backend,
            "--jobs",
            &jobs.to_string(),
            "--no-lock",
        ])
        .arg("--cache")
        .arg(cache)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", taskc.display()))?;
    let wall = t.elapsed().as_secs_f64();
    // Exit 0 is a sound task; 1 is an unsound verdict; anything else is an error.
    match out.status.code() {
        Some(0) | Some(1) => Ok(wall),
        _ => Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .join(" | ")
        )),
    }
}

/// Number of stored results, the sum of their `test_ms` and the sum of their `wall_ms`.
fn sum_results(dir: &Path) -> (usize, u64, u64) {
    let mut runs = 0;
    let mut test_ms = 0;
    let mut run_ms = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0, 0);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(result) = serde_json::from_str::<RunResult>(&text) else {
            continue;
        };
        runs += 1;
        run_ms += result.wall_ms;
        test_ms += result.repos.values().map(|r| r.test_ms).sum::<u64>();
    }
    (runs, test_ms, run_ms)
}
