//! Loading one spec for the commands that go past `check` (verify, score, workspace):
//! read it, check it (printing every diagnostic), and find the project settings that apply.

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;

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
}

/// Read and check `path`; print its diagnostics. `Err` carries the exit code.
pub fn load_checked(path: &Path, ctx: &Context) -> Result<Loaded, Exit> {
    let name = display(path);
    let bytes = std::fs::read(path).map_err(|e| {
        output::error(&format!("{name}: cannot read: {}", io_message(&e)));
        Exit::Usage
    })?;
    let dir = spec_dir(path);
    let loader = FsLoader::new(&dir).with_cache(taskc_runtime::pipeline::default_cache());
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
    let base_image_override = project_base_image(&dir)?;
    Ok(Loaded {
        name,
        path: path.to_path_buf(),
        dir,
        task,
        base_image_override,
    })
}

/// `[images] base = "…"` from the nearest `taskc.toml` in the spec's folder or above.
pub fn project_base_image(dir: &Path) -> Result<Option<String>, Exit> {
    let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for d in start.ancestors() {
        let f = d.join("taskc.toml");
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let value: toml::Value = toml::from_str(&text).map_err(|e| {
            output::error(&format!(
                "{}: not valid TOML: {e}\n  help: see docs/cli.md, section `taskc.toml`",
                f.display()
            ));
            Exit::Usage
        })?;
        let base = value
            .get("images")
            .and_then(|i| i.get("base"))
            .and_then(|b| b.as_str())
            .map(str::to_string);
        return Ok(base);
    }
    Ok(None)
}
