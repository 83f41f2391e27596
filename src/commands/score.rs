//! `taskc score --predictions FILE|gold|empty [--mode joint|independent] SPEC...`: score
//! agents' patches against each task's lock, and write the JSON, Markdown and HTML reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use taskc_compiler::lower::LowerOptions;
use taskc_compiler::plan::ScoreMode;
use taskc_runtime::pipeline::{self, ScoreOptions};
use taskc_runtime::predictions::{self, parse_predictions, Prediction, PredictionError};
use taskc_runtime::report::{html, markdown, Report};

use super::spec::{load_checked, Loaded};
use super::verify::{open_session, RunArgs, VerifyFormat};
use super::Context;
use crate::discover::display;
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
pub fn run(args: &ScoreArgs, ctx: &Context) -> Exit {
    ctx.rt.block_on(run_async(args, ctx))
}

/// Predictions grouped by task id.
type ByTask = BTreeMap<String, Vec<Prediction>>;

/// Predictions per task id, and the lines that were skipped.
fn read_predictions(
    source: &str,
    loaded: &[Loaded],
) -> Result<(ByTask, Vec<PredictionError>), String> {
    let mut by_task = ByTask::new();
    match source {
        "gold" | "empty" => {
            for l in loaded {
                let p = if source == "gold" {
                    predictions::gold(&l.task)
                } else {
                    predictions::empty(&l.task)
                };
                by_task.entry(l.task.id.clone()).or_default().push(p);
            }
            Ok((by_task, Vec::new()))
        }
        file => {
            let text = std::fs::read_to_string(file)
                .map_err(|e| format!("{file}: cannot read the predictions: {e}"))?;
            let known: BTreeMap<String, Vec<String>> = loaded
                .iter()
                .map(|l| {
                    (
                        l.task.id.clone(),
                        l.task.repos.iter().map(|r| r.name.clone()).collect(),
                    )
                })
                .collect();
            let (preds, errors) = parse_predictions(&text, &known);
            for e in &errors {
                let col = e.column.map(|c| format!(":{c}")).unwrap_or_default();
                output::err(&format!(
                    "warning: {file}:{}{col}: {}; line skipped, the rest is scored\n",
                    e.line, e.message
                ));
            }
            for p in preds {
                by_task.entry(p.task.clone()).or_default().push(p);
            }
            Ok((by_task, errors))
        }
    }
}

async fn run_async(args: &ScoreArgs, ctx: &Context) -> Exit {
    let mut exit = Exit::Success;
    let mut loaded = Vec::new();
    let (specs, found) = super::spec::spec_files(&args.specs);
    exit = exit.max(found);
    for spec in &specs {
        match load_checked(spec, ctx) {
            Ok(l) => loaded.push(l),
            Err(e) => exit = exit.max(e),
        }
    }
    let (by_task, skipped) = match read_predictions(&args.predictions, &loaded) {
        Ok(x) => x,
        Err(e) => {
            output::error(&e);
            return Exit::Usage;
        }
    };
    if loaded.is_empty() {
        return exit;
    }
    let style = match args.format {
        VerifyFormat::Human => super::verify::human_progress(),
        VerifyFormat::Json => taskc_runtime::exec::ProgressStyle::Json,
    };
    let session = match open_session(&args.run, style).await {
        Ok(s) => s,
        Err(e) => {
            output::error(&format!(
                "{e}\n  help: start the Docker Engine, or pass `--backend local`"
            ));
            return Exit::Usage;
        }
    };
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
        let Some(preds) = by_task.get(&l.task.id) else {
            output::err(&format!("note: no prediction for task `{}`\n", l.task.id));
            continue;
        };
        let lower = LowerOptions {
            base_image_override: l.base_image_override.clone(),
            exhaustive: false,
            full: false,
            base_image_id: None,
        };
        let locked = match pipeline::load_oracle(&l.path, &l.task, &lower, args.allow_stale_lock) {
            Ok(o) => o,
            Err(e) => {
                output::error(&format!("{e}\n  help: {}", e.hint(&l.name)));
                exit = exit.max(Exit::Usage);
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
        let oracle = locked.oracle.clone();
        locks.insert(l.task.id.clone(), locked.digest.clone());
        let opts = ScoreOptions {
            lower: lower.clone(),
            mode,
            rerun_invalid: args.rerun_invalid,
            site: l.site.clone(),
        };
        match pipeline::score(&session, &l.task, &l.dir, &oracle, preds, &opts).await {
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
                output::error(&format!("{}: scoring could not run: {e}", l.name));
                exit = exit.max(Exit::of_pipeline(&e));
                if exit == Exit::Interrupted {
                    return exit;
                }
            }
        }
    }
    let unknown: Vec<&String> = by_task
        .keys()
        .filter(|t| !loaded.iter().any(|l| &&l.task.id == t))
        .collect();
    for t in unknown {
        output::err(&format!(
            "warning: predictions for task `{t}` skipped: no spec given for it\n"
        ));
    }
    let mut report = Report::new(rows, skipped, None);
    report.duplicates = duplicates;
    report.locks = locks;
    let md = markdown::render(&report);
    if args.format == VerifyFormat::Human {
        output::out(&md);
    }
    if let Err(e) = write_reports(&args.out, &report, &md) {
        output::error(&e);
        return Exit::Usage;
    }
    output::err(&format!("reports written to {}/\n", display(&args.out)));
    exit
}

fn write_reports(dir: &Path, report: &Report, md: &str) -> Result<(), String> {
    let html = html::render(report).map_err(|e| format!("cannot render the HTML report: {e}"))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in [
        ("report.json", report.to_json_pretty()),
        ("report.md", md.to_string()),
        ("report.html", html),
    ] {
        let path = dir.join(name);
        taskc_runtime::atomic::write_atomic(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}
