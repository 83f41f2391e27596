//! `score_specs`: everything `taskc score` does past its arguments, as one entry point. Read
//! the predictions, open the session, and for every spec × mode load the oracle from the
//! lock (a stale one refused unless allowed), score, and collect duplicates and lock
//! digests; then write the reports. What happens on the way is told as [`ScoreEvent`]s, in
//! order; the caller renders them. One spec's failure is an event and the others go on;
//! Ctrl-C stops the whole scoring (no report is written, finished runs are kept).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use taskc_compiler::lock::StaleInput;
use taskc_compiler::model::Task;
use taskc_compiler::plan::ScoreMode;

use super::{
    append_run, load_oracle, open_session, read_predictions, regrade, score, write_reports,
    CheckedSpec, LockUseError, PipelineError, PredictionSource, PredictionsRecord, RunCommand,
    RunId, RunRecord, RunReuse, ScoreOptions, Selection, SessionOptions, TimeoutMultiplier,
};
use crate::grade::PredictionGrade;
use crate::predictions::{Duplicate, PredictionError};
use crate::report::Report;

/// What `taskc score` asks besides its specs and predictions.
#[derive(Debug, Clone)]
pub struct ScoreSpecsOptions {
    /// Backend, jobs, cache and progress style of the session.
    pub session: SessionOptions,
    /// The modes to score in, in order (a repeated mode is scored once).
    pub modes: Vec<ScoreMode>,
    /// Run again the runs whose stored result is invalid.
    pub rerun_invalid: bool,
    /// Score against a stale lock (told as [`ScoreEvent::StaleLockUsed`]) instead of
    /// refusing it.
    pub allow_stale_lock: bool,
    /// Folder of `report.json`, `report.md` and `report.html`.
    pub out: PathBuf,
    /// The reports go into `<out>/<run id>` (a regrade's default: it never overwrites the
    /// report of the scoring it regrades).
    pub out_per_run: bool,
    /// The tasks and models scored (`--task`, `--exclude-task`, `--model`).
    pub selection: Selection,
    /// Every test step's limit × this (`--timeout-multiplier`); recorded in the report.
    pub timeout_multiplier: TimeoutMultiplier,
    /// `--run-id`; `None`: one is generated.
    pub run_id: Option<RunId>,
    /// `--regrade`: grade stored results against the current locks and run nothing
    /// ([`super::regrade`]); each run's reuse is told as [`ScoreEvent::Regraded`].
    pub regrade: bool,
}

/// What happened, in the order it happened.
#[derive(Debug)]
pub enum ScoreEvent<'a> {
    /// `--task` / `--exclude-task` kept `kept` of the `of` specs given (told only when a
    /// selection was asked for; `kept == 0` means nothing is scored).
    Selected { kept: usize, of: usize },
    /// A line of the predictions file that cannot be used; the rest is scored.
    SkippedLine(&'a PredictionError),
    /// How the backend was chosen (`--backend auto` fell back, or local is unsandboxed).
    BackendNote(&'a str),
    /// No prediction names this task: its spec is not scored.
    NoPrediction { task: &'a str },
    /// Scoring against a lock whose inputs changed (allowed by the options).
    StaleLockUsed {
        spec: &'a CheckedSpec,
        lock: &'a Path,
        stale: &'a [StaleInput],
    },
    /// Prediction lines not scored: an earlier one has the same task and model.
    Duplicate(&'a Duplicate),
    /// One spec scored in one mode.
    Graded {
        spec: &'a CheckedSpec,
        mode: ScoreMode,
        grades: &'a [PredictionGrade],
    },
    /// One spec regraded in one mode (`--regrade`): per prediction and run, the stored
    /// result reused, or why none could be (told before its [`ScoreEvent::Graded`]).
    Regraded {
        spec: &'a CheckedSpec,
        mode: ScoreMode,
        reuse: &'a [RunReuse],
    },
    /// One spec could not be scored in one mode; the others go on (unless interrupted).
    SpecFailed {
        spec: &'a CheckedSpec,
        error: SpecScoreError,
    },
    /// Predictions for a task no spec was given for (not scored).
    UnknownTask { task: &'a str },
    /// The run was recorded in `report.json` and appended to the index of runs at `index`
    /// (or could not be: `index` is the error; the reports are written all the same).
    RunRecorded {
        record: &'a RunRecord,
        index: Result<PathBuf, PipelineError>,
    },
    /// The reports were written into `dir`; `markdown` is `report.md`'s text.
    ReportsWritten { dir: &'a Path, markdown: &'a str },
}

/// Why one spec could not be scored.
#[derive(Debug)]
pub enum SpecScoreError {
    /// Its lock is missing, invalid or stale.
    Lock(LockUseError),
    /// Scoring could not run.
    Score(PipelineError),
}

impl SpecScoreError {
    /// Ctrl-C stopped it.
    pub fn is_interrupted(&self) -> bool {
        matches!(self, SpecScoreError::Score(e) if e.is_interrupted())
    }
}

/// Why nothing (more) could be scored.
#[derive(Debug, thiserror::Error)]
pub enum ScoreSpecsError {
    /// The predictions file cannot be read.
    #[error(transparent)]
    Predictions(PipelineError),
    /// No backend opens.
    #[error(transparent)]
    Session(PipelineError),
    /// The reports cannot be written.
    #[error(transparent)]
    Reports(PipelineError),
}

/// How a scoring ended.
#[derive(Debug)]
pub enum ScoreEnd {
    /// No spec to score: no session was opened, no report written.
    NothingToScore,
    /// Ctrl-C: finished runs are kept, no report was written.
    Interrupted,
    /// The reports were written; the report they hold.
    Reported(Box<Report>),
}

/// Score `predictions` for `specs` as `opts` asks, telling `on_event` what happens.
pub async fn score_specs(
    specs: &[CheckedSpec],
    predictions: &PredictionSource,
    opts: &ScoreSpecsOptions,
    on_event: &mut (dyn FnMut(ScoreEvent<'_>) + Send),
) -> Result<ScoreEnd, ScoreSpecsError> {
    let all: Vec<&Task> = specs.iter().map(|s| &s.task).collect();
    let mut input = read_predictions(predictions, &all).map_err(ScoreSpecsError::Predictions)?;
    for e in &input.skipped {
        on_event(ScoreEvent::SkippedLine(e));
    }
    let sel = &opts.selection;
    let specs: Vec<&CheckedSpec> = sel.pick(specs, |s| &s.task.id);
    if !sel.is_all() {
        on_event(ScoreEvent::Selected {
            kept: specs.len(),
            of: all.len(),
        });
    }
    let tasks: Vec<&Task> = specs.iter().map(|s| &s.task).collect();
    // Predictions of tasks left out by the selection are neither scored nor "unknown".
    input.by_task.retain(|task, preds| {
        preds.retain(|p| sel.keeps_model(&p.model));
        !preds.is_empty()
            && (tasks.iter().any(|t| &t.id == task) || !all.iter().any(|t| &t.id == task))
    });
    if specs.is_empty() {
        return Ok(ScoreEnd::NothingToScore);
    }
    let opened = open_session(&opts.session)
        .await
        .map_err(ScoreSpecsError::Session)?;
    if let Some(note) = &opened.note {
        on_event(ScoreEvent::BackendNote(note));
    }
    let session = opened.session;
    let run_id = opts.run_id.clone().unwrap_or_else(RunId::generate);
    let out = if opts.out_per_run {
        opts.out.join(run_id.as_str())
    } else {
        opts.out.clone()
    };
    let mut record = RunRecord::start(
        run_id,
        RunCommand::Score,
        session.backend.name(),
        &opts.selection,
        opts.timeout_multiplier,
    );
    record.predictions =
        Some(PredictionsRecord::of(predictions).map_err(ScoreSpecsError::Predictions)?);
    record.report_dir = Some(out.clone());
    record.regrade = opts.regrade;
    let mut modes: Vec<ScoreMode> = Vec::new();
    for m in &opts.modes {
        if !modes.contains(m) {
            modes.push(*m);
        }
    }
    let mut rows = Vec::new();
    let mut duplicates = Vec::new();
    let mut locks = BTreeMap::new();
    let mut reuse = Vec::new();
    for (spec, mode) in specs
        .iter()
        .copied()
        .flat_map(|s| modes.iter().map(move |m| (s, *m)))
    {
        let Some(preds) = input.by_task.get(&spec.task.id) else {
            on_event(ScoreEvent::NoPrediction {
                task: &spec.task.id,
            });
            continue;
        };
        let lower = spec.lower_options();
        let locked = match load_oracle(&spec.path, &spec.task, &lower, opts.allow_stale_lock) {
            Ok(o) => o,
            Err(e) => {
                on_event(ScoreEvent::SpecFailed {
                    spec,
                    error: SpecScoreError::Lock(e),
                });
                continue;
            }
        };
        if !locked.stale.is_empty() {
            on_event(ScoreEvent::StaleLockUsed {
                spec,
                lock: &locked.path,
                stale: &locked.stale,
            });
        }
        locks.insert(spec.task.id.clone(), locked.digest.clone());
        let score_opts = ScoreOptions {
            lower,
            mode,
            rerun_invalid: opts.rerun_invalid,
            site: spec.site.clone(),
        };
        let task = opts.timeout_multiplier.apply(&spec.task);
        let scored = if opts.regrade {
            regrade(&session, &task, &locked.oracle, preds, &score_opts)
                .await
                .map(|o| {
                    on_event(ScoreEvent::Regraded {
                        spec,
                        mode,
                        reuse: &o.reuse,
                    });
                    reuse.extend(o.reuse);
                    (o.grades, o.duplicates)
                })
        } else {
            score(
                &session,
                &task,
                &spec.dir,
                &locked.oracle,
                preds,
                &score_opts,
            )
            .await
            .map(|o| (o.grades, o.duplicates))
        };
        match scored {
            Ok((grades, dups)) => {
                for d in &dups {
                    on_event(ScoreEvent::Duplicate(d));
                }
                on_event(ScoreEvent::Graded {
                    spec,
                    mode,
                    grades: &grades,
                });
                duplicates.extend(dups);
                rows.extend(grades);
            }
            Err(e) => {
                let interrupted = e.is_interrupted();
                on_event(ScoreEvent::SpecFailed {
                    spec,
                    error: SpecScoreError::Score(e),
                });
                if interrupted {
                    return Ok(ScoreEnd::Interrupted);
                }
            }
        }
    }
    for task in input.unknown_tasks(&tasks) {
        on_event(ScoreEvent::UnknownTask { task });
    }
    let mut report = Report::new(rows, input.skipped, None);
    report.duplicates = duplicates;
    report.locks = locks;
    report.regrade = reuse;
    report.timeout_multiplier = Some(opts.timeout_multiplier.get()).filter(|m| *m != 1.0);
    record.locks = report.locks.clone();
    let index = append_run(&session.cache, &record);
    on_event(ScoreEvent::RunRecorded {
        record: &record,
        index,
    });
    report.run = Some(record.clone());
    let markdown = write_reports(&out, &mut report).map_err(ScoreSpecsError::Reports)?;
    on_event(ScoreEvent::ReportsWritten {
        dir: &out,
        markdown: &markdown,
    });
    Ok(ScoreEnd::Reported(Box::new(report)))
}
