//! The CLI's one error type. Every command returns `Result<Exit, CliError>`; [`report`] is
//! the one place an error becomes text on stderr (`error: …`, then `help: …` from the
//! error's hint) and an exit code (`docs/cli.md`, "Exit codes").

use taskc_compiler::lower::LowerError;
use taskc_runtime::pipeline::Signal;
use taskc_runtime::pipeline::{LockUseError, PipelineError, ProjectError};

use crate::exit::Exit;
use crate::output;

/// Why a command could not do what was asked.
#[derive(Debug)]
pub enum CliError {
    /// Bad usage or input taskc cannot use (a path, a file, an argument): exit 2.
    Usage {
        message: String,
        hint: Option<String>,
    },
    /// A spec has errors (its diagnostics were printed): exit 1.
    Findings { message: String },
    /// Already shown (a spec's diagnostics, a `taskc.toml` error printed once): its exit.
    Shown(Exit),
    /// A checked spec that cannot be lowered to a plan: exit 1 from every command.
    Lower {
        spec: String,
        error: Box<LowerError>,
    },
    /// The project's `taskc.toml` is malformed: exit 2.
    Project(Box<ProjectError>),
    /// The lock beside the spec cannot be scored against: exit 2.
    Lock {
        spec: String,
        error: Box<LockUseError>,
    },
    /// A runtime entry point failed (`context` says which spec and what for): 130 when
    /// Ctrl-C interrupted it, 1 when the task cannot be lowered, else 2.
    Pipeline {
        context: String,
        error: Box<PipelineError>,
        /// What to do about it, when the command knows better than the error.
        hint: Option<String>,
    },
}

impl CliError {
    /// A usage error (exit 2) without a hint.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError::Usage {
            message: message.into(),
            hint: None,
        }
    }

    /// A usage error (exit 2) with what to do about it.
    pub fn usage_with(message: impl Into<String>, hint: impl Into<String>) -> CliError {
        CliError::Usage {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }

    /// A runtime failure while doing `context`.
    pub fn pipeline(context: impl Into<String>, error: PipelineError) -> CliError {
        CliError::Pipeline {
            context: context.into(),
            error: Box::new(error),
            hint: None,
        }
    }

    /// A runtime failure opening the backend: the hint says how to get one, unless the
    /// error knows better (the swarm backend's `docker swarm init`, …).
    pub fn session(error: PipelineError, hint: &str) -> CliError {
        let hint = error.hint().is_none().then(|| hint.to_string());
        CliError::Pipeline {
            context: String::new(),
            error: Box::new(error),
            hint,
        }
    }

    /// A checked spec that cannot be lowered.
    pub fn lower(spec: impl Into<String>, error: LowerError) -> CliError {
        CliError::Lower {
            spec: spec.into(),
            error: Box::new(error),
        }
    }

    /// The exit code: the one mapping of errors to codes.
    pub fn exit(&self) -> Exit {
        match self {
            CliError::Usage { .. } | CliError::Project(_) | CliError::Lock { .. } => Exit::Usage,
            CliError::Shown(exit) => *exit,
            CliError::Lower { .. } | CliError::Findings { .. } => Exit::Findings,
            CliError::Pipeline { error, .. } if error.is_interrupted() => {
                match error.interrupted_by() {
                    Some(Signal::Terminate) => Exit::Terminated,
                    _ => Exit::Interrupted,
                }
            }
            CliError::Pipeline { error, .. } => match error.as_ref() {
                PipelineError::Lower(_) => Exit::Findings,
                _ => Exit::Usage,
            },
        }
    }

    /// What the user should do about it, if anything is known.
    pub fn hint(&self) -> Option<String> {
        match self {
            CliError::Usage { hint, .. } => hint.clone(),
            CliError::Shown(_) | CliError::Lower { .. } | CliError::Findings { .. } => None,
            CliError::Project(e) => Some(e.hint.clone()),
            CliError::Lock { spec, error } => Some(error.hint(spec)),
            CliError::Pipeline { hint, error, .. } => hint.clone().or_else(|| error.hint()),
        }
    }

    /// The message, without `error: ` and without the hint.
    pub fn message(&self) -> Option<String> {
        match self {
            CliError::Usage { message, .. } | CliError::Findings { message } => {
                Some(message.clone())
            }
            CliError::Shown(_) => None,
            CliError::Lower { spec, error } => {
                Some(format!("{spec}: cannot lower the task: {error}"))
            }
            CliError::Project(e) => Some(e.to_string()),
            CliError::Lock { error, .. } => Some(error.to_string()),
            CliError::Pipeline { context, error, .. } if context.is_empty() => {
                Some(error.to_string())
            }
            CliError::Pipeline { context, error, .. } => Some(format!("{context}: {error}")),
        }
    }

    /// `error: <message>` and `  help: <hint>` lines, or nothing when already shown.
    pub fn render(&self) -> String {
        let Some(message) = self.message() else {
            return String::new();
        };
        match self.hint() {
            Some(hint) => format!("error: {message}\n  help: {hint}\n"),
            None => format!("error: {message}\n"),
        }
    }
}

impl From<Exit> for CliError {
    fn from(exit: Exit) -> CliError {
        CliError::Shown(exit)
    }
}

/// Print `e` on stderr and return its exit code. A malformed `taskc.toml` is printed once
/// per process (the specs of one folder share it).
pub fn report(e: &CliError) -> Exit {
    let text = e.render();
    match e {
        CliError::Project(_) => output::once(&text),
        _ => output::err(&text),
    }
    e.exit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskc_runtime::exec::ExecError;

    fn io() -> PipelineError {
        PipelineError::Io {
            what: "cannot write x".into(),
            source: std::io::Error::other("disk full"),
        }
    }

    #[test]
    fn every_error_has_one_exit_code() {
        let lower = || LowerError::TooManyTargets { count: 17 };
        let cases = [
            (CliError::usage("x"), Exit::Usage),
            (
                CliError::Findings {
                    message: "x".into(),
                },
                Exit::Findings,
            ),
            (CliError::Shown(Exit::Usage), Exit::Usage),
            (CliError::lower("s", lower()), Exit::Findings),
            (
                CliError::pipeline("s", PipelineError::Lower(lower())),
                Exit::Findings,
            ),
            (
                CliError::pipeline(
                    "s",
                    PipelineError::Exec(ExecError::Interrupted {
                        finished: 3,
                        signal: Signal::Interrupt,
                    }),
                ),
                Exit::Interrupted,
            ),
            (
                CliError::pipeline(
                    "s",
                    PipelineError::Exec(ExecError::Interrupted {
                        finished: 3,
                        signal: Signal::Terminate,
                    }),
                ),
                Exit::Terminated,
            ),
            (CliError::pipeline("s", io()), Exit::Usage),
        ];
        for (e, exit) in cases {
            assert_eq!(e.exit(), exit, "{e:?}");
        }
    }

    #[test]
    fn the_hint_is_rendered_as_help_once_and_shown_errors_are_not_repeated() {
        let e = CliError::usage_with("s: cannot read", "name a file");
        assert_eq!(e.render(), "error: s: cannot read\n  help: name a file\n");
        assert_eq!(
            CliError::pipeline("s: verification could not run", io()).render(),
            "error: s: verification could not run: cannot write x: disk full\n"
        );
        assert_eq!(CliError::Shown(Exit::Findings).render(), "");
    }
}
