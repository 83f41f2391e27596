//! `taskc gc` on the local backend, with the real binary and a temporary cache filled by a
//! real `taskc verify` and `taskc score`: `--dry-run` removes nothing, `--keep SPEC` keeps
//! that spec's image folders, verification results and scoring results (a second verify
//! runs nothing), and without `--keep` only the base image folder survives.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

fn spec() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split/cookie-split.task")
}

fn taskc(args: &[&str], cache: &Path) -> Output {
    let out = Command::new(TASKC)
        .args(args)
        .args(["--backend", "local", "--cache"])
        .arg(cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "taskc {args:?}: {out:?}");
    out
}

/// The output with the cache path and the (process-dependent) session folders redacted.
fn redact(out: &Output, cache: &Path) -> String {
    let text =
        String::from_utf8_lossy(&out.stdout).replace(&cache.display().to_string(), "<CACHE>");
    text.lines()
        .map(|l| match l.split_once("<CACHE>/local/runs/s") {
            Some((head, rest)) if !rest.starts_with("99999999") => {
                format!("{head}<CACHE>/local/runs/<SESSION OF THE VERIFY OR THE SCORE>")
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn count(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn gc_keeps_what_a_kept_spec_needs_and_dry_run_removes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path();
    let spec = spec();
    let spec = spec.to_str().unwrap();
    taskc(&["verify", "--no-lock", spec], cache);
    let report = tmp.path().join("report");
    let report = report.to_str().unwrap();
    taskc(
        &["score", "--predictions", "gold", "--out", report, spec],
        cache,
    );

    // Stale objects: an image folder no spec needs, a run folder of a dead session, a stray
    // result; and the base image folder, which gc never removes.
    let images = cache.join("local/images");
    let results = cache.join("results/local");
    std::fs::create_dir_all(images.join("taskc_task_img-0000000000000000-000000000000")).unwrap();
    std::fs::create_dir_all(images.join("taskc_base_bookworm-000000000000")).unwrap();
    std::fs::create_dir_all(cache.join("local/runs/s99999999-dead-000000000000/run-x")).unwrap();
    std::fs::write(results.join("run-0000000000000000.0.json"), "{}").unwrap();
    let (n_images, n_results) = (count(&images), count(&results));
    let scored = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains("-pred-")
            })
            .count()
    };
    let n_scored = scored(&results);
    assert!(n_scored > 0, "scoring stored its results");

    let dry = taskc(&["gc", "--dry-run", "--keep", spec], cache);
    assert_eq!((count(&images), count(&results)), (n_images, n_results));
    assert!(cache
        .join("local/runs/s99999999-dead-000000000000")
        .exists());
    insta::assert_snapshot!(format!(
        "$ taskc gc --dry-run --keep cookie-split.task\n{}",
        redact(&dry, cache)
    ));

    taskc(&["gc", "--keep", spec], cache);
    assert_eq!(count(&images), n_images - 1);
    // Regression: `--keep SPEC` kept the verification results but removed the scoring ones.
    assert_eq!(
        scored(&results),
        n_scored,
        "the kept spec's scoring results stay"
    );
    assert_eq!(count(&results), n_results - 1);
    assert_eq!(count(&cache.join("local/runs")), 0);
    // What was kept is what verify needs: nothing runs again.
    let again = taskc(&["verify", "--no-lock", spec], cache);
    let again = String::from_utf8_lossy(&again.stdout);
    assert!(again.contains(" 0 executed"), "{again}");

    let all = taskc(&["gc"], cache);
    // Without `--keep` nothing is looked for: no error about specs not found.
    let stderr = String::from_utf8_lossy(&all.stderr);
    assert!(!stderr.contains("error"), "{stderr}");
    let all = String::from_utf8_lossy(&all.stdout);
    assert!(all.lines().last().unwrap().starts_with("removed "), "{all}");
    let left: Vec<String> = std::fs::read_dir(&images)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["taskc_base_bookworm-000000000000"]);
    assert_eq!(count(&results), 0);
}
