//! Per-run container overhead of the Docker backend against the `docker` CLI.
//!
//! `cargo bench -p taskc-runtime --bench container_overhead` runs the trivial script `true`
//! in `taskc/base:bookworm` N times (default 50, `TASKC_BENCH_N`) in each of these
//! variants, interleaved round-robin so that the machine's load drifts equally over all:
//!
//! - `backend`: the real `DockerBackend::run` (create → start → wait → inspect → logs →
//!   remove) with a bare `RunRequest`;
//! - `backend+io`: the same, uploading one small file and collecting one file, as real runs do;
//! - `cli`: `docker run --rm <image> true`;
//! - `cli+flags`: `docker run --rm` with the flags the backend sets (`--init`,
//!   `--network none`, memory/cpu/pids limits).
//!
//! Then it times each phase of one run through the bollard client (median of N/5 runs) to
//! show where the time goes. Prints medians, p90 and the ratios backend / cli.
//! `TASKC_BENCH_IMAGE` changes the image.
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use bollard::container::{
    Config, CreateContainerOptions, DownloadFromContainerOptions, InspectContainerOptions,
    LogsOptions, RemoveContainerOptions, StartContainerOptions, UploadToContainerOptions,
    WaitContainerOptions,
};
use bollard::models::HostConfig;
use futures_util::StreamExt;
use taskc_runtime::backend::{Backend, Limits, RunRequest, Upload};
use taskc_runtime::docker::DockerBackend;

/// The limits `taskc verify` and `taskc score` use (see `pipeline::DEFAULT_LIMITS`).
const LIMITS: Limits = taskc_runtime::pipeline::DEFAULT_LIMITS;

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("container_overhead bench: run with `cargo bench -p taskc-runtime --bench container_overhead`");
        return;
    }
    let n: usize = std::env::var("TASKC_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let image = std::env::var("TASKC_BENCH_IMAGE").unwrap_or_else(|_| "taskc/base:bookworm".into());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let backend = match rt.block_on(DockerBackend::connect()) {
        Ok(b) => b,
        Err(e) => {
            println!("container_overhead bench: Docker is not reachable ({e}); skipped");
            return;
        }
    };
    println!("container_overhead: image {image}, {n} runs per variant, interleaved");
    println!("load average before: {}", load_average());

    // Warm-up: one of each, not counted.
    rt.block_on(backend_run(&backend, &image, false, 0));
    rt.block_on(backend_run(&backend, &image, true, 0));
    cli_run(&image, false);
    cli_run(&image, true);

    let mut samples: [Vec<Duration>; 4] = Default::default();
    for i in 0..n {
        samples[0].push(rt.block_on(backend_run(&backend, &image, false, i + 1)));
        samples[1].push(rt.block_on(backend_run(&backend, &image, true, i + 1)));
        samples[2].push(cli_run(&image, false));
        samples[3].push(cli_run(&image, true));
    }
    let names = ["backend", "backend+io", "cli", "cli+flags"];
    println!(
        "\n{:<12} {:>10} {:>10} {:>10} {:>10}",
        "variant", "median", "p10", "p90", "mean"
    );
    let mut medians = [0.0f64; 4];
    for (k, s) in samples.iter_mut().enumerate() {
        s.sort();
        medians[k] = ms(s[s.len() / 2]);
        let mean = s.iter().map(|d| ms(*d)).sum::<f64>() / s.len() as f64;
        println!(
            "{:<12} {:>8.0}ms {:>8.0}ms {:>8.0}ms {:>8.0}ms",
            names[k],
            medians[k],
            ms(s[s.len() / 10]),
            ms(s[s.len() * 9 / 10]),
            mean
        );
    }
    println!(
        "\nratio backend / cli             = {:.2}",
        medians[0] / medians[2]
    );
    println!(
        "ratio backend+io / cli          = {:.2}",
        medians[1] / medians[2]
    );
    println!(
        "ratio backend / cli+flags       = {:.2}",
        medians[0] / medians[3]
    );
    println!(
        "ratio backend+io / cli+flags    = {:.2}",
        medians[1] / medians[3]
    );

    let phase_runs = (n / 5).max(3);
    println!("\nphases of one backend+io run through bollard (median of {phase_runs}):");
    let mut phases: Vec<Vec<(&'static str, Duration)>> = Vec::new();
    for i in 0..phase_runs {
        phases.push(rt.block_on(phased_run(&backend, &image, i)));
    }
    let total: f64 = (0..phases[0].len())
        .map(|p| {
            let mut v: Vec<Duration> = phases.iter().map(|r| r[p].1).collect();
            v.sort();
            let med = ms(v[v.len() / 2]);
            println!("  {:<10} {:>7.0}ms", phases[0][p].0, med);
            med
        })
        .sum();
    println!(
        "  {:<10} {:>7.0}ms (sum of the phase medians)",
        "total", total
    );
    println!("load average after: {}", load_average());
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// One run of `true` through the real backend, timed end to end.
async fn backend_run(backend: &DockerBackend, image: &str, io: bool, i: usize) -> Duration {
    let mut req = RunRequest::new(
        image,
        format!("bench-{}-{i}", if io { "io" } else { "bare" }),
        "bench-container-overhead",
        if io {
            "cp /work/in.patch /work/out.txt"
        } else {
            "true"
        },
    );
    req.limits = LIMITS;
    req.timeout = Duration::from_secs(120);
    if io {
        req.workdir = "/work".into();
        req.uploads.push(Upload {
            path: "/work/in.patch".into(),
            bytes: b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".repeat(20),
            mode: 0o644,
        });
        req.collect.push("/work/out.txt".into());
    }
    let t = Instant::now();
    let out = backend.run(&req).await.expect("backend run");
    let d = t.elapsed();
    assert!(out.succeeded(), "run failed: {}", out.log_text());
    if io {
        assert!(
            out.collected.contains_key("/work/out.txt"),
            "nothing collected"
        );
    }
    d
}

/// One `docker run --rm` of `true`, timed end to end.
fn cli_run(image: &str, flags: bool) -> Duration {
    let mut cmd = Command::new("docker");
    cmd.args(["run", "--rm"]);
    if flags {
        cmd.args([
            "--init",
            "--network",
            "none",
            "--memory",
            "4g",
            "--memory-swap",
            "4g",
            "--cpus",
            "2",
            "--pids-limit",
            "4096",
        ]);
    }
    cmd.args([image, "true"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let t = Instant::now();
    let status = cmd.status().expect("docker CLI");
    let d = t.elapsed();
    assert!(status.success(), "docker run failed");
    d
}

/// The backend's phases, replayed one by one through the bollard client and timed.
async fn phased_run(
    backend: &DockerBackend,
    image: &str,
    i: usize,
) -> Vec<(&'static str, Duration)> {
    let docker = backend.client();
    let mut out = Vec::new();
    let host_config = HostConfig {
        memory: Some(4 << 30),
        memory_swap: Some(4 << 30),
        nano_cpus: Some(2_000_000_000),
        pids_limit: Some(4096),
        network_mode: Some("none".into()),
        init: Some(true),
        ..Default::default()
    };
    let config = Config {
        image: Some(image.to_string()),
        cmd: Some(vec![
            "bash".into(),
            "-euo".into(),
            "pipefail".into(),
            "-c".into(),
            "cp /work/in.patch /work/out.txt".into(),
        ]),
        working_dir: Some("/work".into()),
        network_disabled: Some(true),
        host_config: Some(host_config),
        labels: Some(
            [("taskc.session".to_string(), format!("bench-phases-{i}"))]
                .into_iter()
                .collect(),
        ),
        ..Default::default()
    };
    let t = Instant::now();
    let id = docker
        .create_container(None::<CreateContainerOptions<String>>, config)
        .await
        .expect("create")
        .id;
    out.push(("create", t.elapsed()));

    let mut tar = tar::Builder::new(Vec::new());
    let bytes = b"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n".repeat(20);
    let mut header = tar::Header::new_gnu();
    header.set_size(bytes.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "work/in.patch", &bytes[..])
        .expect("tar");
    let archive = tar.into_inner().expect("tar");
    let t = Instant::now();
    docker
        .upload_to_container(
            &id,
            Some(UploadToContainerOptions {
                path: "/".to_string(),
                ..Default::default()
            }),
            archive.into(),
        )
        .await
        .expect("upload");
    out.push(("upload", t.elapsed()));

    let t = Instant::now();
    docker
        .start_container(&id, None::<StartContainerOptions<String>>)
        .await
        .expect("start");
    out.push(("start", t.elapsed()));

    let t = Instant::now();
    let mut wait = docker.wait_container(
        &id,
        Some(WaitContainerOptions {
            condition: "not-running",
        }),
    );
    let _ = wait.next().await;
    out.push(("wait", t.elapsed()));

    let t = Instant::now();
    docker
        .inspect_container(&id, None::<InspectContainerOptions>)
        .await
        .expect("inspect");
    out.push(("inspect", t.elapsed()));

    let t = Instant::now();
    let mut logs = docker.logs(
        &id,
        Some(LogsOptions::<String> {
            stdout: true,
            stderr: true,
            ..Default::default()
        }),
    );
    while logs.next().await.is_some() {}
    out.push(("logs", t.elapsed()));

    let t = Instant::now();
    let mut dl = docker.download_from_container(
        &id,
        Some(DownloadFromContainerOptions {
            path: "/work/out.txt",
        }),
    );
    while dl.next().await.is_some() {}
    out.push(("collect", t.elapsed()));

    let t = Instant::now();
    docker
        .remove_container(
            &id,
            Some(RemoveContainerOptions {
                force: true,
                v: true,
                ..Default::default()
            }),
        )
        .await
        .expect("remove");
    out.push(("remove", t.elapsed()));
    out
}
