//! Semantic diff of two checked tasks and their verification plans: what a reviewer needs
//! in a pull request — fields changed, repositories added or removed, base commits moved,
//! relaxations and expectations added or removed, and which images and runs the change
//! invalidates (must be built or verified again). Rendered as Markdown or JSON.

mod markdown;
mod tasks;

use serde::{Deserialize, Serialize};

use crate::model::Task;
use crate::plan::Plan;

/// Everything that changed between two versions of a task.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TaskDiff {
    /// Task id (the new one, if it changed).
    pub task: String,
    /// Task-level fields: `id`, `title`, `kind`, `prompt`, `verify`, `env.recipe`, `env.<param>`, …
    pub fields: Vec<FieldChange>,
    pub repos_added: Vec<RepoRef>,
    pub repos_removed: Vec<RepoRef>,
    /// Changes inside repositories present on both sides (base moves are in `bases_moved`).
    pub repo_fields: Vec<RepoFieldChange>,
    pub bases_moved: Vec<BaseMove>,
    pub relaxations_added: Vec<RelaxRef>,
    pub relaxations_removed: Vec<RelaxRef>,
    pub expects_added: Vec<ExpectRef>,
    pub expects_removed: Vec<ExpectRef>,
    pub invalidated: Invalidated,
}

/// A field's old and new value, rendered as text (`None`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChange {
    pub field: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A repository and its role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoRef {
    pub name: String,
    /// `target` or `context`.
    pub role: String,
}

/// A field change inside one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoFieldChange {
    pub repo: String,
    #[serde(flatten)]
    pub change: FieldChange,
}

/// A base commit that moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaseMove {
    pub repo: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A relaxation, as a reviewer reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RelaxRef {
    pub repo: String,
    /// `drop` or `edit`.
    pub action: String,
    /// The dropped test id, or the edited file.
    pub target: String,
    pub rule: String,
    pub because: String,
    /// For edits: the replaced text and its replacement.
    pub replace: Option<String>,
    pub with: Option<String>,
}

/// An `expect` line.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ExpectRef {
    pub repo: String,
    /// `f2p` or `p2p`.
    pub kind: String,
    pub test: String,
}

/// What the change invalidates, from the plans' content ids.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Invalidated {
    pub old_plan: String,
    pub new_plan: String,
    /// Images whose id changed: they must be built again.
    pub images: Vec<ImageChange>,
    /// Runs of the new plan no old run had: they must be verified again.
    pub runs: Vec<RunRef>,
    /// Runs of the new plan whose results can be reused.
    pub runs_kept: usize,
    /// Runs of the old plan that are gone.
    pub runs_dropped: usize,
}

/// An image whose id changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageChange {
    /// `environment`, `task` or `service <name>`.
    pub image: String,
    pub old: String,
    pub new: String,
}

/// A run, as a reviewer reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRef {
    pub id: String,
    pub under_test: Vec<String>,
    pub gold_applied: Vec<String>,
}

impl TaskDiff {
    /// No semantic change and nothing invalidated.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
            && self.repos_added.is_empty()
            && self.repos_removed.is_empty()
            && self.repo_fields.is_empty()
            && self.bases_moved.is_empty()
            && self.relaxations_added.is_empty()
            && self.relaxations_removed.is_empty()
            && self.expects_added.is_empty()
            && self.expects_removed.is_empty()
            && self.invalidated.images.is_empty()
            && self.invalidated.runs.is_empty()
            && self.invalidated.runs_dropped == 0
    }

    /// Markdown for a pull-request comment.
    pub fn to_markdown(&self) -> String {
        markdown::render(self)
    }

    /// Pretty JSON with a final newline.
    pub fn to_json_pretty(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Compare `old` and `new` (each with its verification plan).
pub fn diff_tasks(old: &Task, old_plan: &Plan, new: &Task, new_plan: &Plan) -> TaskDiff {
    let mut d = tasks::diff(old, new);
    d.invalidated = tasks::invalidated(old_plan, new_plan);
    d
}
