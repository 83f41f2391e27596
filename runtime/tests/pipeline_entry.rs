//! The one entry points of `taskc score` (`pipeline::score_specs`) and `taskc verify`
//! (`pipeline::verify_specs`) on the real local backend with a real example: the events
//! they tell, in order — gold solved, empty unsolved, a predictions file's skipped lines, a
//! stale lock refused (typed error) and, when allowed, used with its event, the reports
//! written; the verdict, then the lock written — and what they refuse before any run.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::grade::Status;
use taskc_runtime::pipeline::{
    score_specs, verify_specs, BackendChoice, CheckedSpec, LockUseError, OracleFileError,
    PredictionSource, ProgressStyle, ScoreEnd, ScoreEvent, ScoreSpecsOptions, SessionOptions,
    SpecScoreError, VerifyEnd, VerifyEvent, VerifySpecsError, VerifySpecsOptions,
};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// `cookie-split.task` in `dir`, checked as the CLI checks it.
fn checked(dir: &Path) -> CheckedSpec {
    let path = dir.join("cookie-split.task");
    let bytes = std::fs::read(&path).unwrap();
    let checked = check_spec("cookie-split.task", &bytes, &FsLoader::new(dir));
    assert!(
        !checked.diagnostics.has_errors(),
        "{:?}",
        checked.diagnostics
    );
    CheckedSpec {
        name: "cookie-split.task".into(),
        path,
        dir: dir.to_path_buf(),
        task: checked.task.unwrap(),
        base_image_override: None,
        site: Default::default(),
    }
}

/// A session on the local backend with its cache in `cache`.
fn local_session(cache: &Path) -> SessionOptions {
    SessionOptions {
        backend: BackendChoice::Local,
        jobs: Some(2),
        cache: Some(cache.to_path_buf()),
        progress: ProgressStyle::Lines,
    }
}

/// Each event as one line: what it is and what it says.
fn line(event: ScoreEvent<'_>) -> Option<String> {
    Some(match event {
        // Whether local runs sandboxed depends on the machine.
        ScoreEvent::BackendNote(_) => return None,
        ScoreEvent::Selected { kept, of } => format!("selected {kept} of {of}"),
        ScoreEvent::RunRecorded { .. } => return None,
        ScoreEvent::Regraded { reuse, .. } => format!("regraded {}", reuse.len()),
        ScoreEvent::SkippedLine(e) => format!("skipped line {}", e.line),
        ScoreEvent::NoPrediction { task } => format!("no prediction {task}"),
        ScoreEvent::StaleLockUsed { spec, lock, stale } => {
            assert_eq!(lock, spec.dir.join("cookie-split.lock"));
            let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
            format!("stale lock used: {}", names.join(","))
        }
        ScoreEvent::Duplicate(d) => format!("duplicate {}", d.task),
        ScoreEvent::Graded { spec, mode, grades } => {
            let status: Vec<&str> = grades.iter().map(|g| g.status.as_str()).collect();
            format!(
                "graded {} {} {}",
                spec.task.id,
                mode.as_str(),
                status.join(",")
            )
        }
        ScoreEvent::SpecFailed { spec, error } => match error {
            SpecScoreError::Lock(LockUseError::Stale { path, stale }) => {
                assert_eq!(path, spec.dir.join("cookie-split.lock"));
                let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
                format!("failed {}: stale lock: {}", spec.task.id, names.join(","))
            }
            other => format!("failed {}: {other:?}", spec.task.id),
        },
        ScoreEvent::UnknownTask { task } => format!("unknown task {task}"),
        ScoreEvent::ReportsWritten { dir, markdown } => {
            assert!(dir.join("report.json").is_file());
            assert_eq!(
                std::fs::read_to_string(dir.join("report.md")).unwrap(),
                markdown
            );
            "reports written".to_string()
        }
    })
}

struct Scoring {
    cache: PathBuf,
    out: PathBuf,
}

impl Scoring {
    /// Score `spec` with `source` (joint, asked twice: scored once); the event lines and
    /// how it ended.
    async fn run(
        &self,
        spec: &CheckedSpec,
        source: PredictionSource,
        allow_stale_lock: bool,
    ) -> (Vec<String>, ScoreEnd) {
        let opts = ScoreSpecsOptions {
            session: local_session(&self.cache),
            modes: vec![ScoreMode::Joint, ScoreMode::Joint],
            rerun_invalid: false,
            allow_stale_lock,
            out: self.out.clone(),
            selection: Default::default(),
            timeout_multiplier: Default::default(),
            run_id: None,
            out_per_run: false,
            regrade: false,
        };
        let mut lines = Vec::new();
        let end = score_specs(std::slice::from_ref(spec), &source, &opts, &mut |e| {
            lines.extend(line(e))
        })
        .await
        .unwrap();
        (lines, end)
    }
}

fn rows(end: &ScoreEnd) -> Vec<Status> {
    match end {
        ScoreEnd::Reported(r) => r.rows.iter().map(|g| g.status).collect(),
        other => panic!("no report: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn score_specs_tells_each_step_of_a_real_scoring_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cookie-split");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cookie-split"),
        &dir,
    );
    let scoring = Scoring {
        cache: tmp.path().join("cache"),
        out: tmp.path().join("report"),
    };
    let spec = checked(&dir);

    let (events, end) = scoring.run(&spec, PredictionSource::Gold, false).await;
    assert_eq!(
        events,
        ["graded cookie-split joint solved", "reports written"]
    );
    assert_eq!(rows(&end), [Status::Solved]);

    let (events, end) = scoring.run(&spec, PredictionSource::Empty, false).await;
    assert_eq!(
        events,
        ["graded cookie-split joint unsolved", "reports written"]
    );
    assert_eq!(rows(&end), [Status::Unsolved]);

    // A file with a line that is no JSON and one for a task no spec was given for: both
    // are skipped, nothing runs, and the report is still written.
    let file = tmp.path().join("preds.jsonl");
    std::fs::write(
        &file,
        "not json\n{\"task\": \"elsewhere\", \"model\": \"m\", \"patches\": {}}\n",
    )
    .unwrap();
    let (events, end) = scoring
        .run(&spec, PredictionSource::File(file), false)
        .await;
    assert_eq!(
        events,
        [
            "skipped line 1",
            "skipped line 2",
            "no prediction cookie-split",
            "reports written"
        ]
    );
    assert_eq!(rows(&end), []);

    // The spec changes after verification: its lock is stale.
    let path = dir.join("cookie-split.task");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("timeout 600", "timeout 601", 1);
    assert_ne!(text, edited);
    std::fs::write(&path, edited).unwrap();
    let spec = checked(&dir);
    let (events, end) = scoring.run(&spec, PredictionSource::Gold, false).await;
    assert_eq!(
        events,
        [
            "failed cookie-split: stale lock: plan,spec",
            "reports written"
        ]
    );
    assert_eq!(rows(&end), []);
    let (events, end) = scoring.run(&spec, PredictionSource::Gold, true).await;
    assert_eq!(
        events,
        [
            "stale lock used: plan,spec",
            "graded cookie-split joint solved",
            "reports written"
        ]
    );
    assert_eq!(rows(&end), [Status::Solved]);
}

#[tokio::test]
async fn without_specs_nothing_opens_and_an_unreadable_predictions_file_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = ScoreSpecsOptions {
        session: local_session(&tmp.path().join("cache")),
        modes: vec![ScoreMode::Joint],
        rerun_invalid: false,
        allow_stale_lock: false,
        out: tmp.path().join("report"),
        selection: Default::default(),
        timeout_multiplier: Default::default(),
        run_id: None,
        out_per_run: false,
        regrade: false,
    };
    let mut events = Vec::new();
    let end = score_specs(&[], &PredictionSource::Gold, &opts, &mut |e| {
        events.extend(line(e))
    })
    .await
    .unwrap();
    assert!(matches!(end, ScoreEnd::NothingToScore), "{end:?}");
    assert!(events.is_empty(), "{events:?}");
    assert!(!tmp.path().join("report").exists());
    assert!(!tmp.path().join("cache").exists());

    let missing = PredictionSource::File(tmp.path().join("missing.jsonl"));
    let err = score_specs(&[], &missing, &opts, &mut |_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            taskc_runtime::pipeline::ScoreSpecsError::Predictions(_)
        ),
        "{err:?}"
    );
}

fn verify_opts(cache: &Path, compare_oracle: Option<PathBuf>) -> VerifySpecsOptions {
    VerifySpecsOptions {
        session: local_session(cache),
        exhaustive: false,
        full: false,
        repeat: 1,
        write_lock: true,
        compare_oracle,
        selection: Default::default(),
        timeout_multiplier: Default::default(),
        run_id: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_specs_tells_the_verdict_then_the_lock_and_refuses_an_unreadable_oracle_first() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cookie-split");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cookie-split"),
        &dir,
    );
    std::fs::remove_file(dir.join("cookie-split.lock")).unwrap();
    let spec = checked(&dir);
    let cache = tmp.path().join("cache");

    // The oracle file is read before any backend opens: nothing runs.
    let missing = tmp.path().join("missing.oracle.toml");
    let err = verify_specs(
        std::slice::from_ref(&spec),
        &verify_opts(&cache, Some(missing.clone())),
        &mut |_| panic!("no event before the oracle file is read"),
    )
    .await
    .unwrap_err();
    match err {
        VerifySpecsError::Oracle(OracleFileError::Read { path, .. }) => assert_eq!(path, missing),
        other => panic!("{other:?}"),
    }
    assert!(!cache.exists());

    let mut events = Vec::new();
    let end = verify_specs(
        std::slice::from_ref(&spec),
        &verify_opts(&cache, None),
        &mut |e| match e {
            VerifyEvent::BackendNote(_)
            | VerifyEvent::Selected { .. }
            | VerifyEvent::RunRecorded { .. } => {}
            VerifyEvent::Verified {
                spec,
                outcome,
                canaries,
                comparison,
            } => {
                assert!(comparison.is_none());
                assert!(!canaries.is_empty());
                events.push(format!(
                    "verified {} sound={}",
                    spec.task.id,
                    outcome.verification.is_sound()
                ));
            }
            VerifyEvent::LockWritten { path, .. } => {
                events.push(format!("lock written {}", path.display()))
            }
            VerifyEvent::LockFailed { error, .. } => events.push(format!("lock failed {error}")),
            VerifyEvent::SpecFailed { error, .. } => events.push(format!("failed {error}")),
        },
    )
    .await
    .unwrap();
    let lock = dir.join("cookie-split.lock");
    assert_eq!(
        events,
        [
            "verified cookie-split sound=true".to_string(),
            format!("lock written {}", lock.display())
        ]
    );
    assert_eq!(
        end,
        VerifyEnd::Done {
            unsound: 0,
            oracle_differs: 0
        }
    );
    assert!(lock.is_file());
    assert!(matches!(
        verify_specs(&[], &verify_opts(&cache, None), &mut |_| {}).await,
        Ok(VerifyEnd::NothingToVerify)
    ));
}
