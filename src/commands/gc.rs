//! `taskc gc [--backend …] [--dry-run] [--keep SPEC...]`: remove this cache's stale taskc
//! containers, taskc images and local image folders no kept spec's plans reference (the
//! base image `taskc/base:*` always stays), and stored results of runs no kept spec has.
//! Objects of other caches and of running sessions stay. Prints what was (or, with
//! `--dry-run`, would be) removed, and what was left alone.

use std::path::PathBuf;

use taskc_runtime::pipeline::{self, GcOptions, PipelineError};

use super::spec::load_checked;
use super::verify::BackendArg;
use super::Context;
use crate::error::{report, CliError};
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
    /// Specs (or folders of specs) whose images and verification results stay.
    #[arg(long, num_args = 1..)]
    pub keep: Vec<PathBuf>,
}

/// Run `taskc gc`.
pub fn run(args: &GcArgs, ctx: &Context) -> Result<Exit, CliError> {
    let cache = pipeline::cache_or_default(args.cache.as_deref());
    let mut kept = Vec::new();
    // Folders of specs keep every spec below them; without `--keep`, nothing is kept.
    let (files, exit) = if args.keep.is_empty() {
        (Vec::new(), Exit::Success)
    } else {
        super::spec::spec_files(&args.keep)
    };
    if exit != Exit::Success {
        output::error("cannot tell what the kept specs need; nothing was removed");
        return Err(CliError::Shown(exit));
    }
    for spec in &files {
        let loaded = load_checked(spec, &cache, ctx).map_err(|e| {
            let exit = report(&e);
            output::error(&format!(
                "{}: cannot tell what it needs; nothing was removed",
                crate::discover::display(spec)
            ));
            CliError::Shown(exit)
        })?;
        kept.push(loaded);
    }
    let opts = GcOptions {
        backend: args.backend.into(),
        cache: Some(cache),
        dry_run: args.dry_run,
    };
    let outcome = ctx
        .rt
        .block_on(pipeline::collect_garbage(&opts, &kept))
        .map_err(|e| match e {
            e @ PipelineError::Keep(_) => CliError::pipeline(String::new(), e),
            e => CliError::pipeline("gc", e),
        })?;
    if let Some(note) = outcome.note {
        output::err(&format!("note: {note}\n"));
    }
    let done = outcome.report;
    let verb = if args.dry_run {
        "would remove"
    } else {
        "removed"
    };
    let mut text = String::new();
    for item in &done.removed {
        text.push_str(&format!("{verb} {item}\n"));
    }
    for (item, why) in &done.skipped {
        text.push_str(&format!("kept {item}: {why}\n"));
    }
    for what in &done.left_alone {
        text.push_str(&format!("left alone {what}\n"));
    }
    text.push_str(&format!(
        "{verb} {} object(s){}\n",
        done.removed.len(),
        if done.skipped.is_empty() {
            String::new()
        } else {
            format!(", {} could not be removed", done.skipped.len())
        }
    ));
    output::out(&text);
    Ok(Exit::Success)
}
