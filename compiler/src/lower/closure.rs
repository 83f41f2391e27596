//! The `uses` closure: the targets whose state can change a target's test result.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{Role, Task};

/// For each target (declaration order): itself and every target it transitively uses
/// (through context repositories too), in declaration order.
pub(crate) fn closures(task: &Task) -> BTreeMap<String, Vec<String>> {
    let order: BTreeMap<&str, usize> = task
        .repos
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let mut out = BTreeMap::new();
    for t in task.targets() {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut stack = vec![t.name.as_str()];
        while let Some(n) = stack.pop() {
            if !seen.insert(n) {
                continue;
            }
            if let Some(r) = task.repo(n) {
                stack.extend(r.uses.iter().map(String::as_str));
            }
        }
        let mut members: Vec<&str> = seen
            .into_iter()
            .filter(|n| task.repo(n).is_some_and(|r| r.role == Role::Target))
            .collect();
        members.sort_by_key(|n| order.get(n).copied().unwrap_or(usize::MAX));
        out.insert(
            t.name.clone(),
            members.into_iter().map(str::to_string).collect(),
        );
    }
    out
}
