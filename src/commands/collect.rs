//! `taskc collect DIR [--task ID] [--model NAME] [-o FILE]`: turn an agent's finished
//! workspace (one git repository per task repository, and the record of their base commits)
//! into one JSONL prediction line, `{"task": …, "model": …, "patches": {"<repo>": "<diff>"}}`.
//! Hermetic: nothing in the workspace decides what runs (see `predictions::collect`).

use std::path::PathBuf;

use taskc_runtime::predictions::collect;

use super::Context;
use crate::discover::display;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Where `taskc collect` reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FromArg {
    /// A workspace `taskc workspace` exported (DIR), one prediction.
    Workspace,
    /// A finished Harbor job (DIR: `<jobs-dir>/<job>`) of tasks `taskc export harbor`
    /// wrote: one prediction per trial, from the diffs its verifier recorded.
    Harbor,
}

/// Arguments of `taskc collect`.
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// The agent's finished workspace: a folder with one git repository per task repository
    /// (or, with `--from harbor`, a Harbor job folder).
    pub dir: PathBuf,

    /// What DIR is.
    #[arg(long, value_enum, default_value_t = FromArg::Workspace)]
    pub from: FromArg,

    /// Task id recorded in the prediction (default: the `task` of DIR/.taskc-workspace.json,
    /// which must exist: it records each repository's base commit).
    #[arg(long)]
    pub task: Option<String>,

    /// Model name recorded in the prediction.
    #[arg(long, default_value = "agent")]
    pub model: String,

    /// Append the line to this JSONL file instead of printing it on stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Run `taskc collect`.
pub fn run(args: &CollectArgs, _ctx: &Context) -> Result<Exit, CliError> {
    if args.from == FromArg::Harbor {
        return run_harbor(args);
    }
    let pred = match collect(&args.dir, args.task.as_deref(), &args.model) {
        Ok(p) => p,
        Err(e) => {
            // Its stable code (E1000–E1006) goes in front, as a diagnostic's would.
            output::err(&format!(
                "error[{}]: {e}\n  help: {}\n",
                e.code().as_str(),
                e.hint()
            ));
            return Err(CliError::Shown(Exit::Usage));
        }
    };
    let line = format!("{}\n", pred.to_json_line());
    emit(args, &line)?;
    let repos: Vec<String> = pred
        .patches
        .iter()
        .map(|(r, d)| format!("{r} ({} lines)", d.lines().count()))
        .collect();
    output::err(&format!(
        "collected `{}` for task `{}`: {}\n",
        pred.model,
        pred.task,
        if repos.is_empty() {
            "no changes".to_string()
        } else {
            repos.join(", ")
        }
    ));
    Ok(Exit::Success)
}

/// `--from harbor`: one line per trial; skipped trials reported on stderr with their path.
fn run_harbor(args: &CollectArgs) -> Result<Exit, CliError> {
    use taskc_runtime::predictions::harbor::collect_job;
    let job = match collect_job(&args.dir) {
        Ok(j) => j,
        Err(e) => {
            output::err(&format!(
                "error[{}]: {e}\n  help: pass the folder `harbor run` wrote (<jobs-dir>/<job-name>)\n",
                taskc_compiler::Code::HarborJobUnreadable.as_str()
            ));
            return Err(CliError::Shown(Exit::Usage));
        }
    };
    let mut text = String::new();
    for (_, p) in &job.predictions {
        text.push_str(&p.to_json_line());
        text.push('\n');
    }
    emit(args, &text)?;
    for s in &job.skipped {
        output::err(&format!("skipped {}: {}\n", display(&s.path), s.reason));
    }
    output::err(&format!(
        "collected {} prediction(s) from {} ({} trial(s) skipped)\n",
        job.predictions.len(),
        display(&args.dir),
        job.skipped.len()
    ));
    Ok(Exit::Success)
}

/// Print `lines` on stdout, or append them to `-o FILE`.
fn emit(args: &CollectArgs, lines: &str) -> Result<(), CliError> {
    match &args.output {
        None => output::out(lines),
        Some(path) => {
            taskc_runtime::atomic::append_durably(path, lines.as_bytes())
                .map_err(|e| CliError::usage(format!("cannot append to {}: {e}", display(path))))?;
        }
    }
    Ok(())
}
