//! Per-run overhead of the local backend with and without the bubblewrap sandbox: the same
//! trivial run (copy a small image folder, upload a file, run `true`-like bash, collect a
//! folder, remove the workspace) N times on each. Prints median and p90 in milliseconds.
//!
//! `cargo bench -p taskc-runtime --bench local_sandbox` (N = 40; set `BENCH_RUNS`).
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use taskc_runtime::backend::{Backend, ContextFile, ImageBuild, RunRequest, Upload};
use taskc_runtime::local::LocalBackend;

fn stats(mut v: Vec<Duration>) -> (f64, f64) {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(v[v.len() / 2]), ms(v[(v.len() * 9) / 10]))
}

async fn measure(backend: &LocalBackend, runs: usize) -> Vec<Duration> {
    let build = ImageBuild {
        tag: "taskc-bench/local:v1".into(),
        context: (0..50)
            .map(|i| ContextFile {
                path: format!("work/repo/src/m{i}.py"),
                bytes: vec![b'x'; 2048],
                mode: 0o644,
                mtime: 1_000_000_000,
            })
            .collect(),
        ..Default::default()
    };
    backend.ensure_image(&build).await.expect("image");
    let mut out = Vec::new();
    for i in 0..runs {
        let mut req = RunRequest::new(
            "taskc-bench/local:v1",
            format!("bench-{i}"),
            "bench",
            "mkdir -p \"$TASKC_ROOT/taskc/out\" && cat \"$TASKC_ROOT/taskc/blobs/p.patch\" > \"$TASKC_ROOT/taskc/out/log\"",
        );
        req.uploads = vec![Upload {
            path: "/taskc/blobs/p.patch".into(),
            bytes: b"diff --git a/x b/x\n".to_vec(),
            mode: 0o644,
        }];
        req.collect = vec!["/taskc/out".into()];
        req.workdir = "/work".into();
        let start = Instant::now();
        let o = backend.run(&req).await.expect("run");
        out.push(start.elapsed());
        assert_eq!(o.exit_code, Some(0), "{}", o.log_text());
    }
    out
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "local_sandbox bench: run with `cargo bench -p taskc-runtime --bench local_sandbox`"
        );
        return;
    }
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let cache = tempfile::tempdir().expect("tempdir");
    let path = std::env::var("PATH").unwrap_or_default();
    let sandboxed = LocalBackend::new(cache.path().join("a")).with_path(path.clone());
    let plain = LocalBackend::new(cache.path().join("b"))
        .with_path(path)
        .with_bwrap(None);
    println!("local backend, {runs} runs each (50-file image, 1 upload, 1 collected folder)");
    println!("sandbox: {:?}", sandboxed.sandbox_status());
    // Warm both (page cache, first-probe costs), then interleave.
    rt.block_on(measure(&sandboxed, 3));
    rt.block_on(measure(&plain, 3));
    let with = stats(rt.block_on(measure(&sandboxed, runs)));
    let without = stats(rt.block_on(measure(&plain, runs)));
    println!(
        "  unsandboxed  median {:6.1} ms  p90 {:6.1} ms",
        without.0, without.1
    );
    println!(
        "  bwrap        median {:6.1} ms  p90 {:6.1} ms",
        with.0, with.1
    );
    println!(
        "  overhead     median {:+6.1} ms per run",
        with.0 - without.0
    );
}
