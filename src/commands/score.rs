//! `taskc score --predictions FILE|gold|empty [--mode joint|independent] SPEC...`: score
//! agents' patches against each task's lock, and write the JSON, Markdown and HTML reports.

use std::collections::BTreeMap;
use std::path::PathBuf;

use taskc_compiler::model::Task;
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::pipeline::{self, PredictionSource, ScoreOptions};
use taskc_runtime::report::Report;

use super::spec::load_checked;
use super::verify::{RunArgs, VerifyFormat, NO_BACKEND};
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
    /// Folder for `report.json`, `report.md` and `report.html`.
    #[arg(long, default_value = "taskc-report")]
    pub out: PathBuf,
    /// Run again the runs whose stored result is invalid.
    #[arg(long)]
    pub rerun_invalid: bool,
    /// Score against a lock whose inputs changed since `taskc verify` wrote it (a warning
    /// instead of an error; the report records the lock's digest either way).
    #[arg(long)]
    pub allow_stale_lock: bool,
    /// `json`: JSON progress events on stderr and, on stdout and nothing else, one JSON object
    /// per spec and mode (`spec`, `task`, `time`, `mode`, `grades`); the reports are still
    /// written to `--out`.
    #[arg(long, value_enum, default_value_t = VerifyFormat::Human)]
    pub format: VerifyFormat,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `taskc score`.
pub fn run(args: &ScoreArgs, ctx: &Context) -> Result<Exit, CliError> {
    ctx.rt.block_on(run_async(args, ctx))
}

async fn run_async(args: &ScoreArgs, ctx: &Context) -> Result<Exit, CliError> {
    let mut loaded = Vec::new();
    let (specs, mut exit) = super::spec::spec_files(&args.specs);
    for spec in &specs {
        match load_checked(spec, &args.run.cache(), ctx) {
            Ok(l) => loaded.push(l),
            Err(e) => exit = exit.max(report(&e)),
        }
    }
    let tasks: Vec<&Task> = loaded.iter().map(|l| &l.task).collect();
    let source = PredictionSource::from_arg(&args.predictions);
    let input = pipeline::read_predictions(&source, &tasks)
        .map_err(|e| CliError::pipeline(String::new(), e))?;
    for e in &input.skipped {
        let col = e.column.map(|c| format!(":{c}")).unwrap_or_default();
        output::err(&format!(
            "warning: {}:{}{col}: {}; line skipped, the rest is scored\n",
            args.predictions, e.line, e.message
        ));
    }
    if loaded.is_empty() {
        return Ok(exit);
    }
    let style = match args.format {
        VerifyFormat::Human => super::verify::human_progress(),
        VerifyFormat::Json => taskc_runtime::exec::ProgressStyle::Json,
    };
    let session = args.run.open(style, NO_BACKEND).await?;
    let mut modes: Vec<ScoreMode> = Vec::new();
    for m in &args.modes {
        let m = match m {
            ModeArg::Joint => ScoreMode::Joint,
            ModeArg::Independent => ScoreMode::Independent,
        };
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    let mut rows = Vec::new();
    let mut duplicates = Vec::new();
    let mut locks = BTreeMap::new();
    for (l, mode) in loaded
        .iter()
        .flat_map(|l| modes.iter().map(move |m| (l, *m)))
    {
        let Some(preds) = input.by_task.get(&l.task.id) else {
            output::err(&format!("note: no prediction for task `{}`\n", l.task.id));
            continue;
        };
        let lower = l.lower_options();
        let locked = match pipeline::load_oracle(&l.path, &l.task, &lower, args.allow_stale_lock) {
            Ok(o) => o,
            Err(error) => {
                let e = CliError::Lock {
                    spec: l.name.clone(),
                    error: Box::new(error),
                };
                exit = exit.max(report(&e));
                continue;
            }
        };
        if !locked.stale.is_empty() {
            let names: Vec<&str> = locked.stale.iter().map(|s| s.name.as_str()).collect();
            output::err(&format!(
                "warning: {}: scoring against a stale lock (--allow-stale-lock): {} changed \
                 since it was written\n",
                locked.path.display(),
                names.join(", ")
            ));
        }
        locks.insert(l.task.id.clone(), locked.digest.clone());
        let opts = ScoreOptions {
            lower,
            mode,
            rerun_invalid: args.rerun_invalid,
            site: l.site.clone(),
        };
        match pipeline::score(&session, &l.task, &l.dir, &locked.oracle, preds, &opts).await {
            Ok(outcome) => {
                for d in &outcome.duplicates {
                    output::err(&format!("warning: {}\n", d.warning()));
                }
                if args.format == VerifyFormat::Json {
                    let value = serde_json::json!({
                        "spec": l.name,
                        "task": l.task.id,
                        "time": output::now_rfc3339(),
                        "mode": mode,
                        "grades": outcome.grades,
                    });
                    output::out(&format!("{value}\n"));
                }
                duplicates.extend(outcome.duplicates);
                rows.extend(outcome.grades);
            }
            Err(e) => {
                let e = CliError::pipeline(format!("{}: scoring could not run", l.name), e);
                exit = exit.max(report(&e));
                if exit == Exit::Interrupted {
                    return Ok(exit);
                }
            }
        }
    }
    for t in input.unknown_tasks(&tasks) {
        output::err(&format!(
            "warning: predictions for task `{t}` skipped: no spec given for it\n"
        ));
    }
    let mut summary = Report::new(rows, input.skipped, None);
    summary.duplicates = duplicates;
    summary.locks = locks;
    let md = pipeline::write_reports(&args.out, &summary)
        .map_err(|e| CliError::pipeline(String::new(), e))?;
    if args.format == VerifyFormat::Human {
        output::out(&md);
    }
    output::err(&format!("reports written to {}/\n", display(&args.out)));
    Ok(exit)
}
