//! Exporting what an agent gets: the workspace plan's repositories materialised at base (one
//! synthetic commit each, no history, no gold patch, no hidden test), the prompt, and a
//! `.taskc-workspace.json` that `taskc collect` reads back.
//!
//! Joint: `<out>/<repo>/` for every repository. Independent: `<out>/<target>/<repo>/` per
//! target, with that target and the context repositories. Each workspace folder also holds
//! `PROMPT.md` and `.taskc-workspace.json`, and `SETUP.md` when a repository has `setup`
//! commands (what the task image did to the trees, which the agent needs outside it).

use std::path::{Path, PathBuf};

use serde::Serialize;
use taskc_compiler::model::Role;
use taskc_compiler::model::Task;
use taskc_compiler::plan::{Plan, PlanBody, PlanKind, Workspace, WorkspaceMode};

use super::{PipelineError, Session, Site};
use crate::predictions::collect::WORKSPACE_FILE;
use crate::repo::{materialize, RepoSource};

/// The prompt file written at the top of every workspace.
pub const PROMPT_FILE: &str = "PROMPT.md";

/// Written beside the prompt when a repository of the workspace has `setup` commands: what
/// the task image did to the trees (e.g. a `.cargo/config.toml` with a `[patch.crates-io]`
/// path to another repository) that an agent building outside the image must do too.
pub const SETUP_FILE: &str = "SETUP.md";

/// One exported workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportedWorkspace {
    /// `all` (joint) or the target's name (independent).
    pub name: String,
    /// The folder holding `<repo>/`, `PROMPT.md` and `.taskc-workspace.json`.
    pub dir: PathBuf,
    pub repos: Vec<ExportedRepo>,
}

/// One repository of an exported workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExportedRepo {
    pub name: String,
    pub role: Role,
    /// The synthetic base commit (the same as in the task image).
    pub commit: String,
}

/// The content of `.taskc-workspace.json`.
#[derive(Serialize)]
struct Manifest<'a> {
    task: &'a str,
    mode: WorkspaceMode,
    workspace: &'a str,
    repos: &'a [ExportedRepo],
    /// Per repository with `setup`: its commands, as the task image ran them in
    /// `/work/<repo>` (`SETUP.md` says how to run them here).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    setup: std::collections::BTreeMap<&'a str, &'a [String]>,
}

/// `SETUP.md`: each repository's `setup` commands (the spec's, never gold or hidden tests)
/// and where the image ran them; `None` when no repository has any.
fn setup_text(setup: &std::collections::BTreeMap<&str, &[String]>) -> Option<String> {
    if setup.is_empty() {
        return None;
    }
    let mut s = String::from(
        "# Setting the repositories up\n\n\
         In the task's image every repository is at `/work/<name>`, and the commands below ran \
         there, in order, after all repositories were in place (before you got them). They may \
         wire repositories to each other (a `.cargo/config.toml` with a `[patch.crates-io]` \
         path, an editable install, a `replace` directive): to build and test outside the \
         image, run them from `<name>/` in this folder, where a path `/work/<other>` in them \
         is `../<other>`. Files they create are not part of your change unless you edit them.\n",
    );
    for (repo, commands) in setup {
        s.push_str(&format!(
            "\n## {repo} (`/work/{repo}` in the image)\n\n```sh\n"
        ));
        for c in *commands {
            s.push_str(c);
            s.push('\n');
        }
        s.push_str("```\n");
    }
    Some(s)
}

/// Export the workspaces of `plan` (a workspace plan of `task`) into `out`, which must be
/// absent or empty: never writes over a user's files. Repositories are materialised from
/// the spec's sources relative to `spec_dir`, with mirrors under `cache`. On failure,
/// everything written into `out` is removed again.
pub fn export_workspaces(
    plan: &Plan,
    task: &Task,
    spec_dir: &Path,
    site: &Site,
    cache: &Path,
    out: &Path,
) -> Result<Vec<ExportedWorkspace>, PipelineError> {
    let PlanBody::Workspace { workspace: ws } = &plan.body else {
        return Err(PipelineError::PlanKind {
            expected: PlanKind::Workspace,
            found: plan.kind(),
        });
    };
    let created = prepare_out(out)?;
    let result = ws
        .workspaces
        .iter()
        .map(|w| {
            let dir = match ws.mode {
                WorkspaceMode::Joint => out.to_path_buf(),
                WorkspaceMode::Independent => out.join(&w.name),
            };
            export_one(plan, task, w, ws.mode, (spec_dir, site), cache, &dir)
        })
        .collect::<Result<Vec<_>, _>>();
    if result.is_err() {
        clean_out(out, created);
    }
    result
}

/// Build the task image of `plan` on the session's backend and give it the name `tag`, so
/// an agent harness can start it (`docker run <tag>`). Returns the content-addressed task
/// image tag. A backend without named images (local) refuses once the image is built.
pub async fn tag_task_image(
    session: &Session,
    plan: &Plan,
    task: &Task,
    spec_dir: &Path,
    site: &Site,
    tag: &str,
) -> Result<String, PipelineError> {
    // The images of `plan`, with the base image resolved on the backend (its content id
    // enters the image ids; the site's CA certificates are layered on it).
    let lower = taskc_compiler::lower::LowerOptions {
        base_image_override: Some(plan.images.environment.base_image.clone()),
        ..Default::default()
    };
    let lower = super::resolve_base(session, &lower, site, task).await?;
    let plan = &taskc_compiler::lower::lower_workspace(task, &lower, WorkspaceMode::Joint)?;
    let built = super::prepare_images(session, plan, task, spec_dir, site).await?;
    session.backend.tag_image(&built, tag).await?;
    Ok(built)
}

fn export_one(
    plan: &Plan,
    task: &Task,
    w: &Workspace,
    mode: WorkspaceMode,
    (spec_dir, site): (&Path, &Site),
    cache: &Path,
    dir: &Path,
) -> Result<ExportedWorkspace, PipelineError> {
    let io = |what: String| move |source| PipelineError::Io { what, source };
    std::fs::create_dir_all(dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let mut repos = Vec::new();
    for r in &w.repos {
        let Some(repo) = task.repo(&r.name) else {
            return Err(PipelineError::Io {
                what: format!("workspace `{}`", w.name),
                source: std::io::Error::other(format!("the task has no repository `{}`", r.name)),
            });
        };
        let source = RepoSource::resolve(&repo.source, spec_dir, &site.rewrites);
        let m = materialize(&source, repo.base.as_deref(), &dir.join(&r.name), cache).map_err(
            |source| PipelineError::Repo {
                repo: r.name.clone(),
                source,
            },
        )?;
        repos.push(ExportedRepo {
            name: r.name.clone(),
            role: r.role,
            commit: m.commit,
        });
    }
    let prompt = plan.blobs.get(&w.prompt).cloned().unwrap_or_default();
    let prompt_path = dir.join(PROMPT_FILE);
    crate::atomic::write_atomic(&prompt_path, prompt.as_bytes())
        .map_err(io(format!("cannot write {}", prompt_path.display())))?;
    let setup: std::collections::BTreeMap<&str, &[String]> = w
        .repos
        .iter()
        .filter_map(|r| task.repo(&r.name))
        .filter(|r| !r.setup.is_empty())
        .map(|r| (r.name.as_str(), r.setup.as_slice()))
        .collect();
    if let Some(text) = setup_text(&setup) {
        let path = dir.join(SETUP_FILE);
        crate::atomic::write_atomic(&path, text.as_bytes())
            .map_err(io(format!("cannot write {}", path.display())))?;
    }
    let manifest = Manifest {
        task: &plan.task.id,
        mode,
        workspace: &w.name,
        repos: &repos,
        setup,
    };
    let json = serde_json::to_string_pretty(&manifest).map_err(|e| PipelineError::Io {
        what: "cannot encode the workspace file".into(),
        source: std::io::Error::other(e),
    })?;
    let manifest_path = dir.join(WORKSPACE_FILE);
    crate::atomic::write_atomic(&manifest_path, format!("{json}\n").as_bytes())
        .map_err(io(format!("cannot write {}", manifest_path.display())))?;
    Ok(ExportedWorkspace {
        name: w.name.clone(),
        dir: dir.to_path_buf(),
        repos,
    })
}

/// Check that `out` is absent or an empty folder, and create it; returns whether it was
/// created (so a failed export can remove it again).
fn prepare_out(out: &Path) -> Result<bool, PipelineError> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(PipelineError::Io {
                    what: format!("cannot export into {}", out.display()),
                    source: std::io::Error::other(
                        "the folder is not empty; pass a new or empty folder to --out \
                         (taskc never writes over existing files)",
                    ),
                });
            }
            Ok(false)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(out).map_err(|source| PipelineError::Io {
                what: format!("cannot create {}", out.display()),
                source,
            })?;
            Ok(true)
        }
        Err(source) => Err(PipelineError::Io {
            what: format!("cannot read {}", out.display()),
            source,
        }),
    }
}

/// Remove what a failed export wrote: `out` was empty before, so all of its content.
fn clean_out(out: &Path, created: bool) {
    if created {
        let _ = std::fs::remove_dir_all(out);
        return;
    }
    if let Ok(entries) = std::fs::read_dir(out) {
        for e in entries.flatten() {
            let p = e.path();
            let _ = if p.is_dir() && !e.file_type().is_ok_and(|t| t.is_symlink()) {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_empty_folder_is_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mine.txt"), "keep me").unwrap();
        let err = prepare_out(dir.path()).unwrap_err();
        assert!(err.to_string().contains("cannot export into"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("mine.txt")).unwrap(),
            "keep me"
        );
    }
}
