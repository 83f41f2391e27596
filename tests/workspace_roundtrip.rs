//! `taskc workspace` then `taskc collect`, with the real binary: the exported layout, the
//! round trip from an agent's edits back to a prediction, and the refusal to write into a
//! folder that holds files.
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
        .join(format!("{name}.task"))
}

fn taskc(args: &[&str], out: &Path, cache: &Path) -> std::process::Output {
    Command::new(TASKC)
        .args(["workspace", "--backend", "local", "--cache"])
        .arg(cache)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn collect(dir: &Path) -> serde_json::Value {
    let out = Command::new(TASKC)
        .arg("collect")
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Temp paths vary: show them as `<OUT>`.
fn redact(text: &str, out: &Path) -> String {
    text.replace(&out.display().to_string(), "<OUT>")
}

#[test]
fn joint_export_layout_and_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ws");
    let spec = example("cookie-split");
    let o = taskc(&[spec.to_str().unwrap()], &out, &tmp.path().join("cache"));
    assert!(o.status.success(), "{o:?}");
    let mut entries: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    let manifest = std::fs::read_to_string(out.join(".taskc-workspace.json")).unwrap();
    let prompt = std::fs::read_to_string(out.join("PROMPT.md")).unwrap();
    let spec_prompt = std::fs::read_to_string(spec.with_file_name("prompt.md")).unwrap();
    assert_eq!(prompt.trim(), spec_prompt.trim());
    insta::assert_snapshot!(format!(
        "$ taskc workspace cookie-split.task --mode joint --out <OUT>\n{}\n$ ls -A <OUT>\n{}\n\n$ cat <OUT>/.taskc-workspace.json\n{manifest}",
        redact(&String::from_utf8_lossy(&o.stdout), &out),
        entries.join("\n"),
    ));
}

#[test]
fn edits_in_a_joint_workspace_collect_back_into_the_gold_prediction() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("ws");
    let spec = example("cookie-split");
    assert!(taskc(&[spec.to_str().unwrap()], &out, &cache)
        .status
        .success());
    for repo in ["proxy", "gateway"] {
        let gold = spec.with_file_name("gold").join(format!("{repo}.patch"));
        git(&out.join(repo), &["apply", gold.to_str().unwrap()]);
    }
    let pred = collect(&out);
    assert_eq!(pred["task"], "cookie-split");
    let patches = pred["patches"].as_object().unwrap();
    assert_eq!(patches.keys().collect::<Vec<_>>(), ["gateway", "proxy"]);

    // Each collected patch, applied to a fresh export, gives the gold tree.
    let fresh = tmp.path().join("fresh");
    assert!(taskc(&[spec.to_str().unwrap()], &fresh, &cache)
        .status
        .success());
    for (repo, patch) in patches {
        let file = tmp.path().join(format!("{repo}.diff"));
        std::fs::write(&file, patch.as_str().unwrap()).unwrap();
        git(&fresh.join(repo), &["apply", file.to_str().unwrap()]);
        git(&fresh.join(repo), &["add", "-A"]);
        git(&out.join(repo), &["add", "-A"]);
        assert_eq!(
            git(&fresh.join(repo), &["write-tree"]),
            git(&out.join(repo), &["write-tree"]),
            "{repo}: the collected patch does not reproduce the edit"
        );
    }
}

#[test]
fn independent_export_has_one_workspace_per_target_each_collectable() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ws");
    let spec = example("context-docs");
    let o = taskc(
        &["--mode", "independent", spec.to_str().unwrap()],
        &out,
        &tmp.path().join("cache"),
    );
    assert!(o.status.success(), "{o:?}");
    let text = redact(&String::from_utf8_lossy(&o.stdout), &out);
    insta::assert_snapshot!(format!(
        "$ taskc workspace context-docs.task --mode independent --out <OUT>\n{text}"
    ));
    for line in text.lines() {
        let name = line.split('`').nth(1).unwrap();
        let dir = out.join(name);
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(".taskc-workspace.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["mode"], "independent");
        assert_eq!(manifest["workspace"], name);
        // An unedited workspace collects to an empty prediction of the same task.
        let pred = collect(&dir);
        assert_eq!(pred["task"], manifest["task"]);
        assert!(pred["patches"].as_object().unwrap().is_empty());
    }
}

#[test]
fn a_folder_with_files_is_refused_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ws");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let spec = example("cookie-split");
    let o = taskc(&[spec.to_str().unwrap()], &out, &tmp.path().join("cache"));
    assert_eq!(o.status.code(), Some(2));
    let entries: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    let stderr = redact(&String::from_utf8_lossy(&o.stderr), &out);
    let stderr = stderr.replace(&spec.display().to_string(), "cookie-split.task");
    insta::assert_snapshot!(stderr);
}

/// What `setup` does to the trees in the task image (here: a `.cargo/config.toml` wiring
/// `gateway` to `proxy` by path) is said in the exported workspace: `SETUP.md` and the
/// manifest's `setup`. Before, the workspace had no trace of it, and an agent building
/// outside the image built against another version of the dependency.
#[test]
fn setup_commands_are_in_the_exported_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let ex = tmp.path().join("cookie-split");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/cookie-split"),
        &ex,
    );
    let spec = ex.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec).unwrap();
    let wire = r#"mkdir -p .cargo && echo '[patch.crates-io]' > .cargo/config.toml && echo 'proxy = { path = \"/work/proxy\" }' >> .cargo/config.toml"#;
    let text = text.replacen(
        "    source dir(\"repos/gateway\")\n",
        &format!("    source dir(\"repos/gateway\")\n    setup \"{wire}\"\n"),
        1,
    );
    assert!(
        text.contains("setup \""),
        "the spec has a gateway repo block"
    );
    std::fs::write(&spec, text).unwrap();
    let out = tmp.path().join("ws");
    let o = taskc(&[spec.to_str().unwrap()], &out, &tmp.path().join("cache"));
    assert!(o.status.success(), "{o:?}");
    let setup = std::fs::read_to_string(out.join("SETUP.md")).unwrap();
    assert!(
        setup.contains("## gateway (`/work/gateway` in the image)"),
        "{setup}"
    );
    assert!(setup.contains("[patch.crates-io]"), "{setup}");
    assert!(setup.contains("is `../<other>`"), "{setup}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(".taskc-workspace.json")).unwrap())
            .unwrap();
    assert!(
        manifest["setup"]["gateway"][0]
            .as_str()
            .unwrap()
            .contains("[patch.crates-io]"),
        "{manifest}"
    );
    // The workspace still collects (SETUP.md is outside every repository).
    assert_eq!(collect(&out)["patches"], serde_json::json!({}));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}
