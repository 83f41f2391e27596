//! Loading one spec for the commands that go past `check` (verify, score, workspace):
//! read it, check it (printing every diagnostic), and find the project settings that apply.

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::pipeline::{Project, Site};

use super::check::spec_dir;
use super::Context;
use crate::discover::{display, io_message};
use crate::exit::Exit;
use crate::output;
use crate::render::human;

/// A spec that checked without errors.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The path as the user gave it, for messages.
    pub name: String,
    pub path: PathBuf,
    /// The spec's folder: its relative paths start here.
    pub dir: PathBuf,
    pub task: Task,
    /// `[images] base` of the nearest `taskc.toml`, if any.
    pub base_image_override: Option<String>,
    /// `[sources]` and `[images] ca_certificates` of the nearest `taskc.toml`.
    pub site: Site,
}

/// Read and check `path`; print its diagnostics. `Err` carries the exit code.
pub fn load_checked(path: &Path, ctx: &Context) -> Result<Loaded, Exit> {
    let name = display(path);
    let bytes = std::fs::read(path).map_err(|e| {
        output::error(&format!("{name}: cannot read: {}", io_message(&e)));
        Exit::Usage
    })?;
    let dir = spec_dir(path);
    let project = project(&dir)?;
    let loader = FsLoader::new(&dir)
        .with_cache(taskc_runtime::pipeline::default_cache())
        .with_rewrites(project.site.rewrites.clone());
    let checked = check_spec(&name, &bytes, &loader);
    let renderer = human::Human::new(ctx.color);
    for d in checked.diagnostics.clone().sorted() {
        output::err(&format!("{}\n", renderer.render(&d, &checked.sources)));
    }
    let Some(task) = checked.task.filter(|_| !checked.diagnostics.has_errors()) else {
        output::error(&format!(
            "{name}: the spec has errors; fix them (see `taskc check {name}`)"
        ));
        return Err(Exit::Findings);
    };
    Ok(Loaded {
        name,
        path: path.to_path_buf(),
        dir,
        task,
        base_image_override: project.base_image,
        site: project.site,
    })
}

/// The nearest `taskc.toml` of the spec folder `dir`, its warnings printed; a malformed
/// file is a usage error (exit 2) from every command that reads specs.
pub fn project(dir: &Path) -> Result<Project, Exit> {
    match Project::find(dir) {
        Ok(p) => {
            for w in &p.warnings {
                once(&format!("warning: {w}\n"));
            }
            Ok(p)
        }
        Err(e) => {
            once(&format!("error: {e}\n  help: {}\n", e.hint));
            Err(Exit::Usage)
        }
    }
}

/// Print `text` on stderr unless this process printed it already (specs of one folder
/// share their `taskc.toml`: its warnings are shown once).
fn once(text: &str) {
    static SHOWN: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let fresh = SHOWN
        .lock()
        .map(|mut s| s.insert(text.to_string()))
        .unwrap_or(true);
    if fresh {
        output::err(text);
    }
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
pub fn one_spec(path: &Path) -> Result<PathBuf, Exit> {
    let (files, exit) = spec_files(std::slice::from_ref(&path.to_path_buf()));
    match files.as_slice() {
        [one] if exit == Exit::Success => Ok(one.clone()),
        [] => Err(Exit::Usage),
        many => {
            let names: Vec<String> = many.iter().map(|p| display(p)).collect();
            output::error(&format!(
                "{} holds {} specs ({}); name one of them",
                display(path),
                many.len(),
                names.join(", ")
            ));
            Err(Exit::Usage)
        }
    }
}
