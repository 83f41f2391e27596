//! `taskc image bootstrap [--force]`: build the base image every environment image starts
//! from, with debootstrap (no registry needed).

use std::path::PathBuf;

use taskc_runtime::bootstrap::{bootstrap_base_image, BootstrapOptions};

use super::Context;
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// Arguments of `taskc image`.
#[derive(Debug, clap::Args)]
pub struct ImageArgs {
    #[command(subcommand)]
    pub command: ImageCommand,
}

/// `taskc image` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ImageCommand {
    /// Build `taskc/base:bookworm` with debootstrap and import it into Docker (needs root
    /// and `debootstrap`); does nothing if it exists with the same content id.
    Bootstrap(BootstrapArgs),
}

/// Arguments of `taskc image bootstrap`.
#[derive(Debug, clap::Args)]
pub struct BootstrapArgs {
    /// Rebuild even if the image exists.
    #[arg(long)]
    pub force: bool,
    /// Debian mirror (default: http://deb.debian.org/debian).
    #[arg(long)]
    pub mirror: Option<String>,
    /// Folder for the temporary root file system (default: the system temp folder).
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// A CA certificate file (PEM) to add to the image's trust store (repeatable), for
    /// builds behind a TLS-intercepting proxy; its bytes enter the content id.
    #[arg(long = "ca-cert", value_name = "FILE")]
    pub ca_certs: Vec<PathBuf>,
    /// The image tag to create (default: taskc/base:bookworm; name another in `taskc.toml`
    /// `[images] base`).
    #[arg(long)]
    pub tag: Option<String>,
}

/// Run `taskc image …`.
pub fn run(args: &ImageArgs, ctx: &Context) -> Result<Exit, CliError> {
    match &args.command {
        ImageCommand::Bootstrap(b) => bootstrap(b, ctx),
    }
}

fn bootstrap(args: &BootstrapArgs, ctx: &Context) -> Result<Exit, CliError> {
    let mut opts = BootstrapOptions {
        force: args.force,
        work_dir: args.work_dir.clone(),
        ..BootstrapOptions::default()
    };
    if let Some(mirror) = &args.mirror {
        opts.mirror = mirror.clone();
    }
    if let Some(tag) = &args.tag {
        opts.tag = tag.clone();
    }
    opts.ca_certificates = args.ca_certs.clone();
    output::err(&format!(
        "{}: reused if present with the same content id, else built with debootstrap \
         (a few minutes) ...\n",
        opts.tag
    ));
    match ctx.rt.block_on(bootstrap_base_image(&opts)) {
        Ok(info) => {
            let what = if info.reused {
                "already present, reused"
            } else {
                "built"
            };
            output::out(&format!(
                "{} {what} in {:.1}s\n  image id:   {}\n  content id: {}\n  packages:   {}\n",
                info.tag,
                info.duration.as_secs_f64(),
                info.image_id,
                info.content_id,
                info.packages.join(", ")
            ));
            for (name, took) in &info.phases {
                output::out(&format!("  {name:<12}{:.1}s\n", took.as_secs_f64()));
            }
            Ok(Exit::Success)
        }
        Err(e) => Err(CliError::Usage {
            message: e.to_string(),
            hint: e.hint(),
        }),
    }
}
