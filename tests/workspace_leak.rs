//! The no-leak guarantee, end to end with the real binary: for every example, the joint and
//! independent workspaces `taskc workspace` exports — and, on Docker, the task image's whole
//! filesystem — contain no distinctive added line of any gold or hidden-test patch, in any
//! file or any git object, and every exported repository has exactly one commit.
//!
//! The Docker part runs against the real engine and fails loudly if it does not answer,
//! unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use taskc_compiler::check::check_spec;
use taskc_compiler::lower::{lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::patch::parse_patch;
use taskc_compiler::plan::WorkspaceMode;
use taskc_runtime::fs_loader::FsLoader;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");
/// Added lines shorter than this are too generic to prove anything.
const MIN_NEEDLE: usize = 20;

fn examples() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut specs = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        for f in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "task") {
                specs.push(f.path());
            }
        }
    }
    specs.sort();
    assert!(specs.len() >= 5, "examples not found in {}", root.display());
    specs
}

fn load(spec: &Path) -> Task {
    let bytes = std::fs::read(spec).unwrap();
    let checked = check_spec(
        &spec.display().to_string(),
        &bytes,
        &FsLoader::new(spec.parent().unwrap()),
    );
    checked.task.expect("examples check")
}

/// Every added line of every gold and hidden-test patch, parsed from the patch texts.
fn added_lines(task: &Task) -> Vec<String> {
    let mut lines = Vec::new();
    for repo in &task.repos {
        let texts = repo
            .gold
            .iter()
            .map(|g| &g.text)
            .chain(repo.test.iter().map(|t| &t.patch.text));
        for text in texts {
            let patch = parse_patch(text).expect("example patches parse");
            for file in &patch.files {
                lines.extend(file.added_lines().map(|l| l.text.trim().to_string()));
            }
        }
    }
    lines
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn export(spec: &Path, mode: &str, out: &Path, cache: &Path, extra: &[&str]) {
    run(Command::new(TASKC)
        .args(["workspace", "--backend", "local", "--mode", mode, "--out"])
        .arg(out)
        .arg("--cache")
        .arg(cache)
        .args(extra)
        .arg(spec));
}

/// Files under `dir`, recursively (`.git` included).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let ty = e.file_type().unwrap();
        if ty.is_dir() {
            files(&e.path(), out);
        } else if ty.is_file() {
            out.push(e.path());
        }
    }
}

/// Git repositories exported under `dir` (folders holding `.git`).
fn repos(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().join(".git").is_dir() {
            out.push(e.path());
        } else if e.file_type().unwrap().is_dir() && e.file_name() != ".git" {
            repos(&e.path(), out);
        }
    }
}

/// The text of the work trees (not `.git`) of the joint export: the base content.
fn base_text(dir: &Path) -> String {
    let mut all = Vec::new();
    files(dir, &mut all);
    all.iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == ".git"))
        .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every byte an agent could read in `dir`: raw files (including compressed git objects)
/// and every git object decompressed.
fn haystacks(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut all = Vec::new();
    files(dir, &mut all);
    for p in all {
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        out.push((p.display().to_string(), text));
    }
    let mut rs = Vec::new();
    repos(dir, &mut rs);
    for r in rs {
        let objects = run(Command::new("git").arg("-C").arg(&r).args([
            "cat-file",
            "--batch-all-objects",
            "--batch",
        ]));
        out.push((
            format!("git objects of {}", r.display()),
            String::from_utf8_lossy(&objects).into_owned(),
        ));
    }
    out
}

fn assert_one_commit_each(dir: &Path) -> usize {
    let mut rs = Vec::new();
    repos(dir, &mut rs);
    for r in &rs {
        let log = run(Command::new("git").arg("-C").arg(r).args([
            "log",
            "--all",
            "--reflog",
            "--format=%H",
        ]));
        let commits = String::from_utf8_lossy(&log).lines().count();
        assert_eq!(commits, 1, "{} has {commits} commits", r.display());
    }
    rs.len()
}

fn docker_skipped() -> bool {
    std::env::var("TASKC_SKIP_DOCKER").is_ok_and(|v| v == "1")
}

#[test]
fn no_gold_or_hidden_test_line_reaches_an_agent_workspace() {
    let cache = tempfile::tempdir().unwrap();
    let mut checked_needles = 0;
    let mut checked_repos = 0;
    for spec in examples() {
        let task = load(&spec);
        let tmp = tempfile::tempdir().unwrap();
        let joint = tmp.path().join("joint");
        let independent = tmp.path().join("independent");
        export(&spec, "joint", &joint, cache.path(), &[]);
        export(&spec, "independent", &independent, cache.path(), &[]);

        let base = base_text(&joint);
        let needles: Vec<String> = added_lines(&task)
            .into_iter()
            .filter(|l| l.len() > MIN_NEEDLE && !base.contains(l.as_str()))
            .collect();
        assert!(
            !needles.is_empty(),
            "{}: no distinctive added line to look for",
            spec.display()
        );
        checked_needles += needles.len();

        for dir in [&joint, &independent] {
            checked_repos += assert_one_commit_each(dir);
            for (name, text) in haystacks(dir) {
                for n in &needles {
                    assert!(
                        !text.contains(n.as_str()),
                        "{}: `{n}` leaked into {name}",
                        spec.display()
                    );
                }
            }
        }
    }
    eprintln!("searched {checked_needles} needles across {checked_repos} exported repositories");
}

#[test]
fn no_gold_or_hidden_test_line_reaches_the_task_image() {
    if docker_skipped() {
        eprintln!("TASKC_SKIP_DOCKER=1: the image part is skipped");
        return;
    }
    let docker = Command::new("docker").args(["version"]).output();
    assert!(
        docker.is_ok_and(|o| o.status.success()),
        "the Docker Engine does not answer; start it or set TASKC_SKIP_DOCKER=1"
    );
    let cache = tempfile::tempdir().unwrap();
    // The cache's images (environment, task) go however the test ends.
    let _images = common::CacheImages::new(cache.path(), "docker");
    for spec in examples() {
        let task = load(&spec);
        let tmp = tempfile::tempdir().unwrap();
        let joint = tmp.path().join("joint");
        let tag = format!("taskc-leak-test/{}:{}", task.id, std::process::id());
        // The test's own name for the task image, untagged however this iteration ends.
        let own_tag = common::DockerGuard::new();
        own_tag.image(&tag);
        run(Command::new(TASKC)
            .args([
                "workspace",
                "--backend",
                "docker",
                "--mode",
                "joint",
                "--out",
            ])
            .arg(&joint)
            .arg("--cache")
            .arg(cache.path())
            .args(["--image", &tag])
            .arg(&spec));
        let base = base_text(&joint);
        let candidates: Vec<String> = added_lines(&task)
            .into_iter()
            .filter(|l| l.len() > MIN_NEEDLE && !base.contains(l.as_str()))
            .collect();
        // Lines the environment image (toolchain only, built from the recipe) already holds
        // are not distinctive: e.g. `for key, value in headers.items():` in the stdlib.
        // Its id folds in the base image's content id, as `taskc workspace` resolves it.
        let named = lower_workspace(&task, &LowerOptions::default(), WorkspaceMode::Joint).unwrap();
        let base_id = Command::new("docker")
            .args(["image", "inspect", "--format", "{{.Id}}"])
            .arg(&named.images.environment.base_image)
            .output()
            .unwrap();
        assert!(base_id.status.success(), "the base image is missing");
        let opts = LowerOptions {
            base_image_id: Some(String::from_utf8_lossy(&base_id.stdout).trim().to_string()),
            ..LowerOptions::default()
        };
        let plan = lower_workspace(&task, &opts, WorkspaceMode::Joint).unwrap();
        let env = format!("taskc/env:{}", plan.images.environment.id);
        let in_env = in_image(&env, &candidates).unwrap();
        let needles: Vec<String> = candidates
            .into_iter()
            .filter(|n| !in_env.contains(n))
            .collect();
        assert!(
            !needles.is_empty(),
            "{}: no distinctive line",
            spec.display()
        );
        eprintln!(
            "{}: {} needles ({} dropped: in the environment image)",
            task.id,
            needles.len(),
            in_env.len()
        );
        let found = search_image(&tag, &needles).unwrap();
        let mut leaks = Vec::new();
        for line in found.lines() {
            if let Some(rest) = line.strip_prefix("COMMITS ") {
                let (repo, n) = rest.rsplit_once(' ').unwrap();
                assert_eq!(
                    n,
                    "1",
                    "{}: image repo {repo} has {n} commits",
                    spec.display()
                );
            } else if let Some(rest) = line.strip_prefix("OBJECTS ") {
                let (repo, n) = rest.rsplit_once(' ').unwrap();
                if n != "0" {
                    leaks.push(format!("git objects of {repo}"));
                }
            } else if !line.trim().is_empty() {
                leaks.push(line.to_string());
            }
        }
        assert!(
            leaks.is_empty(),
            "{}: gold or hidden-test lines found in image {tag}: {leaks:?}",
            spec.display()
        );
    }
}

/// Which of `needles` occur anywhere in the filesystem of `image`.
fn in_image(image: &str, needles: &[String]) -> Result<Vec<String>, String> {
    const SCRIPT: &str = r#"
cat > /tmp/taskc-leak-needles
grep -rhoasF -f /tmp/taskc-leak-needles --exclude=taskc-leak-needles \
  --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev / | sort -u || true
"#;
    let out = docker_run(image, SCRIPT, needles)?;
    Ok(out.lines().map(str::to_string).collect())
}

/// Search the whole filesystem of a container of `image` (and every git object under
/// `/work`) for `needles`; prints matching files, `OBJECTS <repo> <matches>` and
/// `COMMITS <repo> <count>`.
fn search_image(image: &str, needles: &[String]) -> Result<String, String> {
    const SCRIPT: &str = r#"
set -u
cat > /tmp/taskc-leak-needles
grep -rlsF -f /tmp/taskc-leak-needles --exclude=taskc-leak-needles \
  --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev / || true
for r in /work/*/; do
  n=$(git -c safe.directory="*" -C "$r" cat-file --batch-all-objects --batch | grep -caF -f /tmp/taskc-leak-needles || true)
  echo "OBJECTS $r $n"
  echo "COMMITS $r $(git -c safe.directory="*" -C "$r" log --all --format=%H | wc -l)"
done
"#;
    docker_run(image, SCRIPT, needles)
}

/// `docker run --rm -i IMAGE bash -c SCRIPT` with `needles` on stdin; its stdout.
fn docker_run(image: &str, script: &str, needles: &[String]) -> Result<String, String> {
    let mut child = Command::new("docker")
        .args(["run", "--rm", "-i", "--network", "none", "--entrypoint", ""])
        .arg(image)
        .args(["bash", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        stdin
            .write_all(format!("{}\n", needles.join("\n")).as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "docker run {image} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The search is not vacuous: a gold line hidden only in a git object (committed, then the
/// work tree reset to base) is found, and the extra commit is counted.
#[test]
fn the_search_finds_a_planted_leak() {
    let cache = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let spec = examples()
        .into_iter()
        .find(|s| s.ends_with("cookie-split.task"))
        .unwrap();
    let task = load(&spec);
    let out = tmp.path().join("joint");
    export(&spec, "joint", &out, cache.path(), &[]);
    let base = base_text(&out);
    let needles: Vec<String> = added_lines(&task)
        .into_iter()
        .filter(|l| l.len() > MIN_NEEDLE && !base.contains(l.as_str()))
        .collect();
    let repo = out.join("proxy");
    let gold = spec.with_file_name("gold").join("proxy.patch");
    run(Command::new("git")
        .arg("-C")
        .arg(&repo)
        .arg("apply")
        .arg(&gold));
    run(Command::new("git").arg("-C").arg(&repo).args([
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qam",
        "leak",
    ]));
    run(Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["reset", "-q", "--hard", "HEAD~1"]));
    assert!(!base_text(&out).is_empty());
    let found: Vec<String> = haystacks(&out)
        .into_iter()
        .filter(|(_, text)| needles.iter().any(|n| text.contains(n.as_str())))
        .map(|(name, _)| name)
        .collect();
    assert!(
        found.iter().any(|n| n.starts_with("git objects of")),
        "the planted leak was not found: {found:?}"
    );
    let log = run(Command::new("git").arg("-C").arg(&repo).args([
        "log",
        "--all",
        "--reflog",
        "--format=%H",
    ]));
    assert_eq!(String::from_utf8_lossy(&log).lines().count(), 2);
}
