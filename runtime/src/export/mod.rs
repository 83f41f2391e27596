//! `taskc export harbor`: tasks as Harbor task folders (`docs/export.md`).
//!
//! One folder per task (joint) or per target (independent):
//! `task.toml`, `instruction.md`, `environment/` (a Dockerfile and the repositories' trees
//! at base: what `taskc workspace --image` builds, nothing else), `tests/` (`test.sh`, the
//! exported grader, `grading.json`, the relaxed hidden tests) and `solution/` (`solve.sh`
//! and the gold patches). Same spec and lock → same bytes.

mod bundle;
mod dockerfile;
mod error;
mod task_toml;
mod test_user;
mod verifier;
mod verifier_backend;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use taskc_compiler::lower::{lower_score, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, PlanBody, Run, ScoreMode};

pub use bundle::{Bundle, BundleRepo, BUNDLE_SCHEMA};
pub use dockerfile::REPOS_DIR;
pub use error::ExportError;
pub use task_toml::SCHEMA_VERSION;
pub use test_user::TestUserError;
pub use verifier::{grade_here, write_zero_reward, Verdict, VerifierError, VerifierPaths};
use write::{Entry, Tree};

use crate::exec::script::SETUP_ALLOWANCE;
use crate::pipeline::{load_oracle, CheckedSpec, PipelineError, DEFAULT_LIMITS};
use crate::repo::{materialize, RepoSource};

/// The exported grader's file under `tests/`: the `taskc` binary that exported the task.
pub const GRADER_FILE: &str = "taskc";
/// The change recorder, in the image (the collect hook runs it) and beside the grader.
pub const RECORDER: &str = include_str!("harbor/taskc_record.py");
const TEST_SH: &str = include_str!("harbor/test.sh");
/// File the grader writes into the verifier log folder, naming the task (read by
/// `taskc collect --from harbor`).
pub const TRIAL_RECORD: &str = "taskc.json";

/// How to export.
pub struct ExportOptions {
    pub mode: ScoreMode,
    pub out: PathBuf,
    /// Replace task folders that exist (never other files of `out`).
    pub force: bool,
    /// Git mirrors for git sources.
    pub cache: PathBuf,
    /// The agent's time limit in `task.toml`.
    pub agent_timeout_secs: u64,
    /// taskc's version, recorded in the files.
    pub version: String,
    /// The `taskc` executable shipped as the grader (`tests/taskc`): the running one. It
    /// runs in the task image, so it must be linked against a glibc no newer than the
    /// image's (taskc's base images are Debian bookworm, glibc 2.36).
    pub grader: PathBuf,
}

/// One exported task folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportedTask {
    /// The folder's name (`<task>` or `<task>__<target>`).
    pub name: String,
    pub dir: PathBuf,
    pub task: String,
    pub targets: Vec<String>,
}

/// Export every spec of `specs` into `opts.out`; nothing is written unless every spec
/// can be exported (all folders are built first, then written).
pub fn export_harbor(
    specs: &[CheckedSpec],
    opts: &ExportOptions,
) -> Result<Vec<ExportedTask>, ExportError> {
    let staging = tempfile::Builder::new()
        .prefix("taskc-export-")
        .tempdir()
        .map_err(|source| ExportError::Write {
            what: "cannot create a temporary folder".into(),
            source,
        })?;
    let grader = grader_bytes(&opts.grader, staging.path())?;
    let mut trees = Vec::new();
    for spec in specs {
        trees.extend(build_spec(spec, opts, staging.path(), &grader)?);
    }
    write::write_all(&opts.out, &trees, opts.force)?;
    Ok(trees
        .into_iter()
        .map(|(t, _)| ExportedTask {
            dir: opts.out.join(&t.name),
            ..t
        })
        .collect())
}

/// The grader shipped in `tests/`: the taskc executable at `exe`, without its debug
/// information when `strip` is on `PATH` (a debug build is ~250 MB, ~40 MB stripped).
fn grader_bytes(exe: &Path, staging: &Path) -> Result<Vec<u8>, ExportError> {
    let stripped = staging.join("taskc-grader");
    let read = |path: &Path| {
        std::fs::read(path).map_err(|source| ExportError::Write {
            what: format!(
                "cannot read the taskc executable {} to ship it as the grader",
                path.display()
            ),
            source,
        })
    };
    let ok = std::process::Command::new("strip")
        .arg("--strip-debug")
        .arg("-o")
        .arg(&stripped)
        .arg(exe)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        read(&stripped)
    } else {
        read(exe)
    }
}

fn pipeline_err<'a>(spec: &'a CheckedSpec) -> impl Fn(PipelineError) -> ExportError + 'a {
    move |source| ExportError::Pipeline {
        spec: spec.path.display().to_string(),
        source: Box::new(source),
    }
}

fn build_spec(
    spec: &CheckedSpec,
    opts: &ExportOptions,
    staging: &Path,
    grader: &[u8],
) -> Result<Vec<(ExportedTask, Tree)>, ExportError> {
    let name = spec.path.display().to_string();
    let lower = LowerOptions {
        base_image_override: spec.base_image_override.clone(),
        exhaustive: false,
        full: false,
        base_image_id: None,
        stand_ins: Default::default(),
        base_digests: Default::default(),
        image_ids: Default::default(),
    };
    let locked =
        load_oracle(&spec.path, &spec.task, &lower, false).map_err(|source| ExportError::Lock {
            spec: name.clone(),
            source,
        })?;
    let plan = lower_score(&spec.task, &lower, opts.mode)
        .map_err(|e| pipeline_err(spec)(PipelineError::Lower(e)))?;
    let PlanBody::Score { score } = &plan.body else {
        return Err(pipeline_err(spec)(PipelineError::PlanKind {
            expected: taskc_compiler::plan::PlanKind::Score,
            found: plan.kind(),
        }));
    };
    let all: Vec<&Run> = score.runs.iter().collect();
    bundle::check_supported(&plan, &all).map_err(|what| ExportError::Unsupported {
        spec: name.clone(),
        what,
    })?;
    // The repositories at base, materialised once for every folder of this spec.
    let repos_dir = staging.join(&spec.task.id);
    let (environment, commits) = environment(spec, &plan, &repos_dir, opts)?;
    let base_files = crate::pipeline::base_files(
        &plan,
        &repos_dir,
        plan.images.task.repos.iter().map(|r| &r.name),
    );
    let prompt = spec.task.prompt.text.clone();
    let groups: Vec<(String, Vec<&Run>, Option<&str>)> = match opts.mode {
        ScoreMode::Joint => vec![(spec.task.id.clone(), all.clone(), None)],
        ScoreMode::Independent => all
            .iter()
            .map(|r| {
                (
                    format!("{}__{}", spec.task.id, r.under_test),
                    vec![*r],
                    Some(r.under_test.as_str()),
                )
            })
            .collect(),
    };
    let mut out = Vec::new();
    for (folder, runs, target) in groups {
        let mut tree = Tree::new();
        for e in &environment {
            tree.insert(e.0.clone(), e.1.clone());
        }
        let targets: Vec<String> = runs.iter().map(|r| r.under_test.clone()).collect();
        tree.insert(
            "instruction.md".into(),
            Entry::file(instruction(&prompt, target).into_bytes()),
        );
        tests(
            spec,
            (&plan, opts),
            &runs,
            (&commits, &base_files),
            &locked,
            (grader, &mut tree),
        )?;
        solution(&spec.task, &targets, &mut tree);
        let verifier_secs: u64 = runs
            .iter()
            .map(|r| r.test.timeout_secs + SETUP_ALLOWANCE.as_secs())
            .sum();
        let description = spec
            .task
            .title
            .clone()
            .unwrap_or_else(|| format!("taskc task {}", spec.task.id));
        let toml = task_toml::render(&task_toml::TaskToml {
            name: &format!("taskc/{folder}"),
            description: &description,
            task: &spec.task.id,
            kind: spec.task.kind.as_str(),
            mode: opts.mode.as_str(),
            languages: &spec.task.languages,
            targets: &targets,
            lock_digest: &locked.digest,
            version: &opts.version,
            agent_timeout_secs: opts.agent_timeout_secs,
            verifier_timeout_secs: verifier_secs,
            cpus: DEFAULT_LIMITS.cpus.unwrap_or(2.0),
            memory_mb: DEFAULT_LIMITS.memory_bytes.unwrap_or(4 << 30) >> 20,
        });
        tree.insert("task.toml".into(), Entry::file(toml.into_bytes()));
        out.push((
            ExportedTask {
                name: folder.clone(),
                dir: PathBuf::from(&folder),
                task: spec.task.id.clone(),
                targets,
            },
            tree,
        ));
    }
    Ok(out)
}

fn instruction(prompt: &str, target: Option<&str>) -> String {
    let mut s = prompt.trim_end().to_string();
    s.push('\n');
    if let Some(t) = target {
        s.push_str(&format!(
            "\n---\n\nIn this run, change only the repository `{t}` (`/work/{t}`). The other \
             repositories under `/work` are for reading; changes to them are not kept.\n"
        ));
    }
    s
}

/// The files of `environment/` and each repository's (name, synthetic base commit).
type EnvFiles = (Vec<(String, Entry)>, Vec<(String, String)>);

/// `environment/`: the Dockerfile and every repository's tree at base; returns the files
/// and each repository's synthetic base commit.
fn environment(
    spec: &CheckedSpec,
    plan: &Plan,
    repos_dir: &Path,
    opts: &ExportOptions,
) -> Result<EnvFiles, ExportError> {
    let mut files = Vec::new();
    let mut commits = Vec::new();
    for r in &plan.images.task.repos {
        let Some(repo) = spec.task.repo(&r.name) else {
            continue;
        };
        let dest = repos_dir.join(&r.name);
        let source = RepoSource::resolve(&repo.source, &spec.dir, &spec.site.rewrites);
        let m =
            materialize(&source, repo.base.as_deref(), &dest, &opts.cache).map_err(|source| {
                pipeline_err(spec)(PipelineError::Repo {
                    repo: r.name.clone(),
                    source,
                })
            })?;
        commits.push((r.name.clone(), m.commit.clone()));
        let mut tree = Vec::new();
        write::read_tree(&dest, &dest, &mut tree).map_err(|source| ExportError::Write {
            what: format!("cannot read the materialised repository `{}`", r.name),
            source,
        })?;
        for (rel, mut entry) in tree {
            if rel == ".git" || rel.starts_with(".git/") {
                continue;
            }
            entry.mtime = Some(m.mtime);
            files.push((
                format!("environment/{}/{}/{rel}", dockerfile::REPOS_DIR, r.name),
                entry,
            ));
        }
    }
    let repos = serde_json::json!({
        "repos": plan.images.task.repos.iter().filter_map(|r| {
            commits.iter().find(|(n, _)| n == &r.name).map(|(_, c)| {
                serde_json::json!({"name": r.name, "path": r.path, "commit": c})
            })
        }).collect::<Vec<_>>(),
    });
    files.push((
        format!("environment/{}/repos.json", dockerfile::TASKC_DIR),
        Entry::file(format!("{repos:#}\n").into_bytes()),
    ));
    files.push((
        format!("environment/{}/taskc_record.py", dockerfile::TASKC_DIR),
        Entry::file(RECORDER.as_bytes().to_vec()),
    ));
    files.push((
        "environment/Dockerfile".into(),
        Entry::file(dockerfile::dockerfile(plan, &commits, &opts.version).into_bytes()),
    ));
    Ok((files, commits))
}

/// `tests/`: test.sh, the grader (the running `taskc`), grading.json, the recorder.
fn tests(
    spec: &CheckedSpec,
    (plan, opts): (&Plan, &ExportOptions),
    runs: &[&Run],
    (commits, base_files): (&[(String, String)], &crate::canary::BaseFiles),
    locked: &crate::pipeline::LockedOracle,
    (grader, tree): (&[u8], &mut Tree),
) -> Result<(), ExportError> {
    let name = spec.path.display().to_string();
    let unsupported = |what: String| ExportError::Unsupported {
        spec: name.clone(),
        what,
    };
    let oracle = bundle::oracle(&locked.oracle, runs).map_err(unsupported)?;
    let blobs = bundle::blobs(plan, runs).map_err(unsupported)?;
    let mut prediction_repos: Vec<String> = runs
        .iter()
        .flat_map(|r| r.prediction.iter().cloned())
        .collect();
    prediction_repos.sort();
    prediction_repos.dedup();
    let mut facts = crate::grade::TaskFacts::from(&spec.task);
    facts
        .targets
        .retain(|t| runs.iter().any(|r| &r.under_test == t));
    // Only the files the folder's patches touch.
    let files: std::collections::BTreeSet<String> = blobs
        .values()
        .flat_map(|text| {
            taskc_compiler::patch::parse_patch_lenient(text)
                .files
                .into_iter()
                .flat_map(|f| [f.old_path, f.new_path])
                .flatten()
        })
        .collect();
    let base_files: crate::canary::BaseFiles = base_files
        .iter()
        .map(|(repo, fs)| {
            let kept = fs
                .iter()
                .filter(|(p, _)| {
                    files.contains(*p)
                        || (p.ends_with("_test.go")
                            && files
                                .iter()
                                .any(|f| Path::new(f).parent() == Path::new(p.as_str()).parent()))
                })
                .map(|(p, t)| (p.clone(), t.clone()))
                .collect();
            (repo.clone(), kept)
        })
        .collect();
    let b = bundle::Bundle {
        schema: bundle::BUNDLE_SCHEMA.into(),
        version: opts.version.clone(),
        facts,
        mode: opts.mode,
        lock_digest: locked.digest.clone(),
        repos: plan
            .images
            .task
            .repos
            .iter()
            .filter_map(|r| {
                commits
                    .iter()
                    .find(|(n, _)| n == &r.name)
                    .map(|(_, c)| bundle::BundleRepo {
                        name: r.name.clone(),
                        path: r.path.clone(),
                        commit: c.clone(),
                    })
            })
            .collect(),
        prediction_repos,
        runs: runs.iter().map(|r| (*r).clone()).collect(),
        blobs,
        env: plan.images.environment.local.env.clone(),
        oracle,
        base_files,
    };
    let json = serde_json::to_string_pretty(&b).map_err(|e| ExportError::Write {
        what: "cannot encode grading.json".into(),
        source: std::io::Error::other(e),
    })?;
    tree.insert(
        "tests/grading.json".into(),
        Entry::file(format!("{json}\n").into_bytes()),
    );
    tree.insert(
        "tests/test.sh".into(),
        Entry::exec(TEST_SH.as_bytes().to_vec()),
    );
    tree.insert(format!("tests/{GRADER_FILE}"), Entry::exec(grader.to_vec()));
    tree.insert(
        "tests/taskc_record.py".into(),
        Entry::file(RECORDER.as_bytes().to_vec()),
    );
    Ok(())
}

/// `solution/`: solve.sh applying the gold patch of every target of the folder.
fn solution(task: &Task, targets: &[String], tree: &mut Tree) {
    let mut sh = String::from(
        "#!/bin/bash\n# Written by `taskc export harbor`; do not edit. Harbor's oracle agent runs it:\n\
         # it applies the gold patches, so the task scores 1.\nset -euo pipefail\nhere=$(cd \"$(dirname \"$0\")\" && pwd)\n",
    );
    let mut golds: BTreeMap<&str, &str> = BTreeMap::new();
    for t in targets {
        if let Some(g) = task.repo(t).and_then(|r| r.gold.as_ref()) {
            golds.insert(t, &g.text);
        }
    }
    for (repo, text) in golds {
        let q = crate::exec::script::sh_quote;
        sh.push_str(&format!(
            "git -C {} apply --whitespace=nowarn \"$here\"/{}\n",
            q(&format!("/work/{repo}")),
            q(&format!("{repo}.patch"))
        ));
        tree.insert(
            format!("solution/{repo}.patch"),
            Entry::file(text.as_bytes().to_vec()),
        );
    }
    tree.insert("solution/solve.sh".into(), Entry::exec(sh.into_bytes()));
}
