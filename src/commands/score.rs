//! `taskc score --predictions FILE|gold|empty [--mode joint|independent] SPEC...`: score
//! agents' patches against each task's lock, and write the JSON, Markdown and HTML reports.

use std::path::PathBuf;

use taskc_compiler::plan::ScoreMode;
use taskc_runtime::pipeline::{
    self, PredictionSource, ProgressStyle, ScoreEvent, ScoreSpecsError, ScoreSpecsOptions,
    SpecScoreError,
};

use super::spec::load_checked;
use super::verify::{render_recorded, render_selected, RunArgs, TaskFilterArgs, NO_BACKEND};
use super::Context;
use crate::discover::display;
use crate::error::{report, CliError};
use crate::exit::Exit;
use crate::output;

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// One run sees every repository with the agent's patches.
    Joint,
    /// One run per target: it gets the agent's patch, the other targets get gold.
    Independent,
}

/// `--format` of `taskc score` (its own words: score prints grades and reports, not a truth table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScoreFormat {
    /// Progress lines on stderr, the Markdown report on stdout.
    Human,
    /// JSON events on stderr, one JSON object of grades per spec and mode on stdout.
    Json,
}

/// Arguments of `taskc score`.
#[derive(Debug, clap::Args)]
pub struct ScoreArgs {
    /// Spec files (each needs its lock: run `taskc verify` first).
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    /// A JSONL file of predictions, or `gold` / `empty` for the built-in baselines.
    #[arg(long)]
    pub predictions: String,
    /// Scoring mode; `joint,independent` scores both and reports the paired table.
    #[arg(
        long = "mode",
        value_enum,
        value_delimiter = ',',
        default_value = "joint"
    )]
    pub modes: Vec<ModeArg>,
    /// Folder for `report.json`, `report.md` and `report.html` (default: `taskc-report`;
    /// with `--regrade`, `taskc-report/<run id>`).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Run again the runs whose stored result is invalid.
    #[arg(long, conflicts_with = "regrade")]
    pub rerun_invalid: bool,
    /// Grade the results stored by earlier scorings against the current locks and run no
    /// container: says per prediction and run which stored result it reused, or why none
    /// could be (that run's target is then graded invalid).
    #[arg(long)]
    pub regrade: bool,
    /// Score against a lock whose inputs changed since `taskc verify` wrote it (a warning
    /// instead of an error; the report records the lock's digest either way).
    #[arg(long)]
    pub allow_stale_lock: bool,
    /// `json`: JSON progress events on stderr and, on stdout and nothing else, one JSON object
    /// per spec and mode (`spec`, `task`, `time`, `mode`, `grades`); the reports are still
    /// written to `--out`.
    #[arg(long, value_enum, default_value_t = ScoreFormat::Human)]
    pub format: ScoreFormat,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub filter: TaskFilterArgs,
    #[command(flatten)]
    pub verbosity: super::verbosity::VerbosityArgs,
    /// Scale every test step's time limit by F (> 0); runs under another limit are not
    /// reused (the limit is part of a run's id).
    #[arg(long, value_name = "F", default_value = "1")]
    pub timeout_multiplier: pipeline::TimeoutMultiplier,
    /// This run's id (default: generated), recorded in the index of runs
    /// (`<cache>/runs/index.jsonl`) with the inputs' digests.
    #[arg(long, value_name = "ID")]
    pub run_id: Option<pipeline::RunId>,
    /// Score only the prediction lines of this model (name or glob); repeatable or
    /// comma-separated.
    #[arg(long = "model", value_delimiter = ',', value_name = "NAME|GLOB")]
    pub models: Vec<String>,
}

/// Run `taskc score`.
pub fn run(args: &ScoreArgs, ctx: &Context) -> Result<Exit, CliError> {
    let (files, mut exit) = super::spec::spec_files(&args.specs);
    let mut specs = Vec::new();
    for f in &files {
        match load_checked(f, &args.run.cache(), ctx) {
            Ok(l) => specs.push(l),
            Err(e) => exit = exit.max(report(&e)),
        }
    }
    let style = match args.format {
        ScoreFormat::Human => args.verbosity.human_progress(),
        ScoreFormat::Json => ProgressStyle::Json,
    };
    let opts = ScoreSpecsOptions {
        session: args.run.session(style),
        modes: args
            .modes
            .iter()
            .map(|m| match m {
                ModeArg::Joint => ScoreMode::Joint,
                ModeArg::Independent => ScoreMode::Independent,
            })
            .collect(),
        rerun_invalid: args.rerun_invalid,
        allow_stale_lock: args.allow_stale_lock,
        out: args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("taskc-report")),
        out_per_run: args.regrade && args.out.is_none(),
        regrade: args.regrade,
        selection: pipeline::Selection {
            models: args.models.clone(),
            ..args.filter.selection()
        },
        timeout_multiplier: args.timeout_multiplier,
        run_id: args.run_id.clone(),
    };
    let source = PredictionSource::from_arg(&args.predictions);
    let scored = ctx.rt.block_on(pipeline::score_specs(
        &specs,
        &source,
        &opts,
        &mut |event| exit = exit.max(render(args, event)),
    ));
    match scored {
        Ok(_) => Ok(exit),
        Err(ScoreSpecsError::Session(e)) => Err(CliError::session(e, NO_BACKEND)),
        Err(ScoreSpecsError::Predictions(e) | ScoreSpecsError::Reports(e)) => {
            Err(CliError::pipeline(String::new(), e))
        }
    }
}

/// Print one event of the scoring; the exit code it calls for.
fn render(args: &ScoreArgs, event: ScoreEvent<'_>) -> Exit {
    match event {
        ScoreEvent::SkippedLine(e) => {
            let col = e.column.map(|c| format!(":{c}")).unwrap_or_default();
            output::err(&format!(
                "warning: {}:{}{col}: {}; line skipped, the rest is scored\n",
                args.predictions, e.line, e.message
            ));
        }
        ScoreEvent::BackendNote(note) => output::err(&format!("note: {note}\n")),
        ScoreEvent::Selected { kept, of } => return render_selected(kept, of),
        ScoreEvent::RunRecorded { record, index } => render_recorded(record.run_id.as_str(), index),
        ScoreEvent::NoPrediction { task } => {
            output::err(&format!("note: no prediction for task `{task}`\n"));
        }
        ScoreEvent::StaleLockUsed { lock, stale, .. } => {
            let names: Vec<&str> = stale.iter().map(|s| s.name.as_str()).collect();
            output::err(&format!(
                "warning: {}: scoring against a stale lock (--allow-stale-lock): {} changed \
                 since it was written\n",
                lock.display(),
                names.join(", ")
            ));
        }
        ScoreEvent::Regraded { reuse, .. } => {
            let reused = reuse.iter().filter(|r| r.reused()).count();
            for r in reuse {
                // `-q` keeps what could not be reused: it changes the grades.
                if !args.verbosity.quiet || !r.reused() {
                    output::err(&format!("regrade: {}\n", r.line()));
                }
            }
            output::err(&format!(
                "regrade: {reused} of {} runs graded from stored results, {} not reusable \
                 (no container ran)\n",
                reuse.len(),
                reuse.len() - reused
            ));
        }
        ScoreEvent::Duplicate(d) => output::err(&format!("warning: {}\n", d.warning())),
        ScoreEvent::Graded { spec, mode, grades } => {
            if args.format == ScoreFormat::Json {
                let value = serde_json::json!({
                    "spec": spec.name,
                    "task": spec.task.id,
                    "time": output::now_rfc3339(),
                    "mode": mode,
                    "grades": grades,
                });
                output::out(&format!("{value}\n"));
            }
        }
        ScoreEvent::SpecFailed { spec, error } => {
            return report(&match error {
                SpecScoreError::Lock(error) => CliError::Lock {
                    spec: spec.name.clone(),
                    error: Box::new(error),
                },
                SpecScoreError::Score(e) => {
                    CliError::pipeline(format!("{}: scoring could not run", spec.name), e)
                }
            })
        }
        ScoreEvent::UnknownTask { task } => output::err(&format!(
            "warning: predictions for task `{task}` skipped: no spec given for it\n"
        )),
        ScoreEvent::ReportsWritten { dir, markdown } => {
            if args.format == ScoreFormat::Human {
                output::out(markdown);
            }
            output::err(&format!("reports written to {}/\n", display(dir)));
        }
    }
    Exit::Success
}
