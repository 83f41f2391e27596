//! The workspace plan: what an agent is given.

use crate::model::Role;
use crate::plan::{Plan, PlanBody, Workspace, WorkspaceMode, WorkspacePlan, WorkspaceRepo};

use super::prepare::Prepared;
use super::task_image::repo_path;

pub(crate) fn lower(prep: Prepared<'_>, mode: WorkspaceMode) -> Plan {
    let repo = |r: &crate::model::Repo| WorkspaceRepo {
        name: r.name.clone(),
        role: r.role,
        path: repo_path(&r.name),
    };
    let workspaces = match mode {
        WorkspaceMode::Joint => vec![Workspace {
            name: "all".to_string(),
            image: prep.images.task.id.clone(),
            repos: prep.task.repos.iter().map(repo).collect(),
            prompt: prep.prompt_blob.clone(),
        }],
        WorkspaceMode::Independent => prep
            .task
            .targets()
            .map(|t| Workspace {
                name: t.name.clone(),
                image: prep.images.task.id.clone(),
                repos: prep
                    .task
                    .repos
                    .iter()
                    .filter(|r| r.name == t.name || r.role == Role::Context)
                    .map(repo)
                    .collect(),
                prompt: prep.prompt_blob.clone(),
            })
            .collect(),
    };
    prep.finish(PlanBody::Workspace {
        workspace: WorkspacePlan { mode, workspaces },
    })
}
