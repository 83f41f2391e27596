//! `taskc import wideswe CASE_DIR… --out DIR` and `taskc import swebench FILE --out DIR`:
//! other benchmarks' tasks become taskc task folders (docs/import.md). A thin layer over
//! `taskc_runtime::import`: every diagnostic is printed with its file, line and column, then
//! the summary table; exit 1 when a case failed.

use std::path::PathBuf;

use taskc_runtime::import::{self, wideswe, ImportOptions, ImportReport};

use super::Context;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;
use crate::render::human;

/// Arguments of `taskc import`.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(subcommand)]
    pub format: ImportFormat,
}

/// Where the tasks come from.
#[derive(Debug, clap::Subcommand)]
pub enum ImportFormat {
    /// WideSWE case folders (`cases/<ecosystem>/<case_id>/`), or a WideSWE checkout and the
    /// cases to take from it (`ROOT [CASE…]`; all when none is named).
    Wideswe {
        /// Case folders, or a checkout root followed by case ids; each becomes `<out>/<case_id>/`.
        #[arg(required = true)]
        cases: Vec<PathBuf>,
        #[command(flatten)]
        common: CommonArgs,
    },
    /// A SWE-bench instances file (a JSON array or JSON lines).
    Swebench {
        /// The instances file.
        instances: PathBuf,
        #[command(flatten)]
        common: CommonArgs,
    },
}

/// Options every import takes.
#[derive(Debug, clap::Args)]
pub struct CommonArgs {
    /// Folder that receives one folder per task.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace task folders that already exist.
    #[arg(long)]
    pub force: bool,
    /// Rebase the case's Dockerfile `FROM` onto this image (WideSWE), or build the
    /// SWE-bench environment on it (default: the recipe's, `taskc/base:bookworm`).
    #[arg(long)]
    pub base_image: Option<String>,
    /// Write the per-case table (status, runners, parsers, images, services, notes) to FILE:
    /// Markdown when it ends in `.md`, else JSON. May be given twice.
    #[arg(long, value_name = "FILE")]
    pub report: Vec<PathBuf>,
}

impl CommonArgs {
    fn options(&self, root: Option<PathBuf>) -> ImportOptions {
        ImportOptions {
            out: self.out.clone(),
            force: self.force,
            base_image: self.base_image.clone(),
            root,
        }
    }
}

/// Run `taskc import`.
pub fn run(args: &ImportArgs, ctx: &Context) -> Result<Exit, CliError> {
    let (report, common) = match &args.format {
        ImportFormat::Wideswe { cases, common } => (
            wideswe::import_paths(cases, &common.options(None)).map_err(|e| {
                CliError::usage_with(
                    e,
                    "name WideSWE case folders (cases/<ecosystem>/<case_id>), or a checkout and its case ids",
                )
            })?,
            common,
        ),
        ImportFormat::Swebench { instances, common } => (
            import::swebench::import_file(instances, &common.options(None))
                .map_err(|e| CliError::usage(format!("{}: {e}", instances.display())))?,
            common,
        ),
    };
    for file in &common.report {
        let text = if file.extension().is_some_and(|e| e == "md") {
            report.to_markdown()
        } else {
            report.to_json()
        };
        std::fs::write(file, text).map_err(|e| {
            CliError::usage(format!("{}: cannot write the report: {e}", file.display()))
        })?;
    }
    Ok(print(&report, ctx))
}

fn print(report: &ImportReport, ctx: &Context) -> Exit {
    let renderer = human::Human::new(ctx.color);
    for case in &report.cases {
        for d in &case.diagnostics {
            output::err(&format!("{}\n", renderer.render(d, &case.sources)));
        }
    }
    output::out(&report.table());
    let (_, _, failed) = report.counts();
    if failed > 0 {
        Exit::Findings
    } else {
        Exit::Success
    }
}
