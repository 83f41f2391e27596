//! One file per subcommand, plus what they share.

pub mod check;
pub mod collect;
pub mod completions;
pub mod diff;
pub mod export;
pub mod fmt;
pub mod gc;
pub mod image;
pub mod import;
pub mod oracle;
pub mod plan;
pub mod score;
pub mod spec;
pub mod verbosity;
pub mod verify;
pub mod workspace;

use std::io::IsTerminal;

/// The `--color` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Options every command shares, resolved once, and the process's one async runtime.
#[derive(Debug, Clone)]
pub struct Context {
    /// Colour diagnostics written to stderr.
    pub color: bool,
    /// The one tokio runtime of this process: every command that talks to a backend runs
    /// on it.
    pub rt: std::sync::Arc<tokio::runtime::Runtime>,
}

impl Context {
    /// Resolve `--color auto` against the terminal and `NO_COLOR`.
    pub fn new(color: ColorChoice, rt: tokio::runtime::Runtime) -> Context {
        let color = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stderr().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Context {
            color,
            rt: std::sync::Arc::new(rt),
        }
    }
}
