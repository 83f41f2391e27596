//! Deriving a target's oracle from its base and gold runs: fail-to-pass tests (failing or
//! missing at base, passing at gold) and pass-to-pass tests (passing at both).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use taskc_compiler::plan::DroppedTest;

use crate::parsers::Outcome;

/// One target's derived oracle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct RepoOracle {
    pub f2p: Vec<String>,
    pub p2p: Vec<String>,
    /// Passing at base, failing (or missing) at gold: the gold patch breaks them.
    pub regressions: Vec<String>,
    /// Not passing at gold, and not passing at base either: not part of the oracle.
    pub failing_at_gold: Vec<String>,
    /// Tests removed by `drop` relaxations that the runs did report.
    pub dropped: Vec<DroppedTest>,
    /// Tests the gold run reported as skipped (they are in no list above but
    /// `failing_at_gold` or `regressions`): recorded so a skip is never silent.
    pub skipped: Vec<String>,
    /// Skipped tests the gold run's log counted without naming them.
    pub skipped_unnamed: u64,
}

/// Whether `id` is named by a drop of `test`: the same id, or a parametrisation of it
/// (`file::test_x[case]` is dropped by `file::test_x`).
pub fn drop_matches(test: &str, id: &str) -> bool {
    id == test
        || id
            .strip_prefix(test)
            .is_some_and(|rest| rest.starts_with('['))
}

/// Derive the oracle from the outcomes at base and at gold.
pub fn derive(
    base: &BTreeMap<String, Outcome>,
    gold: &BTreeMap<String, Outcome>,
    drops: &[DroppedTest],
) -> RepoOracle {
    let mut o = RepoOracle::default();
    let ids: BTreeSet<&String> = base.keys().chain(gold.keys()).collect();
    let mut dropped_seen = BTreeSet::new();
    for id in ids {
        if let Some(d) = drops.iter().find(|d| drop_matches(&d.test, id)) {
            dropped_seen.insert(d.clone());
            continue;
        }
        if gold.get(id) == Some(&Outcome::Skipped) {
            o.skipped.push(id.clone());
        }
        let at_base = base.get(id).is_some_and(|o| o.is_pass());
        let at_gold = gold.get(id).is_some_and(|o| o.is_pass());
        match (at_base, at_gold) {
            (false, true) => o.f2p.push(id.clone()),
            (true, true) => o.p2p.push(id.clone()),
            (true, false) => o.regressions.push(id.clone()),
            (false, false) => o.failing_at_gold.push(id.clone()),
        }
    }
    o.dropped = dropped_seen.into_iter().collect();
    o
}

impl RepoOracle {
    /// Every test the target must pass: F2P then P2P.
    pub fn all(&self) -> impl Iterator<Item = &String> {
        self.f2p.iter().chain(self.p2p.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pairs: &[(&str, Outcome)]) -> BTreeMap<String, Outcome> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn classifies_every_combination() {
        use Outcome::*;
        let base = m(&[
            ("a", Failed),
            ("b", Passed),
            ("c", Passed),
            ("d", Failed),
            ("p[1]", Failed),
        ]);
        let gold = m(&[
            ("a", Passed),
            ("b", Passed),
            ("c", Failed),
            ("d", Error),
            ("e", Passed),
            ("f", Skipped),
            ("p[1]", Passed),
        ]);
        let drops = vec![DroppedTest {
            test: "p".into(),
            rule: taskc_compiler::model::Rule::Unrequested,
        }];
        let o = derive(&base, &gold, &drops);
        assert_eq!(o.f2p, vec!["a", "e"]);
        assert_eq!(o.p2p, vec!["b"]);
        assert_eq!(o.regressions, vec!["c"]);
        assert_eq!(o.failing_at_gold, vec!["d", "f"]);
        assert_eq!(o.skipped, vec!["f"]);
        assert_eq!(o.dropped, drops);
    }

    #[test]
    fn drop_matches_parametrisations_only() {
        assert!(drop_matches("f::t", "f::t"));
        assert!(drop_matches("f::t", "f::t[a b]"));
        assert!(!drop_matches("f::t", "f::t2"));
    }
}
