//! `taskc collect DIR [--task ID] [--model NAME] [-o FILE]`: turn an agent's finished
//! workspace (one git repository per task repository, and the record of their base commits)
//! into one JSONL prediction line, `{"task": …, "model": …, "patches": {"<repo>": "<diff>"}}`.
//! Hermetic: nothing in the workspace decides what runs (see `predictions::collect`).

use std::io::Write;
use std::path::PathBuf;

use taskc_runtime::predictions::collect;

use super::Context;
use crate::discover::display;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Arguments of `taskc collect`.
#[derive(Debug, clap::Args)]
pub struct CollectArgs {
    /// The agent's finished workspace: a folder with one git repository per task repository.
    pub dir: PathBuf,

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
    match &args.output {
        None => output::out(&line),
        Some(path) => {
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(line.as_bytes()));
            written
                .map_err(|e| CliError::usage(format!("cannot append to {}: {e}", display(path))))?;
        }
    }
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
