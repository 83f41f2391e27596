//! Notes on a verification: what a sound truth table does not show but a curator must know
//! before scoring with the oracle (never a problem: the task stays sound).

use std::collections::{BTreeMap, BTreeSet};

use crate::parsers::cargo::ordinal_doc_test;
use crate::parsers::Outcome;

use super::RepoOracle;

/// Notes on `target`'s oracle, derived from its base run's outcomes `at_base`.
pub fn target_notes(
    target: &str,
    oracle: &RepoOracle,
    at_base: &BTreeMap<String, Outcome>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(n) = every_test_f2p(oracle, at_base) {
        notes.push(n.render(target));
    }
    notes.extend(ordinal_doc_tests(target, oracle));
    notes
}

/// Why every test of a target is F2P: no test passed at base.
struct EveryTestF2p {
    f2p: usize,
    /// Tests the base run reported (none passed).
    reported_at_base: usize,
}

impl EveryTestF2p {
    fn render(&self, target: &str) -> String {
        let base = match self.reported_at_base {
            0 => "the base run reported no test at all (the hidden tests likely do not build \
                  at base: cargo, go and tsc stop the whole test target on one compile error)"
                .to_string(),
            n => format!("none of the {n} tests the base run reported passed"),
        };
        format!(
            "`{target}`: every test is fail-to-pass ({} F2P, 0 P2P): {base}. The tests that \
             existed before the task count as F2P too, and scoring cannot tell a patch that \
             breaks existing behaviour (P2P-preserved is n/a for this target). To get a P2P \
             set, make the hidden tests build and the old ones pass at base: put the tests of \
             new API in a test file (or target) of their own",
            self.f2p
        )
    }
}

fn every_test_f2p(o: &RepoOracle, at_base: &BTreeMap<String, Outcome>) -> Option<EveryTestF2p> {
    let none_passed = !at_base.values().any(|o| o.is_pass());
    (none_passed && o.p2p.is_empty() && !o.f2p.is_empty()).then_some(EveryTestF2p {
        f2p: o.f2p.len(),
        reported_at_base: at_base.len(),
    })
}

/// Doc-test ids told apart by their order within an item (`src/lib.rs - add #2`).
fn ordinal_doc_tests(target: &str, o: &RepoOracle) -> Vec<String> {
    let items: BTreeSet<&str> = o.all().filter_map(|id| ordinal_doc_test(id)).collect();
    items
        .into_iter()
        .map(|item| {
            format!(
                "`{target}`: the doc-tests of `{item}` are told apart by their order only \
                 (`{item}`, `{item} #2`, …): a correct patch that adds or removes an example \
                 above one of them renames it, and it is then scored missing. Fix: one doc \
                 example per item, or leave doc-tests out of the oracle (`cargo test --lib \
                 --tests`)"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oracle(f2p: &[&str], p2p: &[&str]) -> RepoOracle {
        RepoOracle {
            f2p: f2p.iter().map(|s| s.to_string()).collect(),
            p2p: p2p.iter().map(|s| s.to_string()).collect(),
            ..RepoOracle::default()
        }
    }

    #[test]
    fn every_test_f2p_is_noted_only_when_nothing_passed_at_base() {
        let o = oracle(&["a", "b"], &[]);
        let nothing = BTreeMap::new();
        let notes = target_notes("lib", &o, &nothing);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("no test at all"), "{notes:?}");
        assert!(notes[0].contains("P2P-preserved is n/a"), "{notes:?}");
        let failed: BTreeMap<String, Outcome> = [("a".to_string(), Outcome::Failed)].into();
        assert!(target_notes("lib", &o, &failed)[0].contains("none of the 1 tests"));
        let passed: BTreeMap<String, Outcome> = [("c".to_string(), Outcome::Passed)].into();
        assert!(target_notes("lib", &o, &passed).is_empty());
        assert!(target_notes("lib", &oracle(&["a"], &["c"]), &nothing).is_empty());
    }

    #[test]
    fn ordinal_doc_tests_are_noted_once_per_item() {
        let o = oracle(
            &["src/lib.rs - add #2"],
            &[
                "src/lib.rs - add",
                "src/lib.rs - add #3",
                "src/lib.rs - sub",
            ],
        );
        let passed: BTreeMap<String, Outcome> = [("x".to_string(), Outcome::Passed)].into();
        let notes = target_notes("lib", &o, &passed);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("`src/lib.rs - add`"), "{notes:?}");
    }
}
