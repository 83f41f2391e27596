//! The scoring plan: joint (one run, every repository patched by the agent) or
//! independent (one run per target; the other targets at gold).

use crate::plan::{Plan, PlanBody, ScoreMode, ScorePlan};

use super::prepare::Prepared;

pub(crate) fn lower(prep: Prepared<'_>, mode: ScoreMode) -> Plan {
    let mut runs = Vec::new();
    match mode {
        ScoreMode::Joint => {
            let all: Vec<String> = prep.task.repos.iter().map(|r| r.name.clone()).collect();
            runs.push(prep.run(&prep.targets, &[], &all));
        }
        ScoreMode::Independent => {
            for t in &prep.targets {
                let mut prediction = vec![t.clone()];
                prediction.extend(prep.contexts.iter().cloned());
                let others: Vec<String> =
                    prep.targets.iter().filter(|o| *o != t).cloned().collect();
                runs.push(prep.run(std::slice::from_ref(t), &others, &prediction));
            }
        }
    }
    prep.finish(PlanBody::Score {
        score: ScorePlan { mode, runs },
    })
}
