//! `verify`, `score`, `plan`, `diff`, `workspace` and `gc --keep` accept folders like
//! `check`: a folder stands for the specs under it (`plan`, `diff` and `workspace`, which
//! take one spec, take a folder holding exactly one).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");

fn example(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

#[test]
fn plan_takes_a_folder_with_one_spec_and_names_the_specs_of_a_fuller_one() {
    let folder = Command::new(TASKC)
        .arg("plan")
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    let file = Command::new(TASKC)
        .arg("plan")
        .arg(example("cookie-split/cookie-split.task"))
        .output()
        .unwrap();
    assert_eq!(folder.status.code(), Some(0));
    assert_eq!(folder.stdout, file.stdout);
    let many = Command::new(TASKC)
        .arg("plan")
        .arg(example(""))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&many.stderr);
    assert_eq!(many.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("specs (") && stderr.contains("name one of them"),
        "{stderr}"
    );
}

#[test]
fn diff_and_gc_keep_take_folders() {
    // diff: a folder holding one spec is that spec; the same spec twice differs in nothing.
    let same = Command::new(TASKC)
        .arg("diff")
        .arg(example("cookie-split"))
        .arg(example("cookie-split/cookie-split.task"))
        .output()
        .unwrap();
    assert_eq!(same.status.code(), Some(0), "{same:?}");
    let many = Command::new(TASKC)
        .arg("diff")
        .arg(example(""))
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    assert_eq!(many.status.code(), Some(2), "{many:?}");
    // gc --keep FOLDER keeps every spec below it: the stored results of a verified example
    // under the folder stay.
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let verify = Command::new(TASKC)
        .args(["verify", "--no-lock", "--backend", "local", "--cache"])
        .arg(&cache)
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{verify:?}");
    let gc = Command::new(TASKC)
        .args(["gc", "--backend", "local", "--dry-run", "--cache"])
        .arg(&cache)
        .arg("--keep")
        .arg(example(""))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&gc.stdout);
    assert_eq!(gc.status.code(), Some(0), "{gc:?}");
    assert!(!text.contains("would remove result"), "{text}");
    let missing = Command::new(TASKC)
        .args(["gc", "--backend", "local", "--dry-run", "--cache"])
        .arg(&cache)
        .arg("--keep")
        .arg(tmp.path().join("no-such-folder"))
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
}

#[test]
fn verify_takes_a_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(TASKC)
        .args(["verify", "--no-lock", "--backend", "local", "--cache"])
        .arg(tmp.path())
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("verify ") && stdout.contains("sound"),
        "{stdout}"
    );
    // `--format json`: stdout is one object per spec per line, with spec, task and time.
    let json = Command::new(TASKC)
        .args([
            "verify",
            "--no-lock",
            "--format",
            "json",
            "--backend",
            "local",
            "--cache",
        ])
        .arg(tmp.path())
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&json.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert!(v["spec"].as_str().unwrap().ends_with("cookie-split.task"));
    assert_eq!(v["task"], "cookie-split");
    let time = v["time"].as_str().unwrap();
    assert!(
        time.len() == 20 && time.ends_with('Z') && time.as_bytes()[10] == b'T',
        "{time}"
    );
    assert_eq!(v["sound"], true);
    let none = Command::new(TASKC)
        .args([
            "score",
            "--predictions",
            "gold",
            "--backend",
            "local",
            "--cache",
        ])
        .arg(tmp.path())
        .arg(tmp.path().join("no-such-folder"))
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(2));
}

#[test]
fn score_json_is_one_object_per_spec_and_mode_and_nothing_else_on_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(TASKC)
        .args([
            "score",
            "--predictions",
            "gold",
            "--mode",
            "joint,independent",
            "--format",
            "json",
            "--backend",
            "local",
            "--out",
        ])
        .arg(tmp.path().join("report"))
        .arg("--cache")
        .arg(tmp.path().join("cache"))
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "one line per mode: {stdout}");
    let mut modes = Vec::new();
    for line in lines {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["spec"].as_str().unwrap().ends_with("cookie-split.task"));
        assert_eq!(v["task"], "cookie-split");
        assert!(v["time"].as_str().unwrap().ends_with('Z'));
        let grades = v["grades"].as_array().unwrap();
        assert_eq!(grades.len(), 1, "{line}");
        assert_eq!(grades[0]["status"], "solved", "{line}");
        modes.push(v["mode"].as_str().unwrap().to_string());
    }
    modes.sort();
    assert_eq!(modes, ["independent", "joint"]);
    // The reports are still written.
    assert!(tmp.path().join("report/report.json").exists());
}

#[test]
fn a_relative_cache_folder_is_the_one_below_the_working_directory() {
    // `--cache cache` names `./cache`: runs that change their working directory must still
    // find the session's clones and results there (every run failed "a preparation step
    // failed" when the path stayed relative).
    let tmp = tempfile::tempdir().unwrap();
    let verify = Command::new(TASKC)
        .current_dir(tmp.path())
        .args([
            "verify",
            "--no-lock",
            "--backend",
            "local",
            "--cache",
            "cache",
        ])
        .arg(example("cookie-split"))
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{verify:?}");
    assert!(tmp.path().join("cache").is_dir());
    let gc = Command::new(TASKC)
        .current_dir(tmp.path())
        .args(["gc", "--backend", "local", "--dry-run", "--cache", "cache"])
        .output()
        .unwrap();
    assert_eq!(gc.status.code(), Some(0), "{gc:?}");
}
