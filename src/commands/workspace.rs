//! `taskc workspace SPEC --mode joint|independent --out DIR [--image TAG]`: export what an
//! agent gets — the repositories at base as one synthetic commit each (no history, no gold
//! patch, no hidden test), `PROMPT.md` and `.taskc-workspace.json`. With `--image TAG`, also
//! build the task image on Docker and tag it, so a harness can `docker run TAG`.

use std::path::PathBuf;

use taskc_compiler::lower::lower_workspace;
use taskc_compiler::plan::WorkspaceMode;
use taskc_runtime::exec::ProgressStyle;
use taskc_runtime::pipeline;

use super::spec::load_checked;
use super::verify::RunArgs;
use super::Context;
use crate::discover::display;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// One folder with every repository.
    Joint,
    /// One folder per target, with that target and the context repositories.
    Independent,
}

impl From<ModeArg> for WorkspaceMode {
    fn from(m: ModeArg) -> WorkspaceMode {
        match m {
            ModeArg::Joint => WorkspaceMode::Joint,
            ModeArg::Independent => WorkspaceMode::Independent,
        }
    }
}

/// Arguments of `taskc workspace`.
#[derive(Debug, clap::Args)]
pub struct WorkspaceArgs {
    /// The spec file.
    pub spec: PathBuf,
    #[arg(long, value_enum, default_value_t = ModeArg::Joint)]
    pub mode: ModeArg,
    /// Folder to export into: must not exist yet, or be empty.
    #[arg(long)]
    pub out: PathBuf,
    /// Also build the task image (Docker backend) and tag it TAG.
    #[arg(long, value_name = "TAG")]
    pub image: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Run `taskc workspace`.
pub fn run(args: &WorkspaceArgs, ctx: &Context) -> Result<Exit, CliError> {
    let loaded = load_checked(&args.spec, &args.run.cache(), ctx)?;
    let plan = lower_workspace(&loaded.task, &loaded.lower_options(), args.mode.into())
        .map_err(|error| CliError::lower(loaded.name.clone(), error))?;
    let exported = pipeline::export_workspaces(
        &plan,
        &loaded.task,
        &loaded.dir,
        &loaded.site,
        &args.run.cache(),
        &args.out,
    )
    .map_err(|e| CliError::pipeline(loaded.name.clone(), e))?;
    for w in &exported {
        let repos: Vec<&str> = w.repos.iter().map(|r| r.name.as_str()).collect();
        output::out(&format!(
            "exported workspace `{}` to {} ({})\n",
            w.name,
            display(&w.dir),
            repos.join(", ")
        ));
    }
    let Some(tag) = &args.image else {
        return Ok(Exit::Success);
    };
    ctx.rt.block_on(async {
        let session = args
            .run
            .open(
                ProgressStyle::Lines,
                "`--image` needs the Docker Engine; start it, or drop `--image`",
            )
            .await?;
        let built = pipeline::tag_task_image(
            &session,
            &plan,
            &loaded.task,
            &loaded.dir,
            &loaded.site,
            tag,
        )
        .await
        .map_err(|e| CliError::pipeline(loaded.name.clone(), e))?;
        output::out(&format!("tagged task image {built} as {tag}\n"));
        Ok(Exit::Success)
    })
}
