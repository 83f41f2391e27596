//! `-q` / `-v` of `verify` and `score`: how much progress a human run prints on stderr.
//! `-q`: no progress at all (errors, warnings and the command's notes still print); `-v`: a
//! line per finished run, also on a terminal (where the default is a bar); neither: a bar on
//! a terminal, a line per finished run with counts otherwise. `--format json` keeps its JSON
//! events whatever these say.

use taskc_runtime::pipeline::ProgressStyle;

/// `-q` / `-v`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct VerbosityArgs {
    /// No progress on stderr (errors, warnings and notes still print).
    #[arg(long, short = 'q', conflicts_with = "verbose")]
    pub quiet: bool,
    /// A line per finished run on stderr, also on a terminal (instead of a bar).
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

impl VerbosityArgs {
    /// The progress style of a human-format run.
    pub fn human_progress(&self) -> ProgressStyle {
        if self.quiet {
            ProgressStyle::Quiet
        } else if self.verbose {
            ProgressStyle::Lines
        } else {
            super::verify::human_progress()
        }
    }
}
