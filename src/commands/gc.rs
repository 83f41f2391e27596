//! `taskc gc [--backend …] [--dry-run] [--keep SPEC...]`: remove stale taskc containers,
//! taskc images and local image folders no kept spec's plans reference (the base image
//! `taskc/base:*` always stays), and stored results of runs no kept spec has. Prints what
//! was (or, with `--dry-run`, would be) removed.

use std::path::PathBuf;

use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::plan::{ScoreMode, WorkspaceMode};
use taskc_runtime::pipeline::{self, GcKeep};

use super::spec::load_checked;
use super::verify::BackendArg;
use super::Context;
use crate::exit::Exit;
use crate::output;

/// Arguments of `taskc gc`.
#[derive(Debug, clap::Args)]
pub struct GcArgs {
    /// Which backend's objects to collect.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    pub backend: BackendArg,
    /// Cache folder (default: $TASKC_CACHE, else $XDG_CACHE_HOME/taskc, else ~/.cache/taskc).
    #[arg(long)]
    pub cache: Option<PathBuf>,
    /// Print what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Specs whose images and verification results stay.
    #[arg(long, num_args = 1..)]
    pub keep: Vec<PathBuf>,
}

/// Keep the images and results of `task`'s plans lowered with `opts`.
fn add_plans(keep: &mut GcKeep, task: &taskc_compiler::model::Task, opts: &LowerOptions) {
    let exhaustive = LowerOptions {
        exhaustive: true,
        ..opts.clone()
    };
    let plans = [
        lower_verify(task, opts),
        lower_verify(task, &exhaustive),
        lower_score(task, opts, ScoreMode::Joint),
        lower_score(task, opts, ScoreMode::Independent),
        lower_workspace(task, opts, WorkspaceMode::Joint),
    ];
    for plan in plans {
        match plan {
            Ok(p) => keep.add_plan(&p),
            // Exhaustive verification may exceed the target limit: the others still count.
            Err(_) => continue,
        }
    }
}

/// Run `taskc gc`.
pub fn run(args: &GcArgs, ctx: &Context) -> Exit {
    let mut keep = GcKeep::default();
    let mut kept = Vec::new();
    for spec in &args.keep {
        let loaded = match load_checked(spec, ctx) {
            Ok(l) => l,
            Err(e) => {
                output::error(&format!(
                    "{}: cannot tell what it needs; nothing was removed",
                    crate::discover::display(spec)
                ));
                return e;
            }
        };
        let opts = LowerOptions {
            base_image_override: loaded.base_image_override.clone(),
            exhaustive: false,
            full: false,
            base_image_id: None,
        };
        add_plans(&mut keep, &loaded.task, &opts);
        kept.push((loaded, opts));
    }
    ctx.rt.block_on(run_async(args, keep, &kept))
}

async fn run_async(
    args: &GcArgs,
    mut keep: GcKeep,
    kept: &[(super::spec::Loaded, LowerOptions)],
) -> Exit {
    let cache = args.cache.clone().unwrap_or_else(pipeline::default_cache);
    let backend = match pipeline::open_backend(args.backend.into(), &cache).await {
        Ok((backend, note)) => {
            if let Some(note) = note {
                output::err(&format!("note: {note}\n"));
            }
            backend
        }
        Err(e) => {
            output::error(&format!(
                "{e}\n  help: start the Docker Engine, or pass `--backend local`"
            ));
            return Exit::Usage;
        }
    };
    // Images and results carry ids that fold the base image's content id in.
    for (loaded, opts) in kept {
        match pipeline::resolve_existing_base(backend.as_ref(), opts, &loaded.site, &loaded.task)
            .await
        {
            Ok(Some(resolved)) => add_plans(&mut keep, &loaded.task, &resolved),
            Ok(None) => {}
            Err(e) => {
                output::error(&format!(
                    "{}: cannot tell what it needs ({e}); nothing was removed",
                    loaded.name
                ));
                return Exit::Usage;
            }
        }
    }
    let keep = &keep;
    let report = match pipeline::gc(backend.as_ref(), &cache, keep, args.dry_run).await {
        Ok(r) => r,
        Err(e) => {
            output::error(&format!("gc: {e}"));
            return Exit::Usage;
        }
    };
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let mut text = String::new();
    for item in &report.removed {
        text.push_str(&format!("{verb} {item}\n"));
    }
    for (item, why) in &report.skipped {
        text.push_str(&format!("kept {item}: {why}\n"));
    }
    text.push_str(&format!(
        "{verb} {} object(s){}\n",
        report.removed.len(),
        if report.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} could not be removed", report.skipped.len())
        }
    ));
    output::out(&text);
    Exit::Success
}
