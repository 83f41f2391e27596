//! The process exit codes of `taskc`, in one place (documented in `docs/cli.md`).

use std::process::ExitCode;

/// How a `taskc` run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// 0: everything checked is clean (or the command succeeded).
    Success = 0,
    /// 1: a spec has errors (or warnings under `--deny-warnings`, or it cannot be lowered),
    /// `fmt --check` found a file that is not formatted, or `verify` found a task unsound.
    Findings = 1,
    /// 2: taskc could not do what was asked: bad usage, a path that does not exist, a file
    /// or folder it cannot read or write, or infrastructure (Docker, an image build) failed.
    Usage = 2,
    /// 130 (128 + SIGINT): interrupted by Ctrl-C; every finished run result was kept and
    /// a re-run resumes.
    Interrupted = 130,
    /// 143 (128 + SIGTERM): stopped by SIGTERM, with the same cleanup as Ctrl-C: the
    /// session's containers, service containers and networks removed, finished results kept.
    Terminated = 143,
}

impl Exit {
    /// The worse of two outcomes: usage errors outrank findings, findings outrank success.
    pub fn max(self, other: Exit) -> Exit {
        std::cmp::max(self, other)
    }
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e as u8)
    }
}

/// Text for `taskc --help`.
pub const HELP: &str = "\
Exit codes:
  0  success: no errors (and no warnings under --deny-warnings); files formatted;
     `verify`: every task is sound; `score`: the predictions were scored
  1  findings: a spec has errors, or warnings under --deny-warnings, or cannot be
     lowered to a plan (`plan`, `diff`, `verify`); `fmt --check` found
     files that would change; `fmt` refused a file with syntax errors; `verify`: a task
     is unsound
  2  usage, I/O or infrastructure error: bad arguments, a path that does not exist, a
     file or folder that cannot be read or written, a malformed taskc.toml, the Docker
     Engine unreachable, an image that does not build
  130 interrupted (Ctrl-C): finished runs are kept; run the command again to resume
  143 stopped by SIGTERM: the same as 130";
