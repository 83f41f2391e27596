//! `taskc diff OLD NEW` and `taskc diff --git REV SPEC`: the semantic diff of two versions
//! of a spec and what it invalidates, as Markdown (for a PR comment) or JSON.

use std::path::{Path, PathBuf};

use taskc_compiler::diff::diff_tasks;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::pipeline;

use super::spec::{check_rendered, load_checked, Print};
use super::Context;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Output format of `taskc diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Markdown,
    Json,
}

/// Arguments of `taskc diff`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// OLD and NEW specs; with `--git REV`, the one SPEC (its old version is read from REV).
    #[arg(required = true, num_args = 1..=2, value_name = "SPEC")]
    pub specs: Vec<PathBuf>,
    /// Compare SPEC with its version (and its folder's files) at git revision REV.
    #[arg(long, value_name = "REV")]
    pub git: Option<String>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Markdown)]
    pub format: DiffFormat,
}

/// Check the version of `spec` at `rev` (its folder extracted by the runtime).
fn load_at_rev(spec: &Path, rev: &str, ctx: &Context) -> Result<Task, CliError> {
    let old =
        pipeline::spec_at_revision(spec, rev).map_err(|e| CliError::pipeline(String::new(), e))?;
    check_rendered(
        &old.name,
        &old.bytes,
        &FsLoader::new(&old.dir),
        ctx,
        Print::Errors,
    )
    .ok_or_else(|| CliError::Findings {
        message: format!("{}: the old spec has errors; cannot diff it", old.name),
    })
}

/// Run `taskc diff`.
pub fn run(args: &DiffArgs, ctx: &Context) -> Result<Exit, CliError> {
    let cache = pipeline::default_cache();
    let (old, new, base) = match (&args.git, args.specs.as_slice()) {
        (Some(rev), [spec]) => {
            let spec = &super::spec::one_spec(spec)?;
            let new = load_checked(spec, &cache, ctx)?;
            let old = load_at_rev(spec, rev, ctx)?;
            (old, new.task, new.base_image_override)
        }
        (None, [old, new]) => {
            let old = load_checked(&super::spec::one_spec(old)?, &cache, ctx)?;
            let new = load_checked(&super::spec::one_spec(new)?, &cache, ctx)?;
            (old.task, new.task, new.base_image_override)
        }
        (Some(_), _) => return Err(CliError::usage("`taskc diff --git REV` takes one SPEC")),
        (None, _) => {
            return Err(CliError::usage(
                "`taskc diff` takes OLD and NEW specs, or `--git REV SPEC`",
            ))
        }
    };
    let opts = LowerOptions {
        base_image_override: base,
        exhaustive: false,
        full: false,
        base_image_id: None,
        stand_ins: Default::default(),
        base_digests: Default::default(),
        image_ids: Default::default(),
    };
    let lower = |task: &Task| {
        lower_verify(task, &opts).map_err(|error| CliError::lower(task.id.clone(), error))
    };
    let (old_plan, new_plan) = (lower(&old)?, lower(&new)?);
    let d = diff_tasks(&old, &old_plan, &new, &new_plan);
    output::out(&match args.format {
        DiffFormat::Markdown => d.to_markdown(),
        DiffFormat::Json => d.to_json_pretty(),
    });
    Ok(Exit::Success)
}
