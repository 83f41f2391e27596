//! Loading one spec for the commands that go past `check` (plan, diff, verify, score,
//! workspace, gc): read it, check it (printing every diagnostic), and find the project
//! settings that apply.

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::pipeline::{CheckedSpec, Project};

use super::check::spec_dir;
use super::Context;
use crate::discover::{display, io_message};
use crate::error::CliError;
use crate::exit::Exit;
use crate::output;
use crate::render::human;

/// Read and check `path`, reading `git` sources' mirrors from `cache`; print its
/// diagnostics.
pub fn load_checked(path: &Path, cache: &Path, ctx: &Context) -> Result<CheckedSpec, CliError> {
    let name = display(path);
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::usage(format!("{name}: cannot read: {}", io_message(&e))))?;
    let dir = spec_dir(path);
    let project = project(&dir)?;
    let loader = FsLoader::new(&dir)
        .with_cache(cache)
        .with_rewrites(project.site.rewrites.clone());
    let Some(task) = check_rendered(&name, &bytes, &loader, ctx, Print::All) else {
        return Err(CliError::Findings {
            message: format!("{name}: the spec has errors; fix them (see `taskc check {name}`)"),
        });
    };
    Ok(CheckedSpec {
        name,
        path: path.to_path_buf(),
        dir,
        task,
        base_image_override: project.base_image,
        site: project.site,
    })
}

/// Which diagnostics [`check_rendered`] prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Print {
    All,
    Errors,
}

/// Check `bytes` (named `name`) over `loader`, print its diagnostics; the task when it has
/// no errors.
pub fn check_rendered(
    name: &str,
    bytes: &[u8],
    loader: &FsLoader,
    ctx: &Context,
    print: Print,
) -> Option<Task> {
    let checked = check_spec(name, bytes, loader);
    let renderer = human::Human::new(ctx.color);
    for d in checked.diagnostics.clone().sorted() {
        if print == Print::All || d.is_error() {
            output::err(&format!("{}\n", renderer.render(&d, &checked.sources)));
        }
    }
    checked.task.filter(|_| !checked.diagnostics.has_errors())
}

/// The nearest `taskc.toml` of the spec folder `dir`, its warnings printed (once); a
/// malformed file is a usage error (exit 2) from every command that reads specs.
pub fn project(dir: &Path) -> Result<Project, CliError> {
    let p = Project::find(dir).map_err(|e| CliError::Project(Box::new(e)))?;
    for w in &p.warnings {
        output::once(&format!("warning: {w}\n"));
    }
    Ok(p)
}

/// The spec files named by `paths`, folders searched as `taskc check` searches them; every
/// path that cannot be used is reported. `Err` when nothing usable was named.
pub fn spec_files(paths: &[PathBuf]) -> (Vec<PathBuf>, Exit) {
    let (files, problems) = crate::discover::discover(paths);
    let mut exit = Exit::Success;
    for p in &problems {
        output::error(&p.to_string());
        exit = Exit::Usage;
    }
    if files.is_empty() && problems.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| display(p)).collect();
        output::error(&format!(
            "no `.task` files found in {}\n  help: name a spec file or a folder that holds one",
            names.join(", ")
        ));
        exit = Exit::Usage;
    }
    (files, exit)
}

/// The one spec named by `path`: a file, or a folder holding exactly one `.task` file.
pub fn one_spec(path: &Path) -> Result<PathBuf, CliError> {
    let (files, exit) = spec_files(std::slice::from_ref(&path.to_path_buf()));
    match files.as_slice() {
        [one] if exit == Exit::Success => Ok(one.clone()),
        [] => Err(CliError::Shown(Exit::Usage)),
        many => {
            let names: Vec<String> = many.iter().map(|p| display(p)).collect();
            Err(CliError::usage(format!(
                "{} holds {} specs ({}); name one of them",
                display(path),
                many.len(),
                names.join(", ")
            )))
        }
    }
}
