//! Lowering: a checked [`Task`] → deterministic, content-addressed [`Plan`]s.
//!
//! Pure like the rest of the compiler: recipes are embedded, patch texts come from the
//! task, nothing reads the clock or the environment.

mod closure;
mod contexts;
mod env;
mod image_graph;
pub use env::{dockerfile_images, environment_images, from_images, pinned, rewrite_from};
mod manifest;
mod prepare;
pub mod relax;
mod score;
mod select;
mod select_args;
mod service;
mod shell_word;
mod task_image;
mod verify;
mod workspace;

use crate::model::Task;
use crate::plan::{Plan, ScoreMode, WorkspaceMode};

pub use select::{fill_template, go_package, go_pattern, narrow_run, NarrowError, IDS_PLACEHOLDER};
pub use select_args::{insert_arguments, locate_invocation, selector_arguments};
pub use shell_word::quote as shell_quote;
pub use task_image::tree_digest;

/// Most targets a joint verification may have (2^16 configurations).
pub const MAX_JOINT_TARGETS: usize = 16;

/// Choices that change a plan but are not part of the spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LowerOptions {
    /// Replaces the recipe's base image (from `taskc.toml` `[images] base`).
    pub base_image_override: Option<String>,
    /// Verify every target against every gold subset (N·2^N runs) to check `uses`.
    pub exhaustive: bool,
    /// Run the full hidden-test command in every configuration (no targeted subsets).
    pub full: bool,
    /// The content id of the base image (the engine's image id, `sha256:…`), resolved by the
    /// runtime before lowering: it enters the environment image's id, so rebuilding the base
    /// image rebuilds every image and reruns every run on top of it. `None` (no engine, or the
    /// local backend) leaves the id a function of the base image's name only.
    pub base_image_id: Option<String>,
    /// Named images as a spec names them (a recipe choice's `python:3.12-bookworm`) → the
    /// image built `FROM` instead, resolved by the runtime before lowering (a site's
    /// `[images.map]` stand-in, or a CA layer on it). Runtime data like `base_image_id`:
    /// locks hash the plan without it. The environment image records what stood in
    /// (`EnvImage::stands_in_for`).
    pub stand_ins: std::collections::BTreeMap<String, String>,
    /// `FROM` images of a curator's Dockerfile (`env dockerfile`) pinned by registry digest:
    /// the image as named (`golang:1.26-bookworm`) → `sha256:…`, resolved by the runtime
    /// (pulled, or taken from the lock) before lowering. Each pinned `FROM` is built from
    /// `<name>@<digest>`; the environment image records them (`EnvImage::from_digests`) and
    /// the lock keeps them (`[base-images]`). Runtime data: locks hash the plan without it.
    pub base_digests: std::collections::BTreeMap<String, String>,
    /// The engine's content ids of the images a Dockerfile's stages are built `FROM` (as
    /// built: a stand-in's name), which enter the image nodes built on them.
    pub image_ids: std::collections::BTreeMap<String, String>,
}

/// Why a task could not be lowered. The checker rules most of these out; they remain
/// for hand-built tasks and stdlib bugs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    #[error("unknown recipe `{name}`; known recipes: {}", known.join(", "))]
    UnknownRecipe { name: String, known: Vec<String> },
    #[error("stdlib recipe `{recipe}` has a bad manifest: {message}")]
    Manifest { recipe: String, message: String },
    #[error("cannot render the Dockerfile of recipe `{recipe}`: {message}")]
    Template { recipe: String, message: String },
    #[error("cannot relax the hidden tests of `{repo}`: {source}")]
    Relax {
        repo: String,
        #[source]
        source: relax::RelaxError,
    },
    #[error("target `{repo}` has no {what}; every target needs a gold patch and a test block")]
    TargetIncomplete { repo: String, what: &'static str },
    #[error("build context `{context}` names `{repo}`, which is no repository of the task")]
    ContextRepo { context: String, repo: String },
    #[error("{count} targets make {configs} configurations; joint verification supports at most {max} targets (use `verify per-repo` or split the task)", configs = 1u128 << (*count).min(127), max = MAX_JOINT_TARGETS)]
    TooManyTargets { count: usize },
}

/// The verification plan (`verify joint` or `per-repo`, as the spec says).
pub fn lower_verify(task: &Task, opts: &LowerOptions) -> Result<Plan, LowerError> {
    let prep = prepare::Prepared::new(task, opts)?;
    verify::lower(prep, opts)
}

/// The scoring plan for one prediction.
pub fn lower_score(task: &Task, opts: &LowerOptions, mode: ScoreMode) -> Result<Plan, LowerError> {
    let prep = prepare::Prepared::new(task, opts)?;
    Ok(score::lower(prep, mode))
}

/// The workspace plan: what an agent gets.
pub fn lower_workspace(
    task: &Task,
    opts: &LowerOptions,
    mode: WorkspaceMode,
) -> Result<Plan, LowerError> {
    let prep = prepare::Prepared::new(task, opts)?;
    Ok(workspace::lower(prep, mode))
}

/// sha256 over the embedded recipe `name` (manifest and template).
pub fn recipe_digest(name: &str) -> Result<String, LowerError> {
    Ok(manifest::load(name)?.digest)
}
