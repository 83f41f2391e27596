//! The per-run cost of a service on the Docker backend (or, with
//! `TASKC_BENCH_BACKEND=swarm`, on the swarm this engine manages): start to ready.
//!
//! `cargo bench -p taskc-runtime --bench service_start` runs the trivial script `true` N
//! times (default 10, `TASKC_BENCH_N`) in `taskc/base:bookworm`, interleaved round-robin:
//!
//! - `no service`: a bare run (no network);
//! - `tcp service`: the same with one service (a Python TCP server on the base image,
//!   ready when its port accepts a connection);
//! - `postgres`: with the Postgres 15 service of `examples/stock-value`, when
//!   `TASKC_BENCH_PG_IMAGE` names its built image (`taskc/service:img-…`; `taskc verify`
//!   of the example builds it), ready when `pg_isready` says so.
//!
//! The difference of the medians is what a service adds to a run: the private network,
//! the service container's create and start, readiness probes, and the removal of both.
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use taskc_runtime::backend::{Backend, Limits, RunRequest, ServiceReady, ServiceSpec};
use taskc_runtime::docker::DockerBackend;
use taskc_runtime::swarm::SwarmBackend;

const IMAGE: &str = "taskc/base:bookworm";

fn tcp_service() -> ServiceSpec {
    ServiceSpec {
        name: "kv".into(),
        hostname: "kv".into(),
        image: IMAGE.into(),
        env: BTreeMap::new(),
        command: Some(
            "python3 -c 'import socketserver as s; s.TCPServer((\"0.0.0.0\", 7000), s.StreamRequestHandler).serve_forever()'"
                .into(),
        ),
        ready: ServiceReady::Tcp(7000),
        ready_timeout: Duration::from_secs(60),
        limits: Limits::default(),
    }
}

fn pg_service(image: &str) -> ServiceSpec {
    ServiceSpec {
        name: "db".into(),
        hostname: "db".into(),
        image: image.into(),
        env: BTreeMap::new(),
        command: None,
        ready: ServiceReady::Command(
            "/usr/lib/postgresql/15/bin/pg_isready -q -h 127.0.0.1 -U app".into(),
        ),
        ready_timeout: Duration::from_secs(60),
        limits: Limits {
            memory_bytes: Some(512 << 20),
            cpus: Some(1.0),
            pids: None,
        },
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!(
            "service_start bench: run with `cargo bench -p taskc-runtime --bench service_start`"
        );
        return;
    }
    let n: usize = std::env::var("TASKC_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    // `TASKC_BENCH_BACKEND=swarm`: the same on the swarm this engine manages.
    let swarm = std::env::var("TASKC_BENCH_BACKEND").as_deref() == Ok("swarm");
    let backend: Box<dyn Backend> = match swarm {
        true => match rt.block_on(SwarmBackend::connect(None, Default::default())) {
            Ok(b) => Box::new(b),
            Err(e) => {
                println!("service_start bench: no swarm manager ({e}); skipped");
                return;
            }
        },
        false => match rt.block_on(DockerBackend::connect()) {
            Ok(b) => Box::new(b),
            Err(e) => {
                println!("service_start bench: Docker is not reachable ({e}); skipped");
                return;
            }
        },
    };
    let mut variants: Vec<(&str, Vec<ServiceSpec>)> =
        vec![("no service", vec![]), ("tcp service", vec![tcp_service()])];
    if let Ok(pg) = std::env::var("TASKC_BENCH_PG_IMAGE") {
        variants.push(("postgres", vec![pg_service(&pg)]));
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); variants.len()];
    for i in 0..n {
        for (k, (name, services)) in variants.iter().enumerate() {
            let mut req = RunRequest::new(
                IMAGE,
                format!("bench-{k}-{i}"),
                format!("services-bench-{}", std::process::id()),
                "true",
            );
            req.services = services.clone();
            let started = Instant::now();
            let out = rt.block_on(backend.run(&req)).expect("run");
            assert!(out.succeeded(), "{name}: {:?}", out.service_failure);
            times[k].push(started.elapsed());
        }
    }
    println!(
        "service_start ({}): {n} runs per variant, interleaved",
        backend.name()
    );
    let base = median(&mut times[0].clone());
    for (k, (name, _)) in variants.iter().enumerate() {
        let m = median(&mut times[k]);
        println!(
            "{name:>12}: median {:>6.0} ms, max {:>6.0} ms, added by the service {:>6.0} ms",
            m.as_secs_f64() * 1e3,
            times[k].iter().max().unwrap().as_secs_f64() * 1e3,
            (m.as_secs_f64() - base.as_secs_f64()) * 1e3
        );
    }
}
