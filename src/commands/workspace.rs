//! `taskc workspace SPEC --mode joint|independent --out DIR [--image TAG]`: export what an
//! agent gets — the repositories at base as one synthetic commit each (no history, no gold
//! patch, no hidden test), `PROMPT.md` and `.taskc-workspace.json`. With `--image TAG`, also
//! build the task image on Docker and tag it, so a harness can `docker run TAG`.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_workspace, LowerOptions};
use taskc_compiler::plan::WorkspaceMode;
use taskc_runtime::exec::ProgressStyle;
use taskc_runtime::pipeline;

use super::spec::{load_checked, Loaded};
use super::verify::{open_session, RunArgs};
use super::Context;
use crate::discover::display;
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
pub fn run(args: &WorkspaceArgs, ctx: &Context) -> Exit {
    let loaded = match load_checked(&args.spec, ctx) {
        Ok(l) => l,
        Err(e) => return e,
    };
    let opts = LowerOptions {
        base_image_override: loaded.base_image_override.clone(),
        exhaustive: false,
        full: false,
        base_image_id: None,
    };
    let plan = match lower_workspace(&loaded.task, &opts, args.mode.into()) {
        Ok(p) => p,
        Err(e) => {
            output::error(&format!(
                "{}: cannot lower the workspace plan: {e}",
                loaded.name
            ));
            return Exit::Usage;
        }
    };
    let cache = args
        .run
        .cache
        .clone()
        .unwrap_or_else(pipeline::default_cache);
    let exported = match pipeline::export_workspaces(
        &plan,
        &loaded.task,
        &loaded.dir,
        &loaded.site,
        &cache,
        &args.out,
    ) {
        Ok(w) => w,
        Err(e) => {
            output::error(&format!("{}: {e}", loaded.name));
            return Exit::Usage;
        }
    };
    for w in &exported {
        let repos: Vec<&str> = w.repos.iter().map(|r| r.name.as_str()).collect();
        output::out(&format!(
            "exported workspace `{}` to {} ({})\n",
            w.name,
            display(&w.dir),
            repos.join(", ")
        ));
    }
    match &args.image {
        None => Exit::Success,
        Some(tag) => tag_image(args, ctx, &loaded, &plan, tag),
    }
}

fn tag_image(
    args: &WorkspaceArgs,
    ctx: &Context,
    loaded: &Loaded,
    plan: &taskc_compiler::plan::Plan,
    tag: &str,
) -> Exit {
    let rt = &ctx.rt;
    rt.block_on(async {
        let session = match open_session(&args.run, ProgressStyle::Lines).await {
            Ok(s) => s,
            Err(e) => {
                output::error(&format!(
                    "{e}\n  help: `--image` needs the Docker Engine; start it, or drop `--image`"
                ));
                return Exit::Usage;
            }
        };
        match pipeline::tag_task_image(&session, plan, &loaded.task, &loaded.dir, &loaded.site, tag)
            .await
        {
            Ok(built) => {
                output::out(&format!("tagged task image {built} as {tag}\n"));
                Exit::Success
            }
            Err(e) => {
                output::error(&format!("{}: {e}", loaded.name));
                Exit::of_pipeline(&e)
            }
        }
    })
}
