//! `cargo bench --bench check`: check 10,000 generated specs, each naming a 200-line gold
//! patch and a 200-line hidden test patch with relaxations, through a `MemLoader` and then
//! through an `FsLoader` over a temp dir. Prints specs/s, MB/s, wall time and peak memory.
//!
//! `TASKC_BENCH_SPECS=<n>` changes the number of specs.
// Benchmark code: an unwrap/expect/panic that fires aborts the benchmark on a broken setup
// (the workspace lints deny them outside tests and benches).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;
use taskc_runtime::fs_loader::FsLoader;

/// One generated task: its spec and its two patches.
struct Generated {
    spec: String,
    gold: String,
    tests: String,
}

impl Generated {
    fn bytes(&self) -> usize {
        self.spec.len() + self.gold.len() + self.tests.len()
    }
}

/// A gold patch of about 200 lines: four hunks adding functions to two source files.
fn gold_patch(i: usize) -> String {
    let mut out = String::new();
    for (f, file) in ["src/pkg/core.py", "src/pkg/util.py"].iter().enumerate() {
        out.push_str(&format!(
            "diff --git a/{file} b/{file}\nindex {i:07x}..{:07x} 100644\n--- a/{file}\n+++ b/{file}\n",
            i + 1
        ));
        for h in 0..2 {
            let start = 10 + h * 100;
            let added: Vec<String> = (0..40)
                .map(|k| match k % 4 {
                    0 => format!("def helper_{i}_{f}_{h}_{k}(value):"),
                    1 => format!("    \"\"\"Step {k} of task {i}.\"\"\""),
                    2 => format!("    return transform(value, {k})"),
                    _ => String::new(),
                })
                .collect();
            out.push_str(&format!(
                "@@ -{start},6 +{start},{} @@ class Handler:\n",
                6 + added.len()
            ));
            out.push_str("     def handle(self, request):\n");
            out.push_str("         data = request.body\n");
            out.push_str("         return self.process(data)\n");
            for a in &added {
                out.push_str(&format!("+{a}\n"));
            }
            out.push_str(" \n");
            out.push_str(" \n");
            out.push_str(" def unrelated():\n");
        }
    }
    out
}

/// A hidden test patch of about 200 lines: one new test file with 40 tests.
fn tests_patch(i: usize) -> String {
    let mut lines = vec![
        "import pytest".to_string(),
        String::new(),
        format!("from pkg.core import helper_{i}_0_0_0"),
        String::new(),
    ];
    for t in 0..40 {
        lines.push(String::new());
        lines.push(format!("def test_case_{t}():"));
        if t == 7 {
            lines.push(format!(
                "    with pytest.raises(ValueError, match=\"bad value {i}\"):"
            ));
        } else {
            lines.push("    with pytest.raises(ValueError):".to_string());
        }
        lines.push(format!("        helper_{i}_0_0_0({t})"));
        lines.push(format!("    assert helper_{i}_0_0_0({t} + 1) == {t}"));
    }
    let mut out = format!(
        "diff --git a/tests/test_core.py b/tests/test_core.py\nnew file mode 100644\nindex 0000000..{i:07x}\n--- /dev/null\n+++ b/tests/test_core.py\n@@ -0,0 +1,{} @@\n",
        lines.len()
    );
    for l in &lines {
        out.push_str(&format!("+{l}\n"));
    }
    out
}

fn spec(i: usize) -> String {
    format!(
        r##"// generated task {i}
task "bench-{i}" {{
  title "Generated task {i}"
  kind feature
  ecosystem "python"
  languages ["python"]
  prompt """
    Make the handler transform request bodies in several steps.
    Keep the public interface unchanged.
    """
  verify per-repo

  env python {{
    version "3.11"
    packages ["pytest"]
  }}

  repo core {{
    source git("https://example.com/core-{i}.git")
    base "{i:040x}"
    gold file("gold.patch")
    setup "pip install -e ."
    test {{
      patch file("tests.patch")
      run "python -m pytest -rA tests"
      parser pytest
      timeout "10m"
      expect f2p "tests/test_core.py::test_case_1"
    }}
  }}

  context docs {{
    source git("https://example.com/docs.git")
    base "{:040x}"
  }}

  relax core {{
    drop "tests/test_core.py::test_case_3" {{
      rule unrequested
      because "the prompt asks for no such check"
    }}
    edit "tests/test_core.py" {{
      rule implementation-specific
      because "the prompt does not fix the error text"
      replace r#"match="bad value {i}""# with "match=None"
    }}
  }}
}}
"##,
        i + 1
    )
}

fn generate(i: usize) -> Generated {
    Generated {
        spec: spec(i),
        gold: gold_patch(i),
        tests: tests_patch(i),
    }
}

/// Peak resident memory of this process so far (VmHWM), in KiB.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time (user + system) this process has used so far, from /proc/self/stat; on a
/// loaded machine it says more about the checker than wall time does.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // Clock ticks are 100 per second on Linux (USER_HZ).
    Some(Duration::from_millis((utime + stime) * 10))
}

struct Figures {
    specs: usize,
    bytes: usize,
    errors: usize,
    warnings: usize,
    check: Duration,
    wall: Duration,
    /// CPU time of the whole phase (generation included for MemLoader).
    cpu: Option<Duration>,
}

fn print(name: &str, f: &Figures) {
    let secs = f.check.as_secs_f64().max(1e-9);
    println!(
        "{name}: {} specs, {:.1} MB (spec + patch bytes)\n  check time {:.3} s ({:.0} specs/s, {:.1} MB/s); wall incl. generation {:.3} s\n  CPU time of the phase {}\n  diagnostics: {} errors, {} warnings; peak RSS so far {}",
        f.specs,
        f.bytes as f64 / 1e6,
        f.check.as_secs_f64(),
        f.specs as f64 / secs,
        f.bytes as f64 / 1e6 / secs,
        f.wall.as_secs_f64(),
        f.cpu
            .map_or("unknown".to_string(), |c| format!("{:.2} s", c.as_secs_f64())),
        f.errors,
        f.warnings,
        peak_kib().map_or("unknown".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0)),
    );
}

fn tally(f: &mut Figures, checked: &taskc_compiler::check::Checked, i: usize) {
    for d in checked.diagnostics.iter() {
        if d.is_error() {
            f.errors += 1;
            if f.errors == 1 {
                eprintln!("spec {i}: unexpected error {}: {}", d.code, d.message);
            }
        } else {
            f.warnings += 1;
        }
    }
}

fn mem_loader(n: usize) -> Figures {
    let start = Instant::now();
    let cpu0 = cpu_time();
    let mut f = Figures {
        specs: n,
        bytes: 0,
        errors: 0,
        warnings: 0,
        check: Duration::ZERO,
        wall: Duration::ZERO,
        cpu: None,
    };
    for i in 0..n {
        let g = generate(i);
        f.bytes += g.bytes();
        let loader = MemLoader::new()
            .with("gold.patch", g.gold.into_bytes())
            .with("tests.patch", g.tests.into_bytes());
        let path = format!("bench/{i}/task.task");
        let t = Instant::now();
        let checked = check_spec(&path, g.spec.as_bytes(), &loader);
        f.check += t.elapsed();
        tally(&mut f, &checked, i);
    }
    f.wall = start.elapsed();
    f.cpu = cpu_time().zip(cpu0).map(|(b, a)| b.saturating_sub(a));
    f
}

fn fs_loader(n: usize) -> std::io::Result<Figures> {
    let dir = tempfile::tempdir()?;
    let mut bytes = 0;
    for i in 0..n {
        let g = generate(i);
        bytes += g.bytes();
        let d = dir.path().join(i.to_string());
        std::fs::create_dir(&d)?;
        std::fs::write(d.join("task.task"), &g.spec)?;
        std::fs::write(d.join("gold.patch"), &g.gold)?;
        std::fs::write(d.join("tests.patch"), &g.tests)?;
    }
    let start = Instant::now();
    let cpu0 = cpu_time();
    let mut f = Figures {
        specs: n,
        bytes,
        errors: 0,
        warnings: 0,
        check: Duration::ZERO,
        wall: Duration::ZERO,
        cpu: None,
    };
    for i in 0..n {
        let d = dir.path().join(i.to_string());
        let t = Instant::now();
        let spec = std::fs::read(d.join("task.task"))?;
        let checked = check_spec(&format!("{i}/task.task"), &spec, &FsLoader::new(&d));
        f.check += t.elapsed();
        tally(&mut f, &checked, i);
    }
    f.wall = start.elapsed();
    f.cpu = cpu_time().zip(cpu0).map(|(b, a)| b.saturating_sub(a));
    Ok(f)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too: keep it short then.
    let testing = !std::env::args().any(|a| a == "--bench");
    let n = std::env::var("TASKC_BENCH_SPECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if testing { 50 } else { 10_000 });
    let g = generate(0);
    println!(
        "one spec: {} bytes; gold patch {} lines; test patch {} lines",
        g.spec.len(),
        g.gold.lines().count(),
        g.tests.lines().count()
    );
    let mem = mem_loader(n);
    print("MemLoader", &mem);
    match fs_loader(n) {
        Ok(fs) => print("FsLoader (temp dir, page cache warm)", &fs),
        Err(e) => eprintln!("FsLoader run failed: {e}"),
    }
    let per_10k = mem.check.as_secs_f64() * 10_000.0 / n.max(1) as f64;
    let peak_mib = peak_kib().map_or(f64::NAN, |k| k as f64 / 1024.0);
    println!(
        "target: 10,000 specs in < 2 s and < 200 MiB: MemLoader check time scaled to 10,000 = {per_10k:.2} s ({}), peak {peak_mib:.1} MiB ({})",
        if per_10k < 2.0 { "met" } else { "NOT met" },
        if peak_mib < 200.0 { "met" } else { "NOT met" },
    );
}
