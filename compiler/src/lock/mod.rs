//! Lock files (`<spec>.lock` beside the spec): the oracle `taskc verify` derived — F2P and
//! P2P lists per target, dropped tests, the verification truth table — and the digest of
//! every input it was derived from, so `taskc check` can tell when it is stale.
//! TOML, sorted, deterministic (`docs/lock.md`).

mod inputs;
mod stale;
mod write;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::Rule;
use crate::plan::Verdict;

pub use inputs::{lock_inputs, spec_digest};
pub use stale::{
    invalid_lock_diagnostic, is_line_numbered_doc_test, stale_inputs, stale_inputs_with,
    stale_lock_diagnostic, StaleInput,
};

/// The schema tag every lock carries.
pub const LOCK_SCHEMA: &str = "taskc.lock/1";

/// One lock file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    /// Always [`LOCK_SCHEMA`].
    pub schema: String,
    /// The task id.
    pub task: String,
    pub inputs: Inputs,
    /// Per target repository: its oracle.
    pub repos: BTreeMap<String, RepoLock>,
    /// One row per verified configuration, in plan order.
    #[serde(default)]
    pub truth: Vec<TruthRow>,
    /// Where and with what the oracle was derived (not an input: never makes a lock stale).
    #[serde(default)]
    pub provenance: Provenance,
    /// The `FROM` images of the environment's Dockerfile pinned by registry digest when the
    /// oracle was derived: the image as named → `sha256:…`. A later build uses these digests;
    /// a tag that now names another digest is a stale lock (E1800), never a silent change.
    #[serde(
        default,
        rename = "base-images",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub base_images: BTreeMap<String, String>,
}

/// What produced a lock: the backend, the images and the test tools' versions where the
/// logs name them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// `docker` or `local`.
    #[serde(default)]
    pub backend: String,
    /// The `taskc` version that ran the verification.
    #[serde(default)]
    pub taskc: String,
    /// `base` (the base image's name), `environment` and `task` (plan image ids), and
    /// `base-id` (the base image's content id) when the backend knows it.
    #[serde(default)]
    pub images: BTreeMap<String, String>,
    /// Per target: its test tool's version line as its gold run's log printed it (pytest's
    /// `platform … -- Python 3.11.2, pytest-8.3.3, …`); absent when the log names none.
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
}

/// Digests of everything the oracle was derived from (lowercase sha256 hex, or a plan id).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Inputs {
    /// The spec's meaning (canonical, whitespace- and comment-insensitive).
    pub spec: String,
    pub prompt: String,
    /// The environment recipe (manifest and template as shipped).
    pub recipe: String,
    /// Id of the (non-exhaustive) verification plan.
    pub plan: String,
    /// Per target: its gold patch.
    #[serde(default)]
    pub gold: BTreeMap<String, String>,
    /// Per target: its hidden test patch.
    #[serde(default)]
    pub tests: BTreeMap<String, String>,
    /// Per repository: its source tree (dir digest, bundle digest, or git url + base).
    #[serde(default)]
    pub sources: BTreeMap<String, String>,
}

impl Inputs {
    /// Every input as `(name, digest)`, names like `gold.proxy`, sorted.
    pub fn flat(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        out.insert("spec".to_string(), self.spec.clone());
        out.insert("prompt".to_string(), self.prompt.clone());
        out.insert("recipe".to_string(), self.recipe.clone());
        out.insert("plan".to_string(), self.plan.clone());
        for (group, map) in [
            ("gold", &self.gold),
            ("tests", &self.tests),
            ("sources", &self.sources),
        ] {
            for (k, v) in map {
                out.insert(format!("{group}.{k}"), v.clone());
            }
        }
        out
    }
}

/// A target's oracle.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RepoLock {
    /// Fail at base, pass at gold; sorted.
    #[serde(default)]
    pub f2p: Vec<String>,
    /// Pass at base and at gold; sorted.
    #[serde(default)]
    pub p2p: Vec<String>,
    /// Tests removed by `drop` relaxations, with their rule; sorted.
    #[serde(default)]
    pub dropped: Vec<DroppedLock>,
    /// Tests the gold run skipped (in neither list above); sorted.
    #[serde(default)]
    pub skipped: Vec<String>,
    /// Skipped tests the gold run's log counted without naming them (pytest `-rA` without
    /// `-v`).
    #[serde(default)]
    pub skipped_unnamed: u64,
}

/// A dropped test and the review rule that allowed it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DroppedLock {
    pub test: String,
    pub rule: Rule,
}

/// One configuration of the verification and what it showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruthRow {
    /// Targets with gold applied, sorted.
    pub gold: Vec<String>,
    /// What the configuration must show.
    pub expected: Verdict,
    /// Every target passed.
    pub pass: bool,
    /// The configuration met its expectation.
    pub ok: bool,
    /// Per target: oracle tests passed and failed.
    pub repos: BTreeMap<String, TruthCell>,
}

/// Oracle test counts of one target in one configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TruthCell {
    pub passed: u64,
    pub failed: u64,
    /// The cell's run kept only the target's F2P tests (a targeted proper subset):
    /// `passed`/`failed` count those.
    #[serde(default)]
    pub targeted: bool,
    /// The cell's run did not execute: another target of its configuration already fails
    /// and this one is not constrained alone (`passed` and `failed` are 0).
    #[serde(default)]
    pub not_run: bool,
}

/// Why a lock file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LockError {
    #[error("{message}")]
    Toml {
        message: String,
        /// Byte range in the lock text, when known.
        span: Option<(usize, usize)>,
    },
    #[error("lock schema is `{found}`, this taskc reads `{LOCK_SCHEMA}`; re-run `taskc verify`")]
    Schema { found: String },
}

impl Lock {
    /// An empty lock for `task` with `inputs`; `verify` fills repos and truth.
    pub fn new(task: &str, inputs: Inputs) -> Lock {
        Lock {
            schema: LOCK_SCHEMA.to_string(),
            task: task.to_string(),
            inputs,
            repos: BTreeMap::new(),
            truth: Vec::new(),
            provenance: Provenance::default(),
            base_images: BTreeMap::new(),
        }
    }

    /// TOML, byte-identical for identical locks: lists sorted, maps ordered, a header comment.
    pub fn to_toml(&self) -> String {
        let mut lock = self.clone();
        for r in lock.repos.values_mut() {
            r.f2p.sort();
            r.f2p.dedup();
            r.p2p.sort();
            r.p2p.dedup();
            r.dropped.sort();
            r.dropped.dedup();
            r.skipped.sort();
            r.skipped.dedup();
        }
        for row in &mut lock.truth {
            row.gold.sort();
        }
        write::lock(&lock)
    }
}

/// Read a lock file's text.
pub fn parse_lock(text: &str) -> Result<Lock, LockError> {
    let lock: Lock = toml::from_str(text).map_err(|e| LockError::Toml {
        message: e.message().to_string(),
        span: e.span().map(|r| (r.start, r.end)),
    })?;
    if lock.schema != LOCK_SCHEMA {
        return Err(LockError::Schema { found: lock.schema });
    }
    Ok(lock)
}

/// The lock path for a spec path: `x/cookie-split.task` → `x/cookie-split.lock`.
pub fn lock_path_for(spec_path: &str) -> String {
    match spec_path.strip_suffix(".task") {
        Some(stem) => format!("{stem}.lock"),
        None => format!("{spec_path}.lock"),
    }
}
