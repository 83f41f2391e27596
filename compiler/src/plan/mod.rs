//! Plans: the deterministic, content-addressed, self-contained artifacts lowering produces
//! and the runtime executes (`docs/plan.md`, `docs/plan.schema.json`).
//!
//! Invariants: every map is a `BTreeMap` and every list has a defined order, so the JSON is
//! byte-identical for identical inputs; nothing in a plan depends on the clock, the
//! working directory or absolute host paths; patch texts live once in `blobs`.

pub mod digest;
pub mod image;
pub mod image_node;
pub mod run;
pub mod score;
pub mod service;
pub mod verify;
pub mod workspace;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::TaskKind;

pub use digest::{canonical_digest, sha256_hex, short_id};
pub use image::{
    env_image_tag, task_image_tag, BuildContext, EnvImage, Images, LocalEnv, Param, PlanContext,
    RepoMaterial, SourceRef, TaskImage, TEST_UID, TEST_USER,
};
pub use image_node::{
    build_order, multi_stage, node_image_tag, ContextTree, ImageNode, NodeFrom, CONTEXT_TREE,
};
pub use run::{DroppedTest, Run, SelectHow, Step, TestSelection, TestStep};
pub use score::{ScoreMode, ScorePlan};
pub use service::{service_image_tag, ReadyProbe, RunService};
pub use verify::{
    Configuration, Expect, SelectWhat, SelectionMode, TargetCheck, TargetedRun, UsesCheck,
    UsesSide, Verdict, VerifyPlan, VerifyStrategy,
};
pub use workspace::{Workspace, WorkspaceMode, WorkspacePlan, WorkspaceRepo};

/// The schema tag every plan carries.
pub const PLAN_SCHEMA: &str = "taskc.plan/1";

/// A compiled plan of one kind for one task: the header every plan shares and its body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Always [`PLAN_SCHEMA`].
    pub schema: String,
    /// `plan-<16 hex>`.
    pub id: String,
    /// sha256 over the whole plan but `id` and `digest` (blobs by their digests).
    pub digest: String,
    pub task: TaskInfo,
    pub images: Images,
    /// `"kind": "verify" | "score" | "workspace"` and the body of that name.
    #[serde(flatten)]
    pub body: PlanBody,
    /// Texts (patches, prompt) keyed by their sha256 hex.
    pub blobs: BTreeMap<String, String>,
}

/// What a plan is for, with what only that kind of plan has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PlanBody {
    Verify { verify: VerifyPlan },
    Score { score: ScorePlan },
    Workspace { workspace: WorkspacePlan },
}

impl PlanBody {
    /// Which of the three bodies this is.
    pub fn kind(&self) -> PlanKind {
        match self {
            PlanBody::Verify { .. } => PlanKind::Verify,
            PlanBody::Score { .. } => PlanKind::Score,
            PlanBody::Workspace { .. } => PlanKind::Workspace,
        }
    }

    /// The runs of the body (none for a workspace plan).
    pub fn runs(&self) -> &[Run] {
        match self {
            PlanBody::Verify { verify } => &verify.runs,
            PlanBody::Score { score } => &score.runs,
            PlanBody::Workspace { .. } => &[],
        }
    }
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

impl std::fmt::Display for PlanKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the plan is for (informational; not used by the runtime to decide anything).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    pub id: String,
    pub title: Option<String>,
    pub kind: TaskKind,
    /// Target names, in declaration order.
    pub targets: Vec<String>,
    /// Context names, in declaration order.
    pub contexts: Vec<String>,
}

impl Plan {
    /// Pretty JSON with a final newline; byte-identical for identical plans.
    pub fn to_json_pretty(&self) -> String {
        // Plain data with string map keys: serialisation cannot fail.
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Which of the three plans this is.
    pub fn kind(&self) -> PlanKind {
        self.body.kind()
    }

    /// Every run of the plan, whatever its kind (a verification's phase-2 runs in their
    /// full-suite form: the narrowed ones exist only once phase 1 has results).
    pub fn runs(&self) -> impl Iterator<Item = &Run> {
        let targeted = self
            .verify()
            .into_iter()
            .flat_map(|v| v.targeted.iter().map(|t| &t.run));
        self.body.runs().iter().chain(targeted)
    }

    /// The verification body, if this is a verify plan.
    pub fn verify(&self) -> Option<&VerifyPlan> {
        match &self.body {
            PlanBody::Verify { verify } => Some(verify),
            _ => None,
        }
    }

    /// The scoring body, if this is a score plan.
    pub fn score(&self) -> Option<&ScorePlan> {
        match &self.body {
            PlanBody::Score { score } => Some(score),
            _ => None,
        }
    }

    /// The workspace body, if this is a workspace plan.
    pub fn workspace(&self) -> Option<&WorkspacePlan> {
        match &self.body {
            PlanBody::Workspace { workspace } => Some(workspace),
            _ => None,
        }
    }

    /// Fill `id` and `digest` from the rest of the plan. Blobs enter by their keys, which
    /// are the sha256 of their texts, so the texts are not hashed twice. The hashed view
    /// keeps the shape plans had before the body became a sum type (the other two bodies
    /// as `null`), so plan ids did not change with it.
    pub(crate) fn seal(mut self) -> Plan {
        #[derive(Serialize)]
        struct View<'a> {
            schema: &'a str,
            kind: PlanKind,
            task: &'a TaskInfo,
            images: &'a Images,
            verify: Option<&'a VerifyPlan>,
            score: Option<&'a ScorePlan>,
            workspace: Option<&'a WorkspacePlan>,
            blobs: Vec<&'a String>,
        }
        let digest = canonical_digest(
            "taskc.plan/1",
            &View {
                schema: &self.schema,
                kind: self.kind(),
                task: &self.task,
                images: &self.images,
                verify: self.verify(),
                score: self.score(),
                workspace: self.workspace(),
                blobs: self.blobs.keys().collect(),
            },
        );
        self.id = short_id("plan", &digest);
        self.digest = digest;
        self
    }
}
