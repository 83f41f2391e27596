//! `taskc workspace SPEC --mode joint|independent --out DIR [--image TAG]`: export what an
//! agent gets — the repositories at base as one synthetic commit each (no history, no gold
//! patch, no hidden test), `PROMPT.md` and `.taskc-workspace.json`. With `--image TAG`, also
//! build the task image on Docker and tag it, so a harness can `docker run TAG`.

use std::path::PathBuf;

use taskc_compiler::plan::WorkspaceMode;
use taskc_runtime::pipeline::{
    self, ProgressStyle, WorkspaceEvent, WorkspaceSpecError, WorkspaceSpecOptions,
};

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
    let spec = load_checked(&super::spec::one_spec(&args.spec)?, &args.run.cache(), ctx)?;
    let opts = WorkspaceSpecOptions {
        mode: args.mode.into(),
        out: args.out.clone(),
        image: args.image.clone(),
        session: args.run.session(ProgressStyle::Lines),
    };
    ctx.rt
        .block_on(pipeline::workspace_spec(&spec, &opts, &mut render))
        .map_err(|e| match e {
            WorkspaceSpecError::Lower(error) => CliError::lower(spec.name.clone(), error),
            WorkspaceSpecError::Session(e) => CliError::session(
                e,
                "`--image` needs the Docker Engine; start it, or drop `--image`",
            ),
            WorkspaceSpecError::Export(e) | WorkspaceSpecError::Tag(e) => {
                CliError::pipeline(spec.name.clone(), e)
            }
        })?;
    Ok(Exit::Success)
}

/// Print one event of the export.
fn render(event: WorkspaceEvent<'_>) {
    match event {
        WorkspaceEvent::Exported(w) => {
            let repos: Vec<&str> = w.repos.iter().map(|r| r.name.as_str()).collect();
            output::out(&format!(
                "exported workspace `{}` to {} ({})\n",
                w.name,
                display(&w.dir),
                repos.join(", ")
            ));
        }
        WorkspaceEvent::BackendNote(note) => output::err(&format!("note: {note}\n")),
        WorkspaceEvent::Tagged { image, tag } => {
            output::out(&format!("tagged task image {image} as {tag}\n"));
        }
    }
}
