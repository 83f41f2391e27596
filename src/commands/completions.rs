//! `taskc completions bash|zsh|fish`: the shell completion script on stdout.

use clap::CommandFactory;

use crate::error::CliError;
use crate::exit::Exit;
use crate::output;

/// A shell taskc writes completions for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Arguments of `taskc completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell, e.g. `taskc completions bash > /etc/bash_completion.d/taskc`.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Run `taskc completions`.
pub fn run<C: CommandFactory>(args: &CompletionsArgs) -> Result<Exit, CliError> {
    let shell = match args.shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut C::command(), "taskc", &mut script);
    output::out(&String::from_utf8_lossy(&script));
    Ok(Exit::Success)
}
