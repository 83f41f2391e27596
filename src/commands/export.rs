//! `taskc export harbor SPEC… --out DIR [--mode joint|independent] [--force]`: tasks as
//! Harbor task folders (`docs/export.md`). Thin: load the specs, call
//! `taskc_runtime::export::export_harbor`, print what was written.

use std::path::PathBuf;

use taskc_compiler::plan::ScoreMode;
use taskc_runtime::export::{
    export_harbor, grade_here, write_zero_reward, ExportOptions, VerifierPaths,
};
use taskc_runtime::pipeline;

use super::spec::{load_checked, spec_files};
use super::Context;
use crate::discover::display;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;
use taskc_runtime::export::ExportError;

/// Arguments of `taskc export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    pub format: ExportFormat,
}

/// The formats `taskc export` writes.
#[derive(Debug, clap::Subcommand)]
pub enum ExportFormat {
    /// Harbor task folders (task.toml, instruction.md, environment/, tests/, solution/).
    Harbor(HarborArgs),
    /// The exported task's grader, run by Harbor's verifier inside the task container
    /// (`tests/test.sh`): grades the agent's recorded change as `taskc score` does and
    /// writes Harbor's reward.
    #[command(hide = true)]
    HarborGrade(HarborGradeArgs),
}

/// Arguments of `taskc export harbor-grade`.
#[derive(Debug, clap::Args)]
pub struct HarborGradeArgs {
    /// The uploaded `tests/` folder (holding grading.json).
    #[arg(long, default_value = "/tests")]
    pub tests: PathBuf,
    /// Harbor's verifier log folder (reward.json, grade.json, logs).
    #[arg(long, default_value = "/logs/verifier")]
    pub logs: PathBuf,
    /// Where the collect hook recorded the agent's diffs.
    #[arg(long, default_value = "/logs/artifacts/taskc")]
    pub artifacts: PathBuf,
}

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// One task folder per task: the agent changes every repository.
    Joint,
    /// One task folder per target: the agent changes that target; the others get gold.
    Independent,
}

/// Arguments of `taskc export harbor`.
#[derive(Debug, clap::Args)]
pub struct HarborArgs {
    /// Spec files or folders holding them; each needs a fresh lock (`taskc verify`).
    #[arg(required = true)]
    pub specs: Vec<PathBuf>,
    /// Folder the task folders are written into (`<task>` or `<task>__<target>`).
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, value_enum, default_value_t = ModeArg::Joint)]
    pub mode: ModeArg,
    /// Replace task folders that already exist under --out.
    #[arg(long)]
    pub force: bool,
    /// The agent's time limit written into task.toml, in seconds.
    #[arg(long, default_value_t = 3600, value_name = "SECS")]
    pub agent_timeout: u64,
    /// Cache folder (git mirrors); default `$TASKC_CACHE` or `~/.cache/taskc`.
    #[arg(long)]
    pub cache: Option<PathBuf>,
}

/// Run `taskc export`.
pub fn run(args: &ExportArgs, ctx: &Context) -> Result<Exit, CliError> {
    let args = match &args.format {
        ExportFormat::Harbor(a) => a,
        ExportFormat::HarborGrade(a) => return harbor_grade(a, ctx),
    };
    let (files, exit) = spec_files(&args.specs);
    if exit != Exit::Success {
        return Err(CliError::Shown(exit));
    }
    let cache = pipeline::cache_or_default(args.cache.as_deref());
    let mut loaded = Vec::new();
    for f in &files {
        loaded.push(load_checked(f, &cache, ctx)?);
    }
    let opts = ExportOptions {
        mode: match args.mode {
            ModeArg::Joint => ScoreMode::Joint,
            ModeArg::Independent => ScoreMode::Independent,
        },
        out: args.out.clone(),
        force: args.force,
        cache,
        agent_timeout_secs: args.agent_timeout,
        version: env!("CARGO_PKG_VERSION").to_string(),
        grader: std::env::current_exe().map_err(|e| {
            output::err(&format!(
                "error: cannot find the running taskc executable to ship as the grader: {e}\n"
            ));
            CliError::Shown(Exit::Usage)
        })?,
    };
    match export_harbor(&loaded, &opts) {
        Ok(tasks) => {
            for t in &tasks {
                output::out(&format!(
                    "exported Harbor task `{}` to {} (targets: {})\n",
                    t.name,
                    display(&t.dir),
                    t.targets.join(", ")
                ));
            }
            Ok(Exit::Success)
        }
        // A spec that cannot be lowered exits 1, as from every command that lowers.
        Err(ExportError::Pipeline { spec, source }) => Err(CliError::pipeline(spec, *source)),
        Err(e) => {
            // Its stable code (E1200–E1204) goes in front, as a diagnostic's would.
            output::err(&format!(
                "error[{}]: {e}\n  help: {}\n",
                e.code().as_str(),
                e.hint()
            ));
            Err(CliError::Shown(Exit::Usage))
        }
    }
}

/// `taskc export harbor-grade`: grade in this container, write the reward (0 when grading
/// itself fails: never a pass by default).
fn harbor_grade(args: &HarborGradeArgs, ctx: &Context) -> Result<Exit, CliError> {
    let paths = VerifierPaths {
        tests: args.tests.clone(),
        logs: args.logs.clone(),
        artifacts: args.artifacts.clone(),
    };
    match ctx.rt.block_on(grade_here(&paths)) {
        Ok(v) => {
            for (t, g) in &v.grade.targets {
                let why = g
                    .failure
                    .as_ref()
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default();
                let verdict = if g.resolved() { "pass" } else { "fail" };
                output::out(&format!("taskc: {t}: {verdict}{why}\n"));
            }
            for line in v.grade.invalid.iter().chain(&v.grade.failures) {
                output::out(&format!("taskc: {line}\n"));
            }
            output::out(&format!(
                "taskc: {} — reward {}\n",
                v.grade.status.as_str(),
                v.reward
            ));
            Ok(Exit::Success)
        }
        Err(e) => {
            output::err(&format!(
                "error: the exported grader could not grade: {e}\n"
            ));
            if let Err(w) = write_zero_reward(&args.logs) {
                output::err(&format!("error: {w}\n"));
            }
            Err(CliError::Shown(Exit::Usage))
        }
    }
}
