//! Duplicate predictions (`docs/security.md`, defence 11): a task is scored once per model
//! in a mode. Further lines for the same task and model are dropped with a warning (the
//! first is scored), so no model gets several tries counted or picks its best.

use serde::{Deserialize, Serialize};

use super::Prediction;

/// Lines beyond the first for one task and model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Duplicate {
    pub task: String,
    pub model: String,
    /// Lines dropped (the first one is scored).
    pub dropped: usize,
    /// Whether every dropped line had the same patches as the scored one.
    pub identical: bool,
}

impl Duplicate {
    /// The warning shown to the user.
    pub fn warning(&self) -> String {
        format!(
            "{} more prediction line(s) for task `{}` and model `{}` ({}): only the first is scored",
            self.dropped,
            self.task,
            self.model,
            if self.identical {
                "identical"
            } else {
                "with different patches"
            }
        )
    }
}

/// Keep the first prediction per (task, model), in order; list what was dropped.
pub fn dedup(predictions: &[Prediction]) -> (Vec<Prediction>, Vec<Duplicate>) {
    let mut kept: Vec<Prediction> = Vec::new();
    let mut dups: Vec<Duplicate> = Vec::new();
    for p in predictions {
        match kept.iter().find(|k| k.task == p.task && k.model == p.model) {
            None => kept.push(p.clone()),
            Some(first) => {
                let same = first.patches == p.patches;
                match dups
                    .iter_mut()
                    .find(|d| d.task == p.task && d.model == p.model)
                {
                    Some(d) => {
                        d.dropped += 1;
                        d.identical &= same;
                    }
                    None => dups.push(Duplicate {
                        task: p.task.clone(),
                        model: p.model.clone(),
                        dropped: 1,
                        identical: same,
                    }),
                }
            }
        }
    }
    (kept, dups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(model: &str, patch: &str) -> Prediction {
        Prediction {
            task: "t".into(),
            model: model.into(),
            patches: [("r".to_string(), patch.to_string())].into(),
        }
    }

    #[test]
    fn the_first_line_per_model_is_kept() {
        let (kept, dups) = dedup(&[p("a", "1"), p("b", "1"), p("a", "1"), p("a", "2")]);
        assert_eq!(kept, vec![p("a", "1"), p("b", "1")]);
        assert_eq!(
            dups,
            vec![Duplicate {
                task: "t".into(),
                model: "a".into(),
                dropped: 2,
                identical: false
            }]
        );
        assert!(dups[0].warning().contains("only the first is scored"));
    }
}
