//! `taskc fmt [--check] [PATH...]`: lay specs out in the canonical format.

use std::path::{Path, PathBuf};

use taskc_compiler::syntax::decode;
use taskc_compiler::{SourceId, SourceMap};

use super::Context;
use crate::discover::{display, io_message};
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;
use crate::render::human::Human;

/// Arguments of `taskc fmt`.
#[derive(Debug, clap::Args)]
pub struct FmtArgs {
    /// Spec files, or folders searched recursively for `*.task` (skipping `target/` and
    /// hidden folders).
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Write nothing; print a unified diff of every file that would change, and exit 1 if
    /// any would.
    #[arg(long)]
    pub check: bool,
}

/// What happened to one file.
enum Outcome {
    Unchanged,
    Changed,
    /// Syntax errors (already shown): the file was left alone.
    Refused,
    /// An I/O error (already shown).
    Failed,
}

/// Run `taskc fmt`.
pub fn run(args: &FmtArgs, ctx: &Context) -> Result<Exit, CliError> {
    let (files, mut exit) = super::spec::spec_files(&args.paths);
    let renderer = Human::new(ctx.color);
    let (mut changed, mut refused) = (0, 0);
    for path in &files {
        match format_one(path, args.check, &renderer) {
            Outcome::Unchanged => {}
            Outcome::Changed => changed += 1,
            Outcome::Refused => refused += 1,
            Outcome::Failed => exit = exit.max(Exit::Usage),
        }
    }
    let n = files.len();
    let specs = if n == 1 { "spec" } else { "specs" };
    let mut line = if args.check {
        format!("checked {n} {specs}: {changed} would be reformatted")
    } else {
        format!("formatted {n} {specs}: {changed} changed")
    };
    if refused > 0 {
        line.push_str(&format!(", {refused} with syntax errors left alone"));
    }
    if n > 0 {
        output::err(&format!("{line}\n"));
    }
    if refused > 0 || (args.check && changed > 0) {
        exit = exit.max(Exit::Findings);
    }
    Ok(exit)
}

fn format_one(path: &Path, check: bool, renderer: &Human) -> Outcome {
    let name = display(path);
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            output::error(&format!("{name}: cannot read: {}", io_message(&e)));
            return Outcome::Failed;
        }
    };
    let mut sources = SourceMap::new();
    let text = match decode(SourceId(0), &bytes) {
        Ok(text) => text.to_string(),
        Err(d) => {
            // Offsets of the label still line up in the lossy text (see `decode`).
            sources.add(name.clone(), String::from_utf8_lossy(&bytes).into_owned());
            output::err(&format!("{}\n", renderer.render(&d, &sources)));
            return Outcome::Refused;
        }
    };
    let id = sources.add(name.clone(), text.clone());
    let parsed = taskc_compiler::syntax::parse(id, &text);
    if parsed.has_errors() {
        let mut ds = taskc_compiler::Diagnostics(parsed.diagnostics);
        ds = ds.sorted();
        for d in ds.iter().filter(|d| d.is_error()) {
            output::err(&format!("{}\n", renderer.render(d, &sources)));
        }
        return Outcome::Refused;
    }
    let formatted = taskc_compiler::fmt::format(&parsed.document);
    if formatted == text {
        return Outcome::Unchanged;
    }
    if check {
        output::out(&diff(&name, &text, &formatted));
        return Outcome::Changed;
    }
    match taskc_runtime::atomic::write_atomic(path, formatted.as_bytes()) {
        Ok(()) => Outcome::Changed,
        Err(e) => {
            output::error(&format!("{name}: cannot write: {}", io_message(&e)));
            Outcome::Failed
        }
    }
}

/// A unified diff from `old` to `new`, headed `--- a/<name>` / `+++ b/<name>`.
pub fn diff(name: &str, old: &str, new: &str) -> String {
    let d = similar::TextDiff::from_lines(old, new);
    let mut u = d.unified_diff();
    u.context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"));
    u.missing_newline_hint(true);
    u.to_string()
}
