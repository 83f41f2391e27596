//! `taskc diff OLD NEW` and `taskc diff --git REV SPEC`: the semantic diff of two versions
//! of a spec and what it invalidates, as Markdown (for a PR comment) or JSON.

use std::path::{Path, PathBuf};
use std::process::Command;

use taskc_compiler::check::check_spec;
use taskc_compiler::diff::diff_tasks;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;

use super::spec::load_checked;
use super::Context;
use crate::exit::Exit;
use crate::output;
use crate::render::human;

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

/// A temporary folder removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// Check the version of `spec` at `rev`: extract its folder at `rev` into a temp folder.
fn load_at_rev(spec: &Path, rev: &str, ctx: &Context) -> Result<Task, Exit> {
    let usage = |m: String| {
        output::error(&m);
        Exit::Usage
    };
    let dir = super::check::spec_dir(spec);
    let file = spec
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| usage(format!("{}: not a file", spec.display())))?;
    let prefix = git(&dir, &["rev-parse", "--show-prefix"]).map_err(usage)?;
    let prefix = String::from_utf8_lossy(&prefix).trim().to_string();
    let tree = format!("{rev}:{prefix}");
    // From the top level: inside a subfolder, `git archive` limits paths to that folder.
    let top = git(&dir, &["rev-parse", "--show-toplevel"]).map_err(usage)?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let tar = git(&top, &["archive", "--format=tar", &tree]).map_err(usage)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let tmp =
        TempDir(std::env::temp_dir().join(format!("taskc-diff-{}-{nanos}", std::process::id())));
    std::fs::create_dir_all(&tmp.0)
        .map_err(|e| usage(format!("cannot create a temp folder: {e}")))?;
    let mut child = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(&tmp.0)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| usage(format!("cannot run tar: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(&tar)
            .map_err(|e| usage(format!("cannot extract {tree}: {e}")))?;
    }
    let status = child
        .wait()
        .map_err(|e| usage(format!("tar failed: {e}")))?;
    if !status.success() {
        return Err(usage(format!("cannot extract {tree}")));
    }
    let name = format!("{rev}:{prefix}{file}");
    let bytes = std::fs::read(tmp.0.join(&file))
        .map_err(|_| usage(format!("{name}: the spec does not exist at {rev}")))?;
    let checked = check_spec(&name, &bytes, &FsLoader::new(&tmp.0));
    let renderer = human::Human::new(ctx.color);
    for d in checked.diagnostics.clone().sorted() {
        if d.is_error() {
            output::err(&format!("{}\n", renderer.render(&d, &checked.sources)));
        }
    }
    match checked.task.filter(|_| !checked.diagnostics.has_errors()) {
        Some(t) => Ok(t),
        None => {
            output::error(&format!("{name}: the old spec has errors; cannot diff it"));
            Err(Exit::Findings)
        }
    }
}

/// Run `taskc diff`.
pub fn run(args: &DiffArgs, ctx: &Context) -> Exit {
    let (old, new, base) = match (&args.git, args.specs.as_slice()) {
        (Some(rev), [spec]) => {
            let new = match load_checked(spec, ctx) {
                Ok(l) => l,
                Err(e) => return e,
            };
            let old = match load_at_rev(spec, rev, ctx) {
                Ok(t) => t,
                Err(e) => return e,
            };
            (old, new.task, new.base_image_override)
        }
        (None, [old, new]) => {
            let old = match load_checked(old, ctx) {
                Ok(l) => l,
                Err(e) => return e,
            };
            let new = match load_checked(new, ctx) {
                Ok(l) => l,
                Err(e) => return e,
            };
            (old.task, new.task, new.base_image_override)
        }
        (Some(_), _) => {
            output::error("`taskc diff --git REV` takes one SPEC");
            return Exit::Usage;
        }
        (None, _) => {
            output::error("`taskc diff` takes OLD and NEW specs, or `--git REV SPEC`");
            return Exit::Usage;
        }
    };
    let opts = LowerOptions {
        base_image_override: base,
        exhaustive: false,
        full: false,
        base_image_id: None,
    };
    let plans = lower_verify(&old, &opts).and_then(|o| Ok((o, lower_verify(&new, &opts)?)));
    let (old_plan, new_plan) = match plans {
        Ok(p) => p,
        Err(e) => {
            output::error(&format!("cannot lower the task: {e}"));
            return Exit::Findings;
        }
    };
    let d = diff_tasks(&old, &old_plan, &new, &new_plan);
    output::out(&match args.format {
        DiffFormat::Markdown => d.to_markdown(),
        DiffFormat::Json => d.to_json_pretty(),
    });
    Exit::Success
}
