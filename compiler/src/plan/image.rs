//! The two images of a plan: the environment (recipe rendered to a Dockerfile, plus its
//! local-backend variant) and the task image (environment + every repository at base).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Role;

/// The unprivileged user and group the test command runs as, created in the task image
/// with this id (its Dockerfile) and dropped to by the run script.
pub const TEST_UID: u32 = 10001;
pub const TEST_USER: &str = "taskc-test";

/// The engine tag of the environment image `id` (`img-…`).
pub fn env_image_tag(id: &str) -> String {
    format!("taskc/env:{id}")
}

/// The engine tag of the task image `id` (`img-…`).
pub fn task_image_tag(id: &str) -> String {
    format!("taskc/task:{id}")
}

/// Both images a plan's runs start from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Images {
    pub environment: EnvImage,
    pub task: TaskImage,
    /// The images of the task's services, by id (`img-…`): a recipe rendered like the
    /// environment's, or `FROM <name>` for a named image. Absent when the task has none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, EnvImage>,
    /// The image nodes the environment is built on, by id (`img-…`): the stages of a
    /// multi-stage `env dockerfile`, each an image of its own (`plan::image_node`). Absent
    /// when the environment is one image.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nodes: BTreeMap<String, super::ImageNode>,
}

/// The environment image: the recipe's Dockerfile rendered with its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvImage {
    /// `img-<16 hex>`.
    pub id: String,
    /// sha256 over the rendered Dockerfile (which names the base image) and, when resolved,
    /// the base image's content id.
    pub digest: String,
    pub recipe: String,
    /// Recipe parameters, defaults filled in.
    pub params: BTreeMap<String, Param>,
    pub base_image: String,
    /// The named image `base_image` stands in for (`python:3.12-bookworm`, when a site's
    /// `[images.map]` names `taskc-standin/python:3.12` for it); `None` when the image is
    /// the one the recipe names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stands_in_for: Option<String>,
    /// The `FROM` images of a curator's Dockerfile (`env dockerfile`) a site's
    /// `[images.map]` stood in for: the image the Dockerfile names → the one built `FROM`
    /// instead (the Dockerfile above is already rewritten). Empty when none was.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub from_stand_ins: BTreeMap<String, String>,
    /// The `FROM` images of a curator's Dockerfile pinned by registry digest: the image as
    /// named → `sha256:…` (built from `<name>@<digest>`; the lock's `[base-images]`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub from_digests: BTreeMap<String, String>,
    /// The image nodes (`Images::nodes`) this Dockerfile names itself (`FROM`, `--from=`),
    /// sorted: they are built before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// The base image's content id when the runtime resolved it (it then enters `digest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_image_id: Option<String>,
    pub dockerfile: String,
    /// The Docker build context (a `dir("…")` recipe parameter), if the recipe takes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<BuildContext>,
    /// The named build contexts of its Dockerfile (`contexts { … }`), by name as written:
    /// each a node of `Images::nodes` (a folder or a repository's tree at base) or an image.
    /// Absent when there are none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub contexts: BTreeMap<String, PlanContext>,
    /// The same environment on the local backend (no containers).
    pub local: LocalEnv,
}

/// A named build context as lowered (`EnvImage::contexts`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PlanContext {
    /// A folder beside the spec, built as the image node `node` (`FROM scratch`, its tree
    /// copied to `/`); `digest` is the folder's tree.
    Dir {
        path: String,
        digest: String,
        node: String,
    },
    /// A repository's tree at base, built as the image node `node`.
    Repo {
        repo: String,
        tree: String,
        node: String,
    },
    /// An image: `named` as the spec names it, `used` as the build reads it (itself, its
    /// `[images.map]` stand-in, or pinned by digest).
    Image { named: String, used: String },
}

/// A folder beside the spec sent with the environment image's Dockerfile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildContext {
    /// Relative to the spec's folder, `/`-separated.
    pub path: String,
    /// Digest of the folder's tree (paths, executable bits, bytes), checked before building.
    pub digest: String,
}

/// A recipe parameter value as written into a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Param {
    Bool(bool),
    Int(u64),
    Str(String),
    List(Vec<String>),
}

/// How the local backend reproduces the environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalEnv {
    /// `env-<16 hex>`.
    pub id: String,
    pub digest: String,
    /// Executables that must be on `PATH`.
    pub requires: Vec<String>,
    /// Environment variables set for every command.
    pub env: BTreeMap<String, String>,
    /// Shell commands run once to prepare the environment.
    pub setup: Vec<String>,
}

/// The task image: FROM the environment image, every repository (targets and context)
/// materialised at `/work/<name>` as one synthetic commit of its tree at base (fixed author
/// and date; the runtime does it), then each repository's setup commands, in order.
/// It holds neither gold patches nor hidden tests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskImage {
    /// `img-<16 hex>`.
    pub id: String,
    pub digest: String,
    /// The environment image's id.
    pub from: String,
    /// In declaration order.
    pub repos: Vec<RepoMaterial>,
    /// The Dockerfile that builds it (its text enters `digest`): `FROM` the environment
    /// image, the repositories copied from the build context's `work/`, the test user, each
    /// repository's setup commands.
    pub dockerfile: String,
}

impl EnvImage {
    /// The engine tag of this image.
    pub fn tag(&self) -> String {
        env_image_tag(&self.id)
    }
}

impl TaskImage {
    /// The engine tag of this image.
    pub fn tag(&self) -> String {
        task_image_tag(&self.id)
    }
}

/// One repository as the task image holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoMaterial {
    pub name: String,
    pub role: Role,
    /// Absolute path inside the container, `/work/<name>`.
    pub path: String,
    pub source: SourceRef,
    /// Full 40-hex commit, if any.
    pub base: Option<String>,
    /// Identity of the tree: sha256 over the dir digest (dir), url + base (git), or bundle
    /// digest + base (bundle).
    pub digest: String,
    /// Shell commands run in `path`, in order.
    pub setup: Vec<String>,
}

/// Where a repository's tree comes from; paths are relative to the spec's folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum SourceRef {
    Dir { path: String, digest: String },
    Git { url: String },
    Bundle { path: String, digest: String },
}
