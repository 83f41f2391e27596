//! Loading one spec for the commands that go past `check` (verify, score, workspace):
//! read it, check it (printing every diagnostic), and find the project settings that apply.

use std::path::{Path, PathBuf};

use taskc_compiler::check::check_spec;
use taskc_compiler::model::Task;
use taskc_runtime::fs_loader::FsLoader;
use taskc_runtime::pipeline::Site;
use taskc_runtime::repo::{Rewrites, UrlRewrite};

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
    let checked = check_spec(&name, &bytes, &FsLoader::new(&dir));
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
    let (base_image_override, site) = project_settings(&dir)?;
    Ok(Loaded {
        name,
        path: path.to_path_buf(),
        dir,
        task,
        base_image_override,
        site,
    })
}

/// `[images] base = "…"` from the nearest `taskc.toml` in the spec's folder or above.
pub fn project_base_image(dir: &Path) -> Result<Option<String>, Exit> {
    Ok(project_settings(dir)?.0)
}

/// `[images] base` and the site settings (`[sources] rewrite`, `[images] ca_certificates`)
/// of the nearest `taskc.toml` in the spec's folder or above; relative paths in it are taken
/// from its folder.
pub fn project_settings(dir: &Path) -> Result<(Option<String>, Site), Exit> {
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
        let site = site_settings(&value, d).map_err(|msg| {
            output::error(&format!(
                "{}: {msg}\n  help: see docs/cli.md, section `taskc.toml`",
                f.display()
            ));
            Exit::Usage
        })?;
        return Ok((base, site));
    }
    Ok((None, Site::default()))
}

/// `[sources] rewrite = [{ prefix = "…", to = "…" }, …]` and
/// `[images] ca_certificates = ["…", …]` of a parsed `taskc.toml` in folder `dir`.
fn site_settings(value: &toml::Value, dir: &Path) -> Result<Site, String> {
    let mut rules = Vec::new();
    if let Some(list) = value.get("sources").and_then(|s| s.get("rewrite")) {
        let items = list
            .as_array()
            .ok_or("`[sources] rewrite` must be a list of `{ prefix = \"…\", to = \"…\" }`")?;
        for (i, item) in items.iter().enumerate() {
            let field = |key: &str| {
                item.get(key)
                    .and_then(toml::Value::as_str)
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
                    .ok_or(format!(
                        "`[sources] rewrite` item {} needs a non-empty string `{key}`",
                        i + 1
                    ))
            };
            rules.push(UrlRewrite {
                prefix: field("prefix")?,
                to: field("to")?,
            });
        }
    }
    let mut ca_certificates = Vec::new();
    if let Some(list) = value.get("images").and_then(|s| s.get("ca_certificates")) {
        let items = list
            .as_array()
            .ok_or("`[images] ca_certificates` must be a list of file paths")?;
        for item in items {
            let path = item
                .as_str()
                .ok_or("`[images] ca_certificates` must be a list of file paths")?;
            ca_certificates.push(dir.join(path));
        }
    }
    Ok(Site {
        rewrites: Rewrites::new(rules, dir),
        ca_certificates,
    })
}
