//! The scoring plan: joint (one run per target, every repository patched by the agent) or
//! independent (one run per target; the other targets at gold). Either way a run tests one
//! target, in its own fresh sandbox.

use crate::plan::{Plan, PlanBody, ScoreMode, ScorePlan};

use super::prepare::Prepared;

pub(crate) fn lower(prep: Prepared<'_>, mode: ScoreMode) -> Plan {
    let mut runs = Vec::new();
    match mode {
        ScoreMode::Joint => {
            let all: Vec<String> = prep.task.repos.iter().map(|r| r.name.clone()).collect();
            runs.extend(prep.targets.iter().filter_map(|t| prep.run(t, &[], &all)));
        }
        ScoreMode::Independent => {
            for t in &prep.targets {
                let mut prediction = vec![t.clone()];
                prediction.extend(prep.contexts.iter().cloned());
                let others: Vec<String> =
                    prep.targets.iter().filter(|o| *o != t).cloned().collect();
                runs.extend(prep.run(t, &others, &prediction));
            }
        }
    }
    prep.finish(PlanBody::Score {
        score: ScorePlan { mode, runs },
    })
}
