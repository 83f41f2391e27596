//! `taskc plan SPEC`: check a spec and print (or write) one of its plans as JSON.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::plan::{ScoreMode, WorkspaceMode};

use super::spec::load_checked;
use super::Context;
use crate::discover::io_message;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Which plan to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PlanMode {
    /// The verification plan (the spec's `verify` strategy).
    Verify,
    /// The scoring plan for one prediction.
    Score,
    /// The agent workspace plan.
    Workspace,
}

/// Arguments of `taskc plan`.
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// The `.task` spec to lower.
    pub spec: PathBuf,
    /// Which plan to print.
    #[arg(long, value_enum, default_value_t = PlanMode::Verify)]
    pub mode: PlanMode,
    /// Verify: run every target against every gold subset (N·2^N runs) to check `uses`.
    #[arg(long)]
    pub exhaustive: bool,
    /// Score/workspace: one run or workspace per target instead of one for all repositories.
    #[arg(long)]
    pub independent: bool,
    /// Write the plan to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Run `taskc plan`.
pub fn run(args: &PlanArgs, ctx: &Context) -> Result<Exit, CliError> {
    let spec = super::spec::one_spec(&args.spec)?;
    let loaded = load_checked(&spec, &taskc_runtime::pipeline::default_cache(), ctx)?;
    let opts = LowerOptions {
        exhaustive: args.exhaustive,
        ..loaded.lower_options()
    };
    let plan = match args.mode {
        PlanMode::Verify => lower_verify(&loaded.task, &opts),
        PlanMode::Score => lower_score(
            &loaded.task,
            &opts,
            if args.independent {
                ScoreMode::Independent
            } else {
                ScoreMode::Joint
            },
        ),
        PlanMode::Workspace => lower_workspace(
            &loaded.task,
            &opts,
            if args.independent {
                WorkspaceMode::Independent
            } else {
                WorkspaceMode::Joint
            },
        ),
    };
    let plan = plan.map_err(|error| CliError::lower(loaded.name.clone(), error))?;
    let json = plan.to_json_pretty();
    match &args.output {
        None => output::out(&json),
        Some(path) => {
            taskc_runtime::atomic::write_atomic(path, json.as_bytes()).map_err(|e| {
                CliError::usage(format!(
                    "{}: cannot write: {}",
                    path.display(),
                    io_message(&e)
                ))
            })?;
            output::err(&format!(
                "wrote {} plan {} ({} runs) to {}\n",
                plan.kind().as_str(),
                plan.id,
                plan.runs().count(),
                path.display()
            ));
        }
    }
    Ok(Exit::Success)
}
