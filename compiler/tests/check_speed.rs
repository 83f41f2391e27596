//! A rough throughput figure for the checker (ignored by default; run with
//! `cargo test -p taskc-compiler --release --test check_speed -- --ignored --nocapture`).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::fmt::Write;
use std::time::Instant;

use taskc_compiler::check::check_spec;
use taskc_compiler::loader::MemLoader;

/// A realistic 200-line diff: `files` files of hunks with context, removals and additions.
fn patch(dir: &str, tag: &str) -> String {
    let mut out = String::new();
    for f in 0..4 {
        let path = format!("{dir}/mod_{f}_{tag}.py");
        let _ = writeln!(out, "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}");
        for h in 0..4 {
            let _ = writeln!(out, "@@ -{0},7 +{0},8 @@ def section_{h}():", h * 20 + 1);
            let _ = writeln!(out, "     value = compute_{h}(x)\n     if value > LIMIT_{h}:\n-        return old_result_{f}_{h}(value)\n+        return new_result_{f}_{h}(value)\n+        # handled {tag}\n     log.debug(\"ok\")\n     return None\n \n");
        }
    }
    out
}

#[test]
#[ignore]
fn check_throughput() {
    let n: usize = std::env::var("CHECK_SPEED_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let start = Instant::now();
    let mut errors = 0;
    let mut in_check = std::time::Duration::ZERO;
    for i in 0..n {
        let loader = MemLoader::new()
            .with("gold/a.patch", patch("src", &format!("g{i}")))
            .with("tests/a.patch", patch("tests", &format!("t{i}")))
            .with("gold/b.patch", patch("lib", &format!("g{i}")))
            .with("tests/b.patch", patch("tests", &format!("u{i}")))
            .with("repos/a/x.py", "x = 1\n")
            .with("repos/b/y.py", "y = 1\n");
        let spec = format!(
            "task \"t{i}\" {{\n  kind bugfix\n  prompt \"Fix new_result_0_1 handling for task {i}.\"\n  verify joint\n  env python\n  repo a {{\n    source dir(\"repos/a\")\n    gold file(\"gold/a.patch\")\n    test {{ patch file(\"tests/a.patch\"); run \"pytest\"; parser pytest }}\n  }}\n  repo b {{\n    source dir(\"repos/b\")\n    uses a\n    gold file(\"gold/b.patch\")\n    test {{ patch file(\"tests/b.patch\"); run \"pytest\"; parser pytest }}\n  }}\n  relax a {{\n    drop \"tests/mod_0_t{i}.py::test_x\" {{ rule unrequested; because \"not asked\" }}\n  }}\n}}\n"
        );
        let t0 = Instant::now();
        let checked = check_spec("t.task", spec.as_bytes(), &loader);
        in_check += t0.elapsed();
        if checked.diagnostics.has_errors() {
            errors += 1;
        }
    }
    let el = start.elapsed();
    println!(
        "checked {n} specs (4 patches of ~180 lines each) in {in_check:?} ({:.1} µs/spec; {el:?} with generating inputs), {errors} with errors",
        in_check.as_micros() as f64 / n as f64
    );
    assert_eq!(errors, 0);
}

/// Checks every file of a folder (e.g. a fuzzing corpus) and fails on a panic. Ignored by
/// default: `CHECK_CORPUS=fuzz/corpus/parse_fmt cargo test --test check_speed -- --ignored`.
#[test]
#[ignore]
fn corpus_never_panics() {
    let Ok(dir) = std::env::var("CHECK_CORPUS") else {
        return;
    };
    let loader = MemLoader::new()
        .with("prompt.md", "Fix it.\n")
        .with("gold/a.patch", patch("src", "g"))
        .with("tests/a.patch", patch("tests", "t"));
    let mut n = 0;
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        if let Ok(bytes) = std::fs::read(e.path()) {
            let _ = check_spec("corpus.task", &bytes, &loader);
            n += 1;
        }
    }
    println!("checked {n} corpus files without a panic");
}
