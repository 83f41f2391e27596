//! `taskc`: the command line. A small enum of subcommands and a dispatch; each command
//! lives in its own file under `commands/`.

mod commands;
mod discover;
mod error;
mod exit;
mod output;
mod render;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use commands::{ColorChoice, Context};

/// `taskc --version`: the crate version and the git commit it was built from (`unknown`
/// outside a git checkout; see `build.rs`).
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("TASKC_COMMIT"),
    ")"
);

/// A declarative task-spec compiler for cross-repository coding benchmarks.
#[derive(Debug, Parser)]
#[command(name = "taskc", version = VERSION, about, after_help = exit::HELP)]
struct Cli {
    /// When to colour diagnostics: `auto` colours when stderr is a terminal and NO_COLOR
    /// is unset.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check specs and report every error and warning.
    Check(commands::check::CheckArgs),
    /// Turn an agent's finished workspace into one JSONL prediction line.
    Collect(commands::collect::CollectArgs),
    /// Lay specs out in the canonical format (in place, or `--check` for a diff).
    Fmt(commands::fmt::FmtArgs),
    /// Build, run the verification plan, derive the oracle and write the lock.
    Verify(commands::verify::VerifyArgs),
    /// Score agents' predictions against each task's lock; write JSON, Markdown and HTML reports.
    Score(commands::score::ScoreArgs),
    /// Lower a spec to a deterministic plan (verify, score or workspace) as JSON.
    Plan(commands::plan::PlanArgs),
    /// Semantic diff of two versions of a spec and what it invalidates.
    Diff(commands::diff::DiffArgs),
    /// Manage base images (`taskc image bootstrap [--force]`).
    Image(commands::image::ImageArgs),
    /// Export what an agent gets: repositories at base, the prompt, no gold, no hidden tests.
    Workspace(commands::workspace::WorkspaceArgs),
    /// Export tasks for other harnesses: `export harbor` writes Harbor task folders.
    Export(commands::export::ExportArgs),
    /// Import WideSWE cases or SWE-bench instances as checked taskc specs.
    Import(commands::import::ImportArgs),
    /// Remove stale taskc containers, images, local image folders and stored results.
    Gc(commands::gc::GcArgs),
    /// Print the shell completion script (bash, zsh or fish).
    Completions(commands::completions::CompletionsArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            output::error(&format!("cannot start the async runtime: {e}"));
            return exit::Exit::Usage.into();
        }
    };
    // SIGINT/SIGTERM outside a scheduler's runs end the process as their default would.
    rt.spawn(taskc_runtime::pipeline::watch_signals());
    let ctx = Context::new(cli.color, rt);
    let result = match cli.command {
        Command::Check(args) => commands::check::run(&args, &ctx),
        Command::Collect(args) => commands::collect::run(&args, &ctx),
        Command::Fmt(args) => commands::fmt::run(&args, &ctx),
        Command::Verify(args) => commands::verify::run(&args, &ctx),
        Command::Score(args) => commands::score::run(&args, &ctx),
        Command::Plan(args) => commands::plan::run(&args, &ctx),
        Command::Diff(args) => commands::diff::run(&args, &ctx),
        Command::Image(args) => commands::image::run(&args, &ctx),
        Command::Workspace(args) => commands::workspace::run(&args, &ctx),
        Command::Gc(args) => commands::gc::run(&args, &ctx),
        Command::Import(args) => commands::import::run(&args, &ctx),
        Command::Export(args) => commands::export::run(&args, &ctx),
        Command::Completions(args) => commands::completions::run::<Cli>(&args),
    };
    match result {
        Ok(exit) => exit.into(),
        Err(e) => error::report(&e).into(),
    }
}
