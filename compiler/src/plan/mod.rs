//! Plans: the deterministic, content-addressed, self-contained artifacts lowering produces
//! and the runtime executes (`docs/plan.md`, `docs/plan.schema.json`).
//!
//! Invariants: every map is a `BTreeMap` and every list has a defined order, so the JSON is
//! byte-identical for identical inputs; nothing in a plan depends on the clock, the
//! working directory or absolute host paths; patch texts live once in `blobs`.

pub mod digest;
pub mod image;
pub mod run;
pub mod score;
pub mod verify;
pub mod workspace;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use digest::{canonical_digest, sha256_hex, short_id};
pub use image::{
    BuildContext, EnvImage, Images, LocalEnv, Param, RepoMaterial, RepoRole, SourceRef, TaskImage,
};
pub use run::{DroppedTest, Run, Step, TestStep};
pub use score::{ScoreMode, ScorePlan};
pub use verify::{Configuration, Expect, Outcome, TargetCheck, VerifyPlan, VerifyStrategy};
pub use workspace::{Workspace, WorkspaceMode, WorkspacePlan, WorkspaceRepo};

/// The schema tag every plan carries.
pub const PLAN_SCHEMA: &str = "taskc.plan/1";

/// A compiled plan of one kind for one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Always [`PLAN_SCHEMA`].
    pub schema: String,
    /// `plan-<16 hex>`.
    pub id: String,
    /// sha256 over the whole plan but `id` and `digest` (blobs by their digests).
    pub digest: String,
    pub kind: PlanKind,
    pub task: TaskInfo,
    pub images: Images,
    /// Set when `kind` is `verify`.
    pub verify: Option<VerifyPlan>,
    /// Set when `kind` is `score`.
    pub score: Option<ScorePlan>,
    /// Set when `kind` is `workspace`.
    pub workspace: Option<WorkspacePlan>,
    /// Texts (patches, prompt) keyed by their sha256 hex.
    pub blobs: BTreeMap<String, String>,
}

/// Which of the three plans this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanKind {
    Verify,
    Score,
    Workspace,
}

impl PlanKind {
    /// `verify`, `score` or `workspace`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanKind::Verify => "verify",
            PlanKind::Score => "score",
            PlanKind::Workspace => "workspace",
        }
    }
}

/// What the plan is for (informational; not used by the runtime to decide anything).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    pub id: String,
    pub title: Option<String>,
    /// `bugfix` or `feature`.
    pub kind: String,
    /// Target names, in declaration order.
    pub targets: Vec<String>,
    /// Context names, in declaration order.
    pub contexts: Vec<String>,
}

/// Why a plan file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PlanReadError {
    #[error("not a taskc plan: {0}")]
    Json(#[from] serde_json::Error),
    #[error("plan schema is `{found}`, this taskc reads `{PLAN_SCHEMA}`; re-run `taskc plan`")]
    Schema { found: String },
}

impl Plan {
    /// Pretty JSON with a final newline; byte-identical for identical plans.
    pub fn to_json_pretty(&self) -> String {
        // Plain data with string map keys: serialisation cannot fail.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Read a plan written by [`Plan::to_json_pretty`].
    pub fn from_json(text: &str) -> Result<Plan, PlanReadError> {
        let plan: Plan = serde_json::from_str(text)?;
        if plan.schema != PLAN_SCHEMA {
            return Err(PlanReadError::Schema { found: plan.schema });
        }
        Ok(plan)
    }

    /// Every run of the plan, whatever its kind.
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        let v = self.verify.iter().flat_map(|v| v.runs.iter());
        let s = self.score.iter().flat_map(|s| s.runs.iter());
        v.chain(s)
    }

    /// Fill `id` and `digest` from the rest of the plan. Blobs enter by their keys, which
    /// are the sha256 of their texts, so the texts are not hashed twice.
    pub(crate) fn seal(mut self) -> Plan {
        #[derive(Serialize)]
        struct View<'a> {
            schema: &'a str,
            kind: PlanKind,
            task: &'a TaskInfo,
            images: &'a Images,
            verify: &'a Option<VerifyPlan>,
            score: &'a Option<ScorePlan>,
            workspace: &'a Option<WorkspacePlan>,
            blobs: Vec<&'a String>,
        }
        let digest = canonical_digest(
            "taskc.plan/1",
            &View {
                schema: &self.schema,
                kind: self.kind,
                task: &self.task,
                images: &self.images,
                verify: &self.verify,
                score: &self.score,
                workspace: &self.workspace,
                blobs: self.blobs.keys().collect(),
            },
        );
        self.id = short_id("plan", &digest);
        self.digest = digest;
        self
    }
}
