//! `taskc check [PATH...]`: check specs, report every diagnostic, exit 1 on errors.

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::{Code, Severity};
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::pipeline;

use super::Context;
use crate::discover::{display, io_message};
use crate::error::{report, CliError};
use crate::exit::Exit;
use crate::output;
use crate::render::{human, json};

/// How `check` prints diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Graphical reports on stderr, then a summary line.
    Human,
    /// One JSON object per diagnostic per line on stdout.
    Json,
}

/// Arguments of `taskc check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Spec files, or folders searched recursively for `*.task` (skipping `target/` and
    /// hidden folders).
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Fail (exit 1) on warnings of the spec too. A stale lock (W0900) is not one: it is
    /// what every edit before `taskc verify` leaves, so `check --deny-warnings && verify`
    /// works; see `--deny-stale-lock`.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Fail (exit 1) when a lock is stale (W0900): the gate for a checkout whose locks must
    /// match their specs (e.g. CI after `taskc verify` was run and committed).
    #[arg(long)]
    pub deny_stale_lock: bool,

    /// Cache folder whose git mirrors `git` sources are read from at base, read-only
    /// (default: $TASKC_CACHE, else $XDG_CACHE_HOME/taskc, else ~/.cache/taskc).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}

/// Run `taskc check`.
pub fn run(args: &CheckArgs, ctx: &Context) -> Result<Exit, CliError> {
    let (files, mut exit) = super::spec::spec_files(&args.paths);

    let cache = pipeline::cache_or_default(args.cache.as_deref());
    let renderer = human::Human::new(ctx.color);
    let (mut checked, mut errors, mut warnings) = (0, 0, 0);
    // W0900 is counted with the warnings in the summary, but apart for the exit code.
    let mut stale_locks = 0;
    for path in &files {
        let name = display(path);
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                output::error(&format!("{name}: cannot read: {}", io_message(&e)));
                exit = exit.max(Exit::Usage);
                continue;
            }
        };
        let project = match super::spec::project(&spec_dir(path)) {
            Ok(p) => p,
            Err(e) => {
                exit = exit.max(report(&e));
                continue;
            }
        };
        let loader = FsLoader::new(spec_dir(path))
            .with_cache(&cache)
            .with_rewrites(project.site.rewrites.clone());
        let mut result = check_spec(&name, &bytes, &loader);
        if let Some(task) = result
            .task
            .as_ref()
            .filter(|_| !result.diagnostics.has_errors())
        {
            let base = project.base_image.clone();
            let lock = pipeline::lock_diagnostics(path, &name, task, base, &mut result.sources);
            let accepted: Vec<_> = lock.into_iter().filter(|d| !result.is_allowed(d)).collect();
            result.diagnostics.extend(accepted);
        }
        checked += 1;
        for d in result.diagnostics.sorted() {
            match d.severity() {
                Severity::Error => errors += 1,
                Severity::Warning if d.code == Code::StaleLock => {
                    warnings += 1;
                    stale_locks += 1;
                }
                Severity::Warning => warnings += 1,
                Severity::Note => {}
            }
            match args.format {
                Format::Human => {
                    output::err(&format!("{}\n", renderer.render(&d, &result.sources)))
                }
                Format::Json => {
                    output::out(&format!("{}\n", json::render(&name, &d, &result.sources)))
                }
            }
        }
    }

    if args.format == Format::Human && !files.is_empty() {
        output::err(&format!(
            "{}\n",
            human::summary("checked", checked, errors, warnings)
        ));
    }
    let spec_warnings = warnings - stale_locks;
    if errors > 0
        || (args.deny_warnings && spec_warnings > 0)
        || (args.deny_stale_lock && stale_locks > 0)
    {
        exit = exit.max(Exit::Findings);
    }
    Ok(exit)
}

/// The folder the spec's relative paths start from.
pub fn spec_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
