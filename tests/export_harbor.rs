//! `taskc export harbor` and `taskc collect --from harbor`, end to end with the real binary
//! and, on Docker, the real Harbor (installed by `scripts/harbor/setup.sh`): Harbor's oracle
//! agent scores 1 on every sound example and its no-op agent 0; the environment images
//! Harbor built hold no added line of any gold or hidden-test patch; `collect --from
//! harbor` on the oracle job, scored by `taskc score`, solves every task too; and the
//! project's adversarial attacks, run through Harbor as an agent would (the oracle agent's
//! `solve.sh` replaced by the attack), get reward 0 from the exported grader (`taskc` itself).
//!
//! The Harbor test FAILS when the engine or Harbor is missing, unless `TASKC_SKIP_DOCKER=1`
//! or `TASKC_SKIP_HARBOR=1`.

// Test code: unwrap/expect/panic are how a test fails (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::root;
use taskc_compiler::patch::parse_patch;

const TASKC: &str = env!("CARGO_BIN_EXE_taskc");
const SOUND: &[&str] = &["config-merge", "context-docs", "cookie-split", "sdk-retry"];
/// Added lines shorter than this are too generic to prove anything.
const MIN_NEEDLE: usize = 20;
/// Harbor folder (and so image `hb__…`) prefix: this test's Docker objects.
const PREFIX: &str = "harbor-test-";
/// The adversarial table's own prefix: its guard must not remove the containers of a test
/// running beside it (tests of one binary run in parallel).
const ADV_PREFIX: &str = "harbor-adv-";

fn spec(e: &str) -> String {
    format!("examples/{e}/{e}.task")
}

fn taskc(args: &[&str]) -> std::process::Output {
    Command::new(TASKC)
        .args(args)
        .current_dir(root())
        .output()
        .expect("the taskc binary runs")
}

fn export(out: &Path, extra: &[&str]) -> std::process::Output {
    let specs: Vec<String> = SOUND.iter().map(|e| spec(e)).collect();
    let mut args = vec!["export", "harbor", "--out", out.to_str().unwrap()];
    args.extend(specs.iter().map(String::as_str));
    args.extend(extra);
    taskc(&args)
}

/// Every file under `dir`: relative path → (mode, bytes).
fn snapshot(dir: &Path, rel: &str, out: &mut Vec<(String, u32, Vec<u8>)>) {
    use std::os::unix::fs::PermissionsExt;
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .unwrap()
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = format!("{rel}{}", e.file_name().to_string_lossy());
        let md = std::fs::symlink_metadata(e.path()).unwrap();
        if md.is_dir() {
            snapshot(dir, &format!("{name}/"), out);
        } else {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            out.push((name, md.permissions().mode() & 0o777, bytes));
        }
    }
}

/// The text of the repositories at base, as exported in `task`'s `environment/repos/`.
fn base_text(task: &Path) -> String {
    let mut files = Vec::new();
    snapshot(&task.join("environment/repos"), "", &mut files);
    files
        .iter()
        .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The distinctive added lines of the gold (`gold`) or hidden-test (`tests`) patches of
/// `example`: long enough, and not already somewhere at base.
fn needles(example: &str, subs: &[&str], base: &str) -> Vec<String> {
    let dir = root().join("examples").join(example);
    let mut out = Vec::new();
    for sub in subs {
        for f in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            let text = std::fs::read_to_string(f.path()).unwrap();
            let patch = parse_patch(&text).expect("example patches parse");
            for file in &patch.files {
                out.extend(
                    file.added_lines()
                        .map(|l| l.text.trim().to_string())
                        .filter(|l| l.len() >= MIN_NEEDLE),
                );
            }
        }
    }
    out.retain(|l| !base.contains(l.as_str()));
    out.sort();
    out.dedup();
    out
}

#[test]
fn export_is_deterministic_leaks_nothing_into_environment_and_refuses_clobbering() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for out in [&a, &b] {
        let run = export(out, &[]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    snapshot(&a, "", &mut sa);
    snapshot(&b, "", &mut sb);
    assert!(sa.len() > 40, "too few files exported: {}", sa.len());
    assert!(sa == sb, "two exports of the same specs differ");
    for e in SOUND {
        for f in [
            "task.toml",
            "instruction.md",
            "environment/Dockerfile",
            "tests/test.sh",
            "tests/taskc",
            "tests/grading.json",
            "solution/solve.sh",
        ] {
            assert!(a.join(e).join(f).is_file(), "{e}/{f} missing");
        }
        // No gold or hidden-test line anywhere in environment/ (the agent's image context).
        let base = base_text(&a.join(e));
        let hidden = needles(e, &["gold", "tests"], &base);
        assert!(hidden.len() >= 3, "{e}: too few needles: {hidden:?}");
        for (path, _, bytes) in sa
            .iter()
            .filter(|(p, _, _)| p.starts_with(&format!("{e}/environment/")))
        {
            let text = String::from_utf8_lossy(bytes);
            for n in &hidden {
                assert!(
                    !text.contains(n.as_str()),
                    "{path} holds the hidden line `{n}`"
                );
            }
        }
        // ... while solution/ does hold the gold lines (the needles are real).
        let solution: String = sa
            .iter()
            .filter(|(p, _, _)| p.starts_with(&format!("{e}/solution/")))
            .map(|(_, _, b)| String::from_utf8_lossy(b).into_owned())
            .collect();
        let gold = needles(e, &["gold"], &base);
        assert!(
            !gold.is_empty() && gold.iter().all(|n| solution.contains(n.as_str())),
            "{e}: a gold line is not in solution/"
        );
    }
    // An existing task folder is never replaced without --force.
    let again = export(&a, &[]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("error[E1202]"));
    assert!(export(&a, &["--force"]).status.success());
    // A spec without a lock has no oracle to export.
    let unsound = taskc(&[
        "export",
        "harbor",
        "--out",
        tmp.path().join("c").to_str().unwrap(),
        &spec("unsound-partial"),
    ]);
    assert_eq!(unsound.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unsound.stderr).contains("error[E1200]"),
        "{}",
        String::from_utf8_lossy(&unsound.stderr)
    );
    assert!(!tmp.path().join("c").exists());
    // Independent: one folder per target, naming the repository to change.
    let ind = tmp.path().join("ind");
    let run = taskc(&[
        "export",
        "harbor",
        "--mode",
        "independent",
        "--out",
        ind.to_str().unwrap(),
        &spec("cookie-split"),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let prompt = std::fs::read_to_string(ind.join("cookie-split__gateway/instruction.md")).unwrap();
    assert!(
        prompt.contains("change only the repository `gateway`"),
        "{prompt}"
    );
    assert!(ind.join("cookie-split__proxy/task.toml").is_file());
}

/// Removes what the Harbor runs left: the images (`<trial>__env-main`, kept by
/// `--no-delete`) and containers whose names start with its prefix ([`PREFIX`] or
/// [`ADV_PREFIX`]: one per test, so one test's guard never removes another's trials).
struct HarborGuard(&'static str);

impl Drop for HarborGuard {
    fn drop(&mut self) {
        for (what, list, rm) in [
            (
                "containers",
                vec!["ps", "-a", "--format", "{{.Names}}"],
                vec!["rm", "-f"],
            ),
            (
                "images",
                vec!["images", "--format", "{{.Repository}}:{{.Tag}}"],
                vec!["rmi", "-f"],
            ),
        ] {
            let Ok(out) = Command::new("docker").args(&list).output() else {
                eprintln!("cannot list {what}");
                continue;
            };
            for name in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if name.starts_with(self.0) {
                    let _ = Command::new("docker").args(&rm).arg(name).output();
                }
            }
        }
    }
}

fn harbor() -> Option<PathBuf> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1")
        || std::env::var("TASKC_SKIP_HARBOR").as_deref() == Ok("1")
    {
        eprintln!("skipped: TASKC_SKIP_DOCKER or TASKC_SKIP_HARBOR is 1");
        return None;
    }
    let home = std::env::var("TASKC_HARBOR_HOME").unwrap_or_else(|_| "/opt/taskc-harbor".into());
    let bin = PathBuf::from(home).join("bin/harbor");
    assert!(
        bin.is_file(),
        "{} missing: run scripts/setup.sh (or TASKC_SKIP_HARBOR=1)",
        bin.display()
    );
    let docker = Command::new("docker").arg("info").output();
    assert!(
        docker.is_ok_and(|o| o.status.success()),
        "the Docker Engine does not answer"
    );
    Some(bin)
}

/// Run `harbor run` with `agent` over `tasks`; returns each task folder's reward.json.
fn harbor_run(
    bin: &Path,
    tasks: &Path,
    jobs: &Path,
    agent: &str,
    concurrency: &str,
) -> Vec<(String, serde_json::Value)> {
    let out = Command::new(bin)
        .args(["run", "-p"])
        .arg(tasks)
        .args(["-a", agent, "-o"])
        .arg(jobs)
        .args([
            "--job-name",
            agent,
            "-y",
            "-q",
            "-n",
            concurrency,
            "--no-delete",
        ])
        .output()
        .expect("harbor runs");
    assert!(
        out.status.success(),
        "harbor run -a {agent} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rewards = Vec::new();
    let mut trials: Vec<_> = std::fs::read_dir(jobs.join(agent))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    trials.sort();
    for t in trials {
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        // No reward.json (the verifier failed): `null`, which no caller takes for a reward.
        let reward = match std::fs::read_to_string(t.join("verifier/reward.json")) {
            Ok(text) => serde_json::from_str(&text).unwrap(),
            Err(e) => {
                eprintln!(
                    "{name}: no reward.json ({e}); trial log:\n{}",
                    std::fs::read_to_string(t.join("trial.log")).unwrap_or_default()
                );
                serde_json::Value::Null
            }
        };
        rewards.push((name, reward));
    }
    rewards
}

/// The environment image alone: `task`'s Dockerfile up to its first `COPY` (the recipe),
/// built as `tag` (from Harbor's build cache).
fn env_image(task: &Path, tag: &str) -> String {
    let df = std::fs::read_to_string(task.join("environment/Dockerfile")).unwrap();
    let head: Vec<&str> = df.lines().take_while(|l| !l.starts_with("COPY ")).collect();
    let ctx = tempfile::tempdir().unwrap();
    std::fs::write(ctx.path().join("Dockerfile"), head.join("\n") + "\n").unwrap();
    let built = Command::new("docker")
        .args(["build", "-q", "-t", tag])
        .arg(ctx.path())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "docker build {tag}: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    tag.to_string()
}

/// (file, needle) for every needle in a file of `image`'s filesystem: grep in a container
/// of it (no network), needles on stdin.
fn image_hits(image: &str, needles: &[String]) -> Vec<(String, String)> {
    const SCRIPT: &str = r#"
cat > /tmp/taskc-leak-needles
grep -rasoF -f /tmp/taskc-leak-needles --exclude=taskc-leak-needles \
  --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev / | sort -u || true
"#;
    let mut child = Command::new("docker")
        .args(["run", "--rm", "-i", "--network", "none", "--entrypoint", ""])
        .arg(image)
        .args(["bash", "-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(format!("{}\n", needles.join("\n")).as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "grep in {image} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(path, hit)| (path.to_string(), hit.to_string()))
        .collect()
}

#[test]
fn harbor_oracle_scores_1_nop_0_and_collected_patches_score_the_same() {
    let Some(bin) = harbor() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (out, tasks, jobs) = (
        tmp.path().join("out"),
        tmp.path().join("tasks"),
        tmp.path().join("jobs"),
    );
    let run = export(&out, &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::create_dir_all(&tasks).unwrap();
    for e in SOUND {
        std::fs::rename(out.join(e), tasks.join(format!("{PREFIX}{e}"))).unwrap();
    }
    let _guard = HarborGuard(PREFIX);

    let oracle = harbor_run(&bin, &tasks, &jobs, "oracle", "2");
    assert_eq!(oracle.len(), SOUND.len(), "{oracle:?}");
    for (trial, r) in &oracle {
        assert_eq!(r["reward"], 1, "oracle on {trial}: {r}");
    }
    let nop = harbor_run(&bin, &tasks, &jobs, "nop", "2");
    assert_eq!(nop.len(), SOUND.len(), "{nop:?}");
    for (trial, r) in &nop {
        assert_eq!(r["reward"], 0, "nop on {trial}: {r}");
    }
    // The images Harbor built for the agent hold no gold or hidden-test line. Lines the
    // toolchain already holds (the recipe's part of the Dockerfile, rebuilt from the
    // build cache) are not distinctive, as in tests/workspace_leak.rs.
    for (trial, _) in &oracle {
        let image = format!("{}__env-main", trial.to_lowercase());
        let e = SOUND
            .iter()
            .find(|e| trial.starts_with(&format!("{PREFIX}{e}__")))
            .unwrap();
        let task = tasks.join(format!("{PREFIX}{e}"));
        let base = base_text(&task);
        let candidates = needles(e, &["gold", "tests"], &base);
        assert!(
            candidates.len() >= 3,
            "{e}: too few needles: {candidates:?}"
        );
        let hits = image_hits(&image, &candidates);
        // A hit is a leak unless the toolchain alone holds that line too.
        let leaks: Vec<(String, String)> = if hits.is_empty() {
            hits
        } else {
            let env = env_image(&task, &format!("{PREFIX}env-{e}"));
            let hit_lines: Vec<String> = hits.iter().map(|(_, n)| n.clone()).collect();
            let in_env = image_hits(&env, &hit_lines);
            hits.into_iter()
                .filter(|(_, n)| !in_env.iter().any(|(_, h)| h == n))
                .collect()
        };
        assert!(
            leaks.is_empty(),
            "{e}: gold or hidden-test lines in {image}: {leaks:?}"
        );
    }
    // The oracle's recorded diffs, collected and scored by taskc: every task solved.
    let preds = tmp.path().join("preds.jsonl");
    let collected = taskc(&[
        "collect",
        "--from",
        "harbor",
        jobs.join("oracle").to_str().unwrap(),
        "-o",
        preds.to_str().unwrap(),
    ]);
    assert!(
        collected.status.success(),
        "{}",
        String::from_utf8_lossy(&collected.stderr)
    );
    let lines = std::fs::read_to_string(&preds).unwrap();
    assert_eq!(lines.lines().count(), SOUND.len(), "{lines}");
    let report = tmp.path().join("report");
    let mut args = vec!["score".to_string()];
    args.extend(SOUND.iter().map(|e| spec(e)));
    args.extend(
        [
            "--predictions",
            preds.to_str().unwrap(),
            "--backend",
            "docker",
            "--jobs",
            "2",
            "--color",
            "never",
            "--out",
            report.to_str().unwrap(),
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // taskc's own containers: removed by their session, also on panic.
    let taskc_guard = common::DockerGuard::new();
    let scored = taskc_guard.output(Command::new(TASKC).args(&args).current_dir(root()));
    assert_eq!(
        scored.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&scored.stderr)
    );
    let text = std::fs::read_to_string(report.join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let m = &report["summaries"][0]["metrics"];
    assert_eq!(
        (m["solved"].as_u64(), m["predictions"].as_u64()),
        (Some(4), Some(4)),
        "{m}"
    );
    // The nop job: every trial recorded empty diffs, so every task is unsolved.
    let nop_preds = tmp.path().join("nop.jsonl");
    let collected = taskc(&[
        "collect",
        "--from",
        "harbor",
        jobs.join("nop").to_str().unwrap(),
        "-o",
        nop_preds.to_str().unwrap(),
    ]);
    assert!(
        collected.status.success(),
        "{}",
        String::from_utf8_lossy(&collected.stderr)
    );
    for line in std::fs::read_to_string(&nop_preds).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["patches"], serde_json::json!({}), "{line}");
    }
}

#[test]
fn a_stale_lock_or_an_unreadable_job_is_an_error_with_its_code() {
    let tmp = tempfile::tempdir().unwrap();
    // A hidden-test command edited after verify: the lock no longer matches the spec.
    let task = tmp.path().join("cookie-split");
    common::copy_dir(&root().join("examples/cookie-split"), &task);
    let spec_file = task.join("cookie-split.task");
    let text = std::fs::read_to_string(&spec_file).unwrap();
    let edited = text.replacen("pytest -rA", "pytest -rA -q", 1);
    assert_ne!(text, edited, "the example's test command changed shape");
    std::fs::write(&spec_file, edited).unwrap();
    let out = tmp.path().join("out");
    let stale = taskc(&[
        "export",
        "harbor",
        "--out",
        out.to_str().unwrap(),
        spec_file.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&stale.stderr);
    assert_eq!(stale.status.code(), Some(2), "{err}");
    assert!(err.contains("error[E1201]"), "{err}");
    assert!(!out.exists());
    // A Harbor job folder that is not there.
    let missing = tmp.path().join("no-such-job");
    let job = taskc(&["collect", "--from", "harbor", missing.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&job.stderr);
    assert_ne!(job.status.code(), Some(0), "{err}");
    assert!(err.contains("E1205"), "{err}");
}

/// One attack tried through Harbor: what `solve.sh` does in the agent's container.
struct Attack {
    /// Where it comes from (a class folder of `tests/adversarial/`, with the model for a
    /// `predictions.jsonl` class), for messages.
    name: String,
    /// The exported task folder it is a copy of (`sdk-retry__sdk-go`, `cookie-split`, …).
    folder: &'static str,
    /// `(repo, patch text)`: `git apply`ed in `/work/<repo>`.
    patches: Vec<(String, String)>,
    /// Shell lines run after, in `/work`.
    shell: &'static str,
    /// A failure kind `taskc score` gives the same change, which `grade.json` must name.
    expect_failure: Option<&'static str>,
}

/// Library code registering a pytest plugin that rewrites every report to passed (round 2's
/// `library-plugin-makereport`, in cookie-split's packages): reward 1.0 through the former
/// Python grader, which had no canaries.
const LIBRARY_RIG: &str = r#"
for pkg in proxy/proxy gateway/gateway; do cat >> "$pkg/__init__.py" <<'PY'
import gc as _gc
import sys as _sys


class _Rig:
    def pytest_runtest_logreport(self, report):
        report.outcome = "passed"
        report.longrepr = None


def _install():
    if "_pytest" not in _sys.modules:
        return
    for o in _gc.get_objects():
        if type(o).__name__ == "Config" and hasattr(o, "pluginmanager"):
            if not o.pluginmanager.has_plugin("acme-rig"):
                o.pluginmanager.register(_Rig(), "acme-rig")


_install()
PY
done
"#;

const CONFTEST_ROOT: &str = r#"
for r in proxy gateway; do cat > "$r/conftest.py" <<'PY'
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
PY
done
"#;

/// The isolation classes of `tests/adversarial/` (`predictions.jsonl`, scored by
/// `tests/adversarial_isolation.rs`): the task folder each runs on, and the failure kind
/// `taskc score` gives every model of the class (none: `unsolved` is all it says).
/// `host/` is not here: its attacks are on the local backend's sandbox, which Harbor does
/// not use.
const ISOLATION: &[(&str, &str, Option<&str>)] = &[
    ("blobs", "cookie-split", None),
    ("cross-target", "cookie-split", None),
    ("crash", "mini-calc", None),
    // `taskc score` says `output-too-large` (tests/adversarial_isolation.rs); the mini task's
    // 20 s limit can come first on a loaded machine (measured at load 60: `timeout`).
    ("output", "mini-calc", None),
    ("timeout", "mini-calc", Some("timeout")),
];

/// The whole corpus: every class folder of `tests/adversarial/` with an `attack.toml` (the
/// classes `tests/score_adversarial.rs` scores, on sdk-retry: the attacked repository's
/// folder of the independent export, so the attack alone decides the reward), every model
/// of the isolation classes, and two attacks written here on cookie-split.
fn corpus() -> Vec<Attack> {
    let dir = root().join("tests/adversarial");
    let mut attacks = vec![
        Attack {
            name: "cookie library rig".into(),
            folder: "cookie-split",
            patches: vec![],
            shell: LIBRARY_RIG,
            expect_failure: Some("tampered"),
        },
        Attack {
            name: "cookie conftests at the roots".into(),
            folder: "cookie-split",
            patches: vec![],
            shell: CONFTEST_ROOT,
            expect_failure: None,
        },
    ];
    let mut classes: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("attack.toml").is_file())
        .collect();
    classes.sort();
    assert!(classes.len() >= 40, "too few classes: {classes:?}");
    for class in classes {
        let name = class.file_name().unwrap().to_string_lossy().into_owned();
        let meta: toml::Value =
            toml::from_str(&std::fs::read_to_string(class.join("attack.toml")).unwrap()).unwrap();
        assert_eq!(meta["task"].as_str(), Some("sdk-retry"), "{name}");
        let repo = meta["repo"].as_str().unwrap().to_string();
        let folder = match repo.as_str() {
            "sdk-python" => "sdk-retry__sdk-python",
            "sdk-node" => "sdk-retry__sdk-node",
            "sdk-go" => "sdk-retry__sdk-go",
            other => panic!("{name}: unknown repository {other}"),
        };
        let patch = std::fs::read_to_string(class.join(format!("{repo}.patch"))).unwrap();
        attacks.push(Attack {
            expect_failure: (meta["expect"].as_str() == Some("tampered")).then_some("tampered"),
            name,
            folder,
            patches: vec![(repo, patch)],
            shell: "",
        });
    }
    for (class, folder, failure) in ISOLATION {
        let text = std::fs::read_to_string(dir.join(class).join("predictions.jsonl")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let p: serde_json::Value = serde_json::from_str(line).unwrap();
            let patches = p["patches"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(repo, text)| (repo.clone(), text.as_str().unwrap().to_string()))
                .collect();
            attacks.push(Attack {
                name: format!("{class}/{}", p["model"].as_str().unwrap()),
                folder,
                patches,
                shell: "",
                expect_failure: *failure,
            });
        }
    }
    attacks
}

/// Every attack of [`corpus`] as its own Harbor task (the exported task with `solve.sh`
/// replaced), run by Harbor's oracle agent in one job with `TASKC_HARBOR_CONCURRENCY`
/// trials at a time (default 6): every reward is 0, and the grade the exported grader
/// wrote says why (`tampered` where `taskc score` says it).
#[test]
fn harbor_rewards_the_adversarial_corpus_0() {
    /// The attacks that fill the host's process table (or its memory) for as long as they run.
    fn is_process_hog(name: &str) -> bool {
        ["fork-bomb", "pid-holder", "neighbour-"]
            .iter()
            .any(|h| name.contains(h))
    }
    let Some(bin) = harbor() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (joint, independent, tasks, jobs) = (
        tmp.path().join("joint"),
        tmp.path().join("independent"),
        tmp.path().join("tasks"),
        tmp.path().join("jobs"),
    );
    let mini = "tests/adversarial/task/mini.task";
    for (out, mode, specs) in [
        (
            &joint,
            "joint",
            vec![spec("cookie-split"), mini.to_string()],
        ),
        (&independent, "independent", vec![spec("sdk-retry")]),
    ] {
        let mut args = vec!["export", "harbor", "--mode", mode, "--out"];
        args.push(out.to_str().unwrap());
        args.extend(specs.iter().map(String::as_str));
        let run = taskc(&args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    // Attacks that hold the host's processes run in a job of their own, after the others:
    // Harbor's trials share the test user's uid on one kernel, and so its per-uid process
    // limit, so a fork bomb in one trial starves the honest runs of the trials beside it
    // (docs/security.md, "Harbor: trials beside a process hog").
    let hungry_tasks = tmp.path().join("tasks-hungry");
    let hungry_jobs = tmp.path().join("jobs-hungry");
    std::fs::create_dir_all(&tasks).unwrap();
    std::fs::create_dir_all(&hungry_tasks).unwrap();
    // `TASKC_HARBOR_ATTACKS=a,b`: only the attacks whose name holds one of these (a rerun).
    let only = std::env::var("TASKC_HARBOR_ATTACKS").unwrap_or_default();
    let attacks: Vec<Attack> = corpus()
        .into_iter()
        .filter(|a| only.is_empty() || only.split(',').any(|o| a.name.contains(o)))
        .collect();
    for (i, a) in attacks.iter().enumerate() {
        // Harbor cuts a trial's name at 32 characters: the index keeps them apart.
        let dir = if is_process_hog(&a.name) {
            &hungry_tasks
        } else {
            &tasks
        }
        .join(format!("{ADV_PREFIX}{i:02}"));
        let from = [&joint, &independent]
            .iter()
            .map(|o| o.join(a.folder))
            .find(|p| p.is_dir())
            .unwrap_or_else(|| panic!("{}: no exported folder {}", a.name, a.folder));
        let status = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success());
        let mut sh = String::from(
            "#!/bin/bash\nset -euo pipefail\nhere=$(cd \"$(dirname \"$0\")\" && pwd)\ncd /work\n",
        );
        for (repo, patch) in &a.patches {
            std::fs::write(dir.join(format!("solution/attack-{repo}.patch")), patch).unwrap();
            sh.push_str(&format!(
                "git -C /work/{repo} apply \"$here/attack-{repo}.patch\"\n"
            ));
        }
        sh.push_str(a.shell);
        std::fs::write(dir.join("solution/solve.sh"), sh).unwrap();
    }
    let _guard = HarborGuard(ADV_PREFIX);
    let concurrency = std::env::var("TASKC_HARBOR_CONCURRENCY").unwrap_or_else(|_| "6".to_string());
    let start = std::time::Instant::now();
    let mut rewards = Vec::new();
    for (tasks, jobs) in [(&tasks, &jobs), (&hungry_tasks, &hungry_jobs)] {
        if std::fs::read_dir(tasks).unwrap().next().is_some() {
            rewards.extend(
                harbor_run(&bin, tasks, jobs, "oracle", &concurrency)
                    .into_iter()
                    .map(|(trial, r)| (trial, r, jobs.clone())),
            );
        }
    }
    eprintln!(
        "{} attacks through Harbor (-n {concurrency}) in {:.0} s",
        attacks.len(),
        start.elapsed().as_secs_f64()
    );
    assert_eq!(rewards.len(), attacks.len(), "{rewards:?}");
    let mut wrong = Vec::new();
    for (trial, r, jobs) in &rewards {
        // Harbor names a trial `<task folder>__<random>`.
        let task = trial.split("__").next().unwrap();
        let i: usize = task.strip_prefix(ADV_PREFIX).unwrap().parse().unwrap();
        let a = &attacks[i];
        let verifier = jobs.join("oracle").join(trial).join("verifier");
        let grade = std::fs::read_to_string(verifier.join("grade.json")).unwrap_or_default();
        let failures = serde_json::from_str::<serde_json::Value>(&grade)
            .map(|g| g["failures"].to_string())
            .unwrap_or_default();
        eprintln!("{:<40} reward {} {failures}", a.name, r["reward"]);
        if r.is_null() {
            wrong.push(format!(
                "{} ({trial}): no reward.json: the grader failed",
                a.name
            ));
            continue;
        }
        if r["reward"] != 0 {
            wrong.push(format!("{}: REWARDED {r}; grade: {grade}", a.name));
            continue;
        }
        let Ok(g) = serde_json::from_str::<serde_json::Value>(&grade) else {
            wrong.push(format!("{} ({trial}): no grade.json", a.name));
            continue;
        };
        if g["status"] != "unsolved" {
            wrong.push(format!("{}: {} instead of unsolved", a.name, g["status"]));
        }
        if let Some(f) = a.expect_failure {
            if !g["failures"].to_string().contains(f) && !g.to_string().contains(f) {
                wrong.push(format!("{}: expected `{f}`: {grade}", a.name));
            }
        }
        if a.name == "blobs/read-blobs" {
            // The hidden tests and the grader's files are out of the test user's reach.
            let logs: String = ["proxy", "gateway"]
                .iter()
                .map(|t| {
                    std::fs::read_to_string(verifier.join(format!("{t}.log"))).unwrap_or_default()
                })
                .collect();
            if !logs.contains("read-blobs ran in /work/proxy, 0 files read")
                || logs.lines().any(|l| l.starts_with("LEAKED:/"))
            {
                wrong.push(format!(
                    "{}: read something, or did not run:\n{logs}",
                    a.name
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Library code of a hostile trial (cookie-split's `proxy` package, no fix): once, in the
/// first test run that imports it, it forks sleepers as the test user until the kernel
/// refuses (the grader's `prlimit --nproc`, counted per uid) and holds them for
/// [`HOG_HOLD_SECS`], then fails the import with its uid and how many it held (what the
/// run's log shows). The reaper ends them.
const PROCESS_HOG: &str = r#"cat >> proxy/proxy/__init__.py <<'PY'
import os as _os
import sys as _sys
import time as _time

if "_pytest" in _sys.modules and not _os.path.exists("/tmp/taskc-hog-done"):
    open("/tmp/taskc-hog-done", "w").close()
    _held = 0
    while _held < 20000:
        try:
            _pid = _os.fork()
        except OSError:
            break
        if _pid == 0:
            try:
                _os.execv("/bin/sleep", ["sleep", "600"])
            finally:
                _os._exit(0)
        _held += 1
    _time.sleep(HOLD)
    # pytest captures what an import prints: an import error is what its log shows.
    raise RuntimeError("taskc-hog: uid %d held %d processes" % (_os.getuid(), _held))
PY
sed -i "s/HOLD)/$HOLD)/" proxy/proxy/__init__.py
"#;
/// An honest change beside the gold patches: `proxy` starts (and joins) a thread when
/// imported. A thread counts against the test user's process limit as a process does.
const HONEST_THREAD: &str = r#"cat >> /work/proxy/proxy/__init__.py <<'PY'
import threading as _threading

_warmup = _threading.Thread(target=lambda: None)
_warmup.start()
_warmup.join()
PY
"#;
/// How long the hostile trial holds its processes: the honest trial's grading (its agent
/// waits [`HONEST_DELAY_SECS`] first) runs inside this window.
const HOG_HOLD_SECS: u64 = 240;
const HONEST_DELAY_SECS: u64 = 60;

/// Docs/security.md, "Harbor: trials beside a process hog": an honest trial (the oracle's
/// gold patches) and a hostile one (library code filling the test user's process limit)
/// of cookie-split in **one** Harbor job, side by side: the honest trial (whose library
/// starts a thread) gets reward 1. With one test uid in every trial (10001), the hog fills
/// the per-uid count both share and the honest trial's thread cannot start.
#[test]
fn harbor_an_honest_trial_beside_a_process_hog_scores_1() {
    let Some(bin) = harbor() else { return };
    // Docker objects: the task folders' (and so images') prefix.
    let prefix: &'static str = match std::env::var("TASKC_HARBOR_NB_PREFIX") {
        Ok(p) if !p.is_empty() => Box::leak(p.into_boxed_str()),
        _ => "harbor-nb-",
    };
    let tmp = tempfile::tempdir().unwrap();
    let (out, tasks, jobs) = (
        tmp.path().join("out"),
        tmp.path().join("tasks"),
        tmp.path().join("jobs"),
    );
    let run = taskc(&[
        "export",
        "harbor",
        "--out",
        out.to_str().unwrap(),
        &spec("cookie-split"),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::create_dir_all(&tasks).unwrap();
    let (hog, honest) = (format!("{prefix}hog"), format!("{prefix}honest"));
    for (name, solve) in [
        (
            &hog,
            format!(
                "#!/bin/bash\nset -euo pipefail\ncd /work\nHOLD={HOG_HOLD_SECS}\n{PROCESS_HOG}"
            ),
        ),
        (&honest, String::new()),
    ] {
        let dir = tasks.join(name);
        let status = Command::new("cp")
            .arg("-a")
            .arg(out.join("cookie-split"))
            .arg(&dir)
            .status()
            .unwrap();
        assert!(status.success());
        let path = dir.join("solution/solve.sh");
        if solve.is_empty() {
            // The oracle's own solve.sh (the gold patches), after a while spent thinking.
            // Its library starts a thread, as most real code under test does (a pytest
            // run in one thread forks nothing as the test user, so the kernel's per-uid
            // count never stops it: measured, reward 1 beside the hog even with one uid).
            let gold = std::fs::read_to_string(&path).unwrap();
            let (shebang, rest) = gold.split_once('\n').unwrap();
            std::fs::write(
                &path,
                format!("{shebang}\nsleep {HONEST_DELAY_SECS}\n{rest}{HONEST_THREAD}"),
            )
            .unwrap();
        } else {
            std::fs::write(&path, solve).unwrap();
        }
    }
    let _guard = HarborGuard(prefix);
    let start = std::time::Instant::now();
    let mut rewards = harbor_run(&bin, &tasks, &jobs, "oracle", "2");
    // The honest trial's reward first: it is what the test is about.
    rewards.sort_by_key(|(trial, _)| !trial.starts_with(&format!("{honest}__")));
    eprintln!(
        "honest + hog trials in one Harbor job: {:.0} s",
        start.elapsed().as_secs_f64()
    );
    assert_eq!(rewards.len(), 2, "{rewards:?}");
    let mut seen = 0;
    for (trial, r) in &rewards {
        let verifier = jobs.join("oracle").join(trial).join("verifier");
        let grade = std::fs::read_to_string(verifier.join("grade.json")).unwrap_or_default();
        if trial.starts_with(&format!("{honest}__")) {
            assert_eq!(
                r["reward"], 1,
                "the honest trial {trial}: {r}; grade: {grade}"
            );
            seen += 1;
        } else {
            assert!(trial.starts_with(&format!("{hog}__")), "{trial}");
            assert_eq!(r["reward"], 0, "the hog {trial}: {r}; grade: {grade}");
            // The hog did fill its limit, as a test user of a uid of its own.
            // In the first run that imports `proxy` (proxy's or gateway's).
            let log: String = ["proxy", "gateway"]
                .iter()
                .map(|t| {
                    std::fs::read_to_string(verifier.join(format!("{t}.log"))).unwrap_or_default()
                })
                .collect();
            let line = log
                .lines()
                .find_map(|l| {
                    l.split_once("RuntimeError: taskc-hog: uid ")
                        .map(|(_, rest)| rest)
                })
                .unwrap_or_else(|| panic!("the hog did not run in {trial}:\n{log}"));
            eprintln!("hog: uid {line}");
            // `<uid> held <n> processes`
            let words: Vec<&str> = line.split_whitespace().collect();
            let uid: u32 = words[0].parse().unwrap();
            let held: u32 = words[2].parse().unwrap();
            assert!(uid >= 100_000, "{line}");
            assert!(
                (4000..=4096).contains(&held),
                "the hog was not stopped by its limit: {line}"
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 2);
}
