//! Property: for random `uses` DAGs the joint plan has exactly Σ_r 2^|closure(r)| runs plus
//! two `uses`-check runs per target whose closure is not every target, 2^N configurations, and each configuration's target is decided by the run that applies
//! exactly the gold of the configuration's repositories within the target's closure.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use std::collections::{BTreeMap, BTreeSet};

use plan_support::dag_task;
use proptest::prelude::*;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::VerifyStrategy;

/// Edges i → j only for j < i: always acyclic.
fn dag() -> impl Strategy<Value = Vec<Vec<usize>>> {
    (1usize..=6).prop_flat_map(|n| {
        (0..n)
            .map(|i| proptest::collection::btree_set(0..i.max(1), 0..=i.min(3)))
            .collect::<Vec<_>>()
            .prop_map(move |sets| {
                sets.into_iter()
                    .enumerate()
                    .map(|(i, s)| s.into_iter().filter(|&j| j < i).collect())
                    .collect()
            })
    })
}

fn closure(uses: &[Vec<usize>], r: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![r];
    while let Some(n) = stack.pop() {
        if seen.insert(n) {
            stack.extend(uses[n].iter().copied());
        }
    }
    seen
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn joint_plan_has_sum_of_closure_powers_runs(uses in dag()) {
        let n = uses.len();
        let task = dag_task(&uses, VerifyStrategy::Joint);
        let plan = lower_verify(&task, &LowerOptions::default()).unwrap();
        let v = plan.verify().cloned().unwrap();
        let expected: usize = (0..n)
            .map(|r| {
                let c = closure(&uses, r).len();
                (1usize << c) + if c < n { 2 } else { 0 }
            })
            .sum();
        prop_assert_eq!(v.runs.len() + v.targeted.len(), expected);
        // Phase 1 is exactly base and closure-gold per target; the rest is narrowed later.
        prop_assert_eq!(v.runs.len(), if n == 1 { 2 } else { 2 * n });
        for t in &v.targeted {
            let r: usize = t.run.under_test[1..].parse().unwrap();
            let cl: Vec<String> = closure(&uses, r).iter().map(|i| format!("r{i}")).collect();
            let mut cl_sorted = cl.clone();
            cl_sorted.sort();
            prop_assert!(!t.run.gold_applied.is_empty() && t.run.gold_applied != cl_sorted);
        }
        let partial = (0..n).filter(|&r| closure(&uses, r).len() < n).count();
        prop_assert_eq!(v.uses_checks.len(), 2 * partial);
        prop_assert_eq!(v.configurations.len(), 1usize << n);

        let runs: BTreeMap<&str, _> = v
            .runs
            .iter()
            .chain(v.targeted.iter().map(|t| &t.run))
            .map(|r| (r.id.as_str(), r))
            .collect();
        prop_assert_eq!(runs.len(), v.runs.len() + v.targeted.len(), "run ids are unique");
        let mut seen_gold = BTreeSet::new();
        for c in &v.configurations {
            prop_assert!(seen_gold.insert(c.gold.clone()), "each subset once");
            prop_assert_eq!(c.targets.len(), n);
            for (name, check) in &c.targets {
                let r: usize = name[1..].parse().unwrap();
                let cl: BTreeSet<String> = closure(&uses, r).iter().map(|i| format!("r{i}")).collect();
                let run = runs[check.run.as_str()];
                prop_assert_eq!(&run.under_test, name);
                let want: Vec<String> = c.gold.iter().filter(|g| cl.contains(*g)).cloned().collect();
                prop_assert_eq!(&run.gold_applied, &want);
            }
        }
        for u in &v.uses_checks {
            let r: usize = u.target[1..].parse().unwrap();
            let cl: BTreeSet<String> = closure(&uses, r).iter().map(|i| format!("r{i}")).collect();
            let others: Vec<String> = (0..n).map(|i| format!("r{i}")).filter(|t| !cl.contains(t)).collect();
            prop_assert_eq!(&u.others, &others);
            let run = runs[u.run.as_str()];
            let against = runs[u.against.as_str()];
            prop_assert_eq!(&run.under_test, &u.target);
            // Same closure state in both runs; only the others flip to gold.
            let flipped: Vec<String> = run.gold_applied.iter().filter(|g| !against.gold_applied.contains(g)).cloned().collect();
            prop_assert_eq!(&flipped, &others);
        }
        // Exhaustive: N·2^N (the `uses` checks reuse its runs).
        let ex = lower_verify(&task, &LowerOptions { exhaustive: true, ..LowerOptions::default() }).unwrap();
        let ex = ex.verify().cloned().unwrap();
        prop_assert_eq!(ex.runs.len(), n << n);
        prop_assert!(ex.targeted.is_empty(), "exhaustive runs the full suite");
        // --full: the same runs as targeted, all in phase 1.
        let full = lower_verify(&task, &LowerOptions { full: true, ..LowerOptions::default() }).unwrap();
        let full = full.verify().cloned().unwrap();
        prop_assert_eq!(full.runs.len(), expected);
        prop_assert!(full.targeted.is_empty());
    }
}
