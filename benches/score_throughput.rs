//! Scoring throughput: `taskc score` over generated predictions, predictions per minute and
//! the overhead against the raw test-command time.
//!
//! `cargo bench --bench score_throughput` writes `target/bench-score/predictions.jsonl`:
//! `TASKC_BENCH_PREDICTIONS` (default 200) predictions spread round-robin over the examples
//! that have a lock (cookie-split, config-merge, context-docs, sdk-retry), each of one of five
//! kinds, round-robin:
//!
//! - `gold`: every gold patch (resolves);
//! - `empty`: no patch at all (fails the tests);
//! - `partial`: the gold patch of the first target only (fails a consumer's tests);
//! - `drophunk`: gold with the last hunk (or file) of the last target's patch dropped;
//! - `badctx`: gold with a context line of the first hunk changed, so the patch does not
//!   apply (the run is reported as failing to apply).
//!
//! Every prediction has its own model name, so no two share a stored result. Per backend
//! (`TASKC_BENCH_BACKENDS`, default `local,docker`) it runs one warm-up `taskc score
//! --predictions gold` (images; not counted), removes the results cache, then times
//! `taskc score <specs> --predictions <file> --mode joint --jobs 2`. On docker only the first
//! `TASKC_BENCH_DOCKER_PREDICTIONS` (default 20) predictions are scored: a docker run of the
//! Go repository alone takes 20 s on this machine. Prints predictions per minute, the sum of
//! the raw test-command times (`test_ms`) and the two overhead ratios of the verify bench.
//! `TASKC_BENCH_BIN` measures another taskc binary instead of this build's.
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use taskc_runtime::results::RunResult;

const TASKS: [&str; 4] = ["cookie-split", "config-merge", "context-docs", "sdk-retry"];
const KINDS: [&str; 5] = ["gold", "empty", "partial", "drophunk", "badctx"];

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs us without it.
    if !std::env::args().any(|a| a == "--bench") {
        println!("score_throughput bench: run with `cargo bench --bench score_throughput`");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // `TASKC_BENCH_BIN`: another taskc binary to measure (e.g. one built before a change).
    let taskc = std::env::var_os("TASKC_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_taskc")));
    let n: usize = env_or("TASKC_BENCH_PREDICTIONS", "200")
        .parse()
        .unwrap_or(200);
    let n_docker: usize = env_or("TASKC_BENCH_DOCKER_PREDICTIONS", "20")
        .parse()
        .unwrap_or(20);
    let jobs: usize = env_or("TASKC_BENCH_JOBS", "2").parse().unwrap_or(2);
    let backends = env_or("TASKC_BENCH_BACKENDS", "local,docker");
    let work = root.join("target/bench-score");
    let cache = work.join("cache");
    if let Err(e) = std::fs::create_dir_all(&work) {
        println!("score_throughput: cannot create {}: {e}", work.display());
        return;
    }
    let specs: Vec<PathBuf> = TASKS
        .iter()
        .map(|t| root.join("examples").join(t).join(format!("{t}.task")))
        .collect();
    let golds: Vec<(String, Vec<(String, String)>)> = TASKS
        .iter()
        .map(|t| (t.to_string(), gold_patches(&root.join("examples").join(t))))
        .collect();

    println!("score_throughput: taskc {}", taskc.display());
    println!("load average before: {}", load_average());
    for backend in backends.split(',').filter(|s| !s.is_empty()) {
        let count = if backend == "docker" {
            n_docker.min(n)
        } else {
            n
        };
        let lines = predictions(&golds, count);
        let file = work.join(format!("predictions-{backend}.jsonl"));
        if let Err(e) = std::fs::write(&file, lines.join("\n") + "\n") {
            println!("cannot write {}: {e}", file.display());
            return;
        }
        let out = work.join(format!("report-{backend}"));
        // Warm-up: images (and, on the local backend, image folders); not counted.
        if let Err(e) = score(&taskc, &specs, "gold", backend, jobs, &cache, &out) {
            println!("{backend}: warm-up failed: {e}");
            continue;
        }
        let _ = std::fs::remove_dir_all(cache.join("results"));
        let pred_arg = file.to_string_lossy().into_owned();
        let wall = match score(&taskc, &specs, &pred_arg, backend, jobs, &cache, &out) {
            Ok(w) => w,
            Err(e) => {
                println!("{backend}: score failed: {e}");
                continue;
            }
        };
        let (runs, invalid, test_ms, run_ms) = sum_results(&cache.join("results").join(backend));
        let test = test_ms as f64 / 1000.0;
        println!("\nbackend {backend}, {count} predictions ({} tasks × {} kinds, round-robin), --jobs {jobs}, --mode joint", TASKS.len(), KINDS.len());
        println!("  file            {}", file.display());
        println!("  wall            {wall:.1}s");
        println!("  predictions/min {:.1}", count as f64 / wall * 60.0);
        println!("  runs            {runs} ({invalid} invalid: patch did not apply, …)");
        println!("  sum test        {test:.1}s (raw test commands)");
        println!(
            "  sum run         {:.1}s (start → exit per run: `wall_ms`)",
            run_ms as f64 / 1000.0
        );
        println!("  wall/test       {:.2}", wall / test);
        println!("  wall/(test/{jobs})  {:.2}", wall / (test / jobs as f64));
        println!("  load average    {}", load_average());
    }
}

fn env_or(key: &str, default: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| default.to_string())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The gold patches of an example, `(repository, diff)`, in the spec's repository order
/// (the file `gold/<repo>.patch`, ordered as the `repo` blocks appear).
fn gold_patches(dir: &Path) -> Vec<(String, String)> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let spec = std::fs::read_to_string(dir.join(format!("{name}.task"))).unwrap_or_default();
    spec.lines()
        .filter_map(|l| l.trim().strip_prefix("repo ")?.strip_suffix('{'))
        .map(|r| r.trim().to_string())
        .filter_map(|repo| {
            let diff =
                std::fs::read_to_string(dir.join("gold").join(format!("{repo}.patch"))).ok()?;
            Some((repo, diff))
        })
        .collect()
}

/// `count` JSONL lines, round-robin over tasks and kinds.
fn predictions(golds: &[(String, Vec<(String, String)>)], count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let (task, gold) = &golds[i % golds.len()];
            let kind = KINDS[(i / golds.len()) % KINDS.len()];
            let mut patches: BTreeMap<String, String> = BTreeMap::new();
            match kind {
                "gold" => patches.extend(gold.iter().cloned()),
                "empty" => {}
                "partial" => patches.extend(gold.iter().take(1).cloned()),
                "drophunk" => {
                    patches.extend(gold.iter().cloned());
                    if let Some((repo, diff)) = gold.last() {
                        patches.insert(repo.clone(), drop_last_hunk(diff));
                    }
                }
                _ => {
                    patches.extend(gold.iter().cloned());
                    if let Some((repo, diff)) = gold.first() {
                        patches.insert(repo.clone(), change_context(diff));
                    }
                }
            }
            serde_json::json!({
                "task": task,
                "model": format!("bench-{i:03}-{kind}"),
                "patches": patches,
            })
            .to_string()
        })
        .collect()
}

/// The diff without its last hunk; a file left without hunks is dropped with its header.
fn drop_last_hunk(diff: &str) -> String {
    let lines: Vec<&str> = diff.lines().collect();
    let Some(last) = lines.iter().rposition(|l| l.starts_with("@@")) else {
        return diff.to_string();
    };
    let mut kept: Vec<&str> = lines[..last].to_vec();
    // If the dropped hunk was its file's only one, drop the file's header lines too.
    if !kept
        .iter()
        .rev()
        .take_while(|l| !l.starts_with("diff --git"))
        .any(|l| l.starts_with("@@"))
    {
        if let Some(header) = kept.iter().rposition(|l| l.starts_with("diff --git")) {
            kept.truncate(header);
        }
    }
    let mut out = kept.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The diff with the first context line of its first hunk changed, so it cannot apply.
fn change_context(diff: &str) -> String {
    let mut in_hunk = false;
    let mut changed = false;
    let mut out = String::new();
    for line in diff.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
        } else if in_hunk && !changed && line.starts_with(' ') && line.trim().len() > 2 {
            out.push_str(line);
            out.push_str(" # changed by the bench\n");
            changed = true;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs `taskc score` once; returns its wall time in seconds.
fn score(
    taskc: &Path,
    specs: &[PathBuf],
    predictions: &str,
    backend: &str,
    jobs: usize,
    cache: &Path,
    out: &Path,
) -> Result<f64, String> {
    let t = Instant::now();
    let output = Command::new(taskc)
        .arg("score")
        .args(specs)
        .args(["--predictions", predictions, "--mode", "joint"])
        .args(["--backend", backend, "--jobs", &jobs.to_string()])
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot start {}: {e}", taskc.display()))?;
    let wall = t.elapsed().as_secs_f64();
    match output.status.code() {
        Some(0) | Some(1) => Ok(wall),
        _ => Err(format!(
            "exit {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .join(" | ")
        )),
    }
}

/// Number of stored results, how many are invalid, the sum of their `test_ms` and of their
/// `wall_ms`.
fn sum_results(dir: &Path) -> (usize, usize, u64, u64) {
    let (mut runs, mut invalid, mut test_ms, mut run_ms) = (0, 0, 0, 0);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, 0, 0, 0);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let Some(result) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str::<RunResult>(&t).ok())
        else {
            continue;
        };
        runs += 1;
        invalid += usize::from(!result.is_valid());
        run_ms += result.wall_ms;
        test_ms += result.repos.values().map(|r| r.test_ms).sum::<u64>();
    }
    (runs, invalid, test_ms, run_ms)
}
