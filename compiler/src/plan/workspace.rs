//! The workspace plan: what an agent is given.

use serde::{Deserialize, Serialize};

use crate::model::Role;
use crate::words::words;

/// Whether the agent sees every repository at once or one target at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkspaceMode {
    /// One workspace with every repository.
    Joint,
    /// One workspace per target, with that target and the context repositories.
    Independent,
}

words!(WorkspaceMode {
    Joint => "joint",
    Independent => "independent",
});

/// The workspaces handed to an agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspacePlan {
    pub mode: WorkspaceMode,
    pub workspaces: Vec<Workspace>,
}

/// One agent workspace: a container from the task image with only these repositories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// `all` (joint) or the target's name (independent).
    pub name: String,
    /// The task image's id.
    pub image: String,
    pub repos: Vec<WorkspaceRepo>,
    /// Blob digest of the prompt text.
    pub prompt: String,
}

/// A repository visible in a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRepo {
    pub name: String,
    pub role: Role,
    pub path: String,
}
