//! Built-in predictions: `gold` (every target's gold patch; a sound task must score 100%)
//! and `empty` (no patch at all; scores 0%).

use std::collections::BTreeMap;

use taskc_compiler::model::Task;

use super::Prediction;

/// The names `--predictions` accepts instead of a file.
pub const BUILTINS: &[&str] = &["gold", "empty"];

/// The built-in prediction `name` (`gold` or `empty`) for `task`; `None` for other names.
pub fn builtin(name: &str, task: &Task) -> Option<Prediction> {
    match name {
        "gold" => Some(gold(task)),
        "empty" => Some(empty(task)),
        _ => None,
    }
}

/// Every target's gold patch, model `gold`.
pub fn gold(task: &Task) -> Prediction {
    let patches: BTreeMap<String, String> = task
        .targets()
        .filter_map(|r| Some((r.name.clone(), r.gold.as_ref()?.text.clone())))
        .collect();
    Prediction {
        task: task.id.clone(),
        model: "gold".into(),
        patches,
    }
}

/// No patch, model `empty`.
pub fn empty(task: &Task) -> Prediction {
    Prediction {
        task: task.id.clone(),
        model: "empty".into(),
        patches: BTreeMap::new(),
    }
}
