//! `taskc export harbor-grade`: the exported task's grader, run by Harbor's verifier as root
//! in a fresh container of the task image (`tests/test.sh`). It is `taskc score` for one
//! prediction — the agent's recorded change — in that container: the same scoring runs
//! (from `grading.json`), the same run script (`exec::script`: one reading of every patch,
//! the test surface restored, the hidden tests, canaries placed with a seed drawn now, the
//! unprivileged test user, the reaper), the same scheduler, log parsers and interpretation,
//! and the same grading (`grade::grade`) against the lock's oracle. Only the backend
//! differs: [`super::verifier_backend::InContainer`] runs each script here.
//!
//! It writes into the verifier log folder: `reward.json` (`reward` 1 when the prediction is
//! solved, else 0, and one 0/1 entry per target), `grade.json` (the prediction's grade as
//! `taskc score` reports it), `<target>.log` (each target's test log), `taskc.json` and
//! `diffs/<repo>.patch` (what `taskc collect --from harbor` reads).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use taskc_compiler::plan::ScorePlan;

use super::bundle::{Bundle, BUNDLE_SCHEMA};
use super::verifier_backend::InContainer;
use crate::backend::Limits;
use crate::exec::progress::{Progress, ProgressStyle};
use crate::exec::{Executor, Job, ResultStore};
use crate::grade::{grade, scored_runs, PredictionGrade};
use crate::predictions::Prediction;

/// Where the grader reads and writes.
#[derive(Debug, Clone)]
pub struct VerifierPaths {
    /// The uploaded `tests/` folder (`grading.json`).
    pub tests: PathBuf,
    /// Harbor's verifier log folder (`/logs/verifier`): the reward and the records.
    pub logs: PathBuf,
    /// Where the collect hook left the agent's recorded diffs (`/logs/artifacts/taskc`).
    pub artifacts: PathBuf,
}

/// Why the grader could not grade (the reward is then 0, written by the caller).
#[derive(Debug, thiserror::Error)]
pub enum VerifierError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a grading bundle of this taskc ({why})", path.display())]
    Bundle { path: PathBuf, why: String },
    #[error("the scoring runs could not be executed: {0}")]
    Exec(#[from] crate::exec::ExecError),
    /// The trial's own test uid could not be drawn or given to `taskc-test` (`E1930`).
    #[error("E1930 harbor-test-user: cannot set up this trial's test user: {0}")]
    TestUser(#[from] super::test_user::TestUserError),
}

/// What the grader concluded.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub grade: PredictionGrade,
    /// 1 when solved, else 0.
    pub reward: u8,
}

/// The record `taskc collect --from harbor` reads (`verifier/taskc.json`).
#[derive(serde::Serialize)]
struct TrialRecord<'a> {
    schema: &'static str,
    task: &'a str,
    mode: &'static str,
    lock_digest: &'a str,
    targets: Vec<&'a str>,
    prediction_repos: &'a [String],
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), VerifierError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| VerifierError::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, bytes).map_err(|source| VerifierError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Read `grading.json` from `tests`.
pub fn read_bundle(tests: &Path) -> Result<Bundle, VerifierError> {
    let path = tests.join("grading.json");
    let text = std::fs::read_to_string(&path).map_err(|source| VerifierError::Read {
        path: path.clone(),
        source,
    })?;
    let bundle: Bundle = serde_json::from_str(&text).map_err(|e| VerifierError::Bundle {
        path: path.clone(),
        why: e.to_string(),
    })?;
    if bundle.schema != BUNDLE_SCHEMA {
        return Err(VerifierError::Bundle {
            path,
            why: format!("schema `{}`, expected `{BUNDLE_SCHEMA}`", bundle.schema),
        });
    }
    Ok(bundle)
}

/// The agent's recorded change of each repository (empty when none was recorded); a
/// recorded file that is not a regular file counts as no change.
fn recorded_diffs(bundle: &Bundle, artifacts: &Path) -> BTreeMap<String, String> {
    let dir = artifacts.join("diffs");
    bundle
        .repos
        .iter()
        .map(|r| {
            let path = dir.join(format!("{}.patch", r.name));
            let text = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => std::fs::read(&path)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            (r.name.clone(), text)
        })
        .collect()
}

/// Grade the agent's recorded change as `taskc score` does, in this container; writes the
/// reward and the records into `paths.logs`.
pub async fn grade_here(paths: &VerifierPaths) -> Result<Verdict, VerifierError> {
    let bundle = read_bundle(&paths.tests)?;
    let diffs = recorded_diffs(&bundle, &paths.artifacts);
    let record = TrialRecord {
        schema: "taskc.harbor-trial/1",
        task: &bundle.facts.id,
        mode: bundle.mode.as_str(),
        lock_digest: &bundle.lock_digest,
        targets: bundle.runs.iter().map(|r| r.test.repo.as_str()).collect(),
        prediction_repos: &bundle.prediction_repos,
    };
    let json = serde_json::to_vec_pretty(&record).unwrap_or_default();
    write(&paths.logs.join(super::TRIAL_RECORD), &json)?;
    for (repo, text) in &diffs {
        write(
            &paths.logs.join("diffs").join(format!("{repo}.patch")),
            text.as_bytes(),
        )?;
    }
    let prediction = Prediction {
        task: bundle.facts.id.clone(),
        model: "harbor".into(),
        patches: diffs
            .into_iter()
            .filter(|(repo, text)| {
                bundle.prediction_repos.contains(repo) && !text.trim().is_empty()
            })
            .collect(),
    };
    // Root-only: the results and logs of the runs, out of the test user's reach.
    let scratch = tempfile::Builder::new()
        .prefix("taskc-grade-")
        .tempdir()
        .map_err(|source| VerifierError::Write {
            path: std::env::temp_dir(),
            source,
        })?;
    // This trial's own test uid: the kernel's per-uid process count (the test user's
    // `prlimit --nproc`) is then not shared with the trials beside it on the host.
    let test_uid = super::test_user::draw_uid(Path::new("/"))?;
    super::test_user::install(Path::new("/"), test_uid)?;
    let backend = InContainer {
        test_uid,
        repos: bundle.repos.clone(),
        env: std::env::vars()
            .filter(|(k, _)| !k.starts_with("TASKC_"))
            .collect(),
        scratch: scratch.path().to_path_buf(),
    };
    let store = ResultStore::new(&scratch.path().join("cache"), super::verifier_backend::NAME);
    let exec = Executor {
        backend: Arc::new(backend),
        store,
        session: "harbor-verifier".into(),
        jobs: 1,
        limits: Limits::default(),
        env: bundle.env.clone(),
        progress: Arc::new(Progress::new(ProgressStyle::Lines)),
        base_files: Arc::new(bundle.base_files.clone()),
    };
    let jobs: Vec<Job> = bundle
        .runs
        .iter()
        .map(|r| Job {
            run: r.clone(),
            prediction: Some(prediction.short_id()),
            predictions: prediction.patches.clone(),
            untrusted: true,
        })
        .collect();
    let execution = exec.execute("", &bundle.blobs, jobs, 1).await?;
    let plan = ScorePlan {
        mode: bundle.mode,
        runs: bundle.runs.clone(),
    };
    let runs = scored_runs(&plan, &prediction, &execution.results);
    let g = grade(
        &bundle.facts,
        &bundle.oracle,
        &prediction,
        bundle.mode,
        &runs,
    );
    // Each target's test log beside the reward.
    for r in &runs {
        for t in &r.under_test {
            if let Some(path) = r.result.as_ref().and_then(|res| res.logs.get(t)) {
                if let Ok(bytes) = std::fs::read(path) {
                    write(&paths.logs.join(format!("{t}.log")), &bytes)?;
                }
            }
        }
    }
    let reward = u8::from(g.solved());
    let mut rewards = serde_json::Map::new();
    rewards.insert("reward".into(), reward.into());
    for (t, tg) in &g.targets {
        rewards.insert(t.clone(), u8::from(tg.resolved()).into());
    }
    write(
        &paths.logs.join("reward.json"),
        serde_json::Value::Object(rewards).to_string().as_bytes(),
    )?;
    let json = serde_json::to_vec_pretty(&g).unwrap_or_default();
    write(&paths.logs.join("grade.json"), &json)?;
    Ok(Verdict { grade: g, reward })
}

/// Write reward 0 (the grader could not grade: the verdict is never a pass by default).
pub fn write_zero_reward(logs: &Path) -> Result<(), VerifierError> {
    write(&logs.join("reward.json"), b"{\"reward\":0}")
}
