//! Predictions: the patches an agent (or a built-in baseline) proposes for one task, one
//! unified diff per repository. Read from JSONL ([`parse_predictions`]), built in
//! ([`gold`], [`empty`]) or collected from a finished workspace ([`collect`]).

pub mod builtin;
pub mod collect;
pub mod dedup;
pub mod harbor;
pub mod jsonl;
pub mod split;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use taskc_compiler::plan::{canonical_digest, short_id};

use crate::exec::ResultKey;

pub use builtin::{builtin, empty, gold, BUILTINS};
pub use collect::{collect, CollectError};
pub use dedup::{dedup, Duplicate};
pub use jsonl::{parse_predictions, PredictionError};
pub use split::{split_by_repo, SplitError};

/// One prediction: a model's patches for one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prediction {
    pub task: String,
    pub model: String,
    /// Unified diff per repository name, each relative to that repository's root.
    pub patches: BTreeMap<String, String>,
}

impl Prediction {
    /// Whether every patch is empty or byte-for-byte the spec's own gold patch of its
    /// repository (the `gold` and `empty` baselines): no agent-written code runs.
    pub fn is_baseline(&self, task: &taskc_compiler::model::Task) -> bool {
        self.patches.iter().all(|(repo, patch)| {
            patch.trim().is_empty()
                || task
                    .repo(repo)
                    .and_then(|r| r.gold.as_ref())
                    .is_some_and(|g| g.text == *patch)
        })
    }

    /// sha256 over the task, the model and the patches (sorted by repository).
    pub fn digest(&self) -> String {
        canonical_digest("taskc.prediction/1", self)
    }

    /// `pred-<first 16 hex of the digest>`: the prediction's part of a [`ResultKey`].
    pub fn short_id(&self) -> String {
        short_id("pred", &self.digest())
    }

    /// What the results of scoring run `run` for this prediction are filed under (the
    /// [`ResultKey::subject`] of every repetition).
    pub fn result_key(&self, run: &str) -> String {
        ResultKey::score(run, &self.short_id(), 0).subject()
    }

    /// Whether the prediction changes `repo` (a non-blank patch).
    pub fn touches(&self, repo: &str) -> bool {
        self.patches.get(repo).is_some_and(|p| !p.trim().is_empty())
    }

    /// One JSONL line (no newline) in taskc's own format.
    pub fn to_json_line(&self) -> String {
        // Strings and a BTreeMap of strings: serialisation cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(patches: &[(&str, &str)]) -> Prediction {
        Prediction {
            task: "t".into(),
            model: "m".into(),
            patches: patches
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn digest_depends_on_content_not_insertion_order() {
        let a = p(&[("a", "x"), ("b", "y")]);
        let b = p(&[("b", "y"), ("a", "x")]);
        assert_eq!(a.digest(), b.digest());
        assert_ne!(a.digest(), p(&[("a", "x")]).digest());
        let key = a.result_key("run-0123456789abcdef");
        assert!(key.starts_with("run-0123456789abcdef-pred-"));
        assert_eq!(key.len(), "run-0123456789abcdef-pred-".len() + 16);
        assert!(!key.contains('.'));
    }

    #[test]
    fn blank_patches_do_not_touch() {
        let a = p(&[("a", "  \n"), ("b", "diff")]);
        assert!(!a.touches("a"));
        assert!(a.touches("b"));
        assert!(!a.touches("c"));
    }
}
