//! `taskc plan SPEC`: check a spec and print (or write) one of its plans as JSON.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::plan::{ScoreMode, WorkspaceMode};

use super::spec::load_checked;
use super::Context;
use crate::discover::io_message;
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
pub fn run(args: &PlanArgs, ctx: &Context) -> Exit {
    let spec = match super::spec::one_spec(&args.spec) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let loaded = match load_checked(&spec, ctx) {
        Ok(l) => l,
        Err(exit) => return exit,
    };
    let opts = LowerOptions {
        base_image_override: loaded.base_image_override.clone(),
        exhaustive: args.exhaustive,
        full: false,
        base_image_id: None,
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
    let plan = match plan {
        Ok(p) => p,
        Err(e) => {
            output::error(&format!("{}: cannot lower the task: {e}", loaded.name));
            return Exit::Findings;
        }
    };
    let json = plan.to_json_pretty();
    match &args.output {
        None => output::out(&json),
        Some(path) => {
            if let Err(e) = taskc_runtime::atomic::write_atomic(path, json.as_bytes()) {
                output::error(&format!(
                    "{}: cannot write: {}",
                    path.display(),
                    io_message(&e)
                ));
                return Exit::Usage;
            }
            output::err(&format!(
                "wrote {} plan {} ({} runs) to {}\n",
                plan.kind().as_str(),
                plan.id,
                plan.runs().count(),
                path.display()
            ));
        }
    }
    Exit::Success
}
