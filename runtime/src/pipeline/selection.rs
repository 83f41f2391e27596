//! Which tasks and models a `verify` / `score` run covers: `--task ID|GLOB` (repeatable; none
//! means every task), `--exclude-task ID|GLOB` and, for `score`, `--model NAME|GLOB` (which
//! prediction lines are scored), and `--limit N` (only the first N tasks the filters keep,
//! in the order the specs are given: Harbor's `--n-tasks`). A glob knows `*` (any run of
//! characters) and `?` (one).

/// The tasks and models a run keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Task ids or globs to keep; empty: every task.
    pub tasks: Vec<String>,
    /// Task ids or globs to drop (wins over `tasks`).
    pub exclude_tasks: Vec<String>,
    /// Model names or globs whose predictions are scored; empty: every model.
    pub models: Vec<String>,
    /// At most this many tasks (the first the filters keep); `None`: every one.
    pub limit: Option<usize>,
}

impl Selection {
    /// Whether the task `id` is part of the run.
    pub fn keeps_task(&self, id: &str) -> bool {
        (self.tasks.is_empty() || self.tasks.iter().any(|p| glob_match(p, id)))
            && !self.exclude_tasks.iter().any(|p| glob_match(p, id))
    }

    /// Whether the predictions of `model` are scored.
    pub fn keeps_model(&self, model: &str) -> bool {
        self.models.is_empty() || self.models.iter().any(|p| glob_match(p, model))
    }

    /// Whether it keeps everything.
    pub fn is_all(&self) -> bool {
        self.tasks.is_empty()
            && self.exclude_tasks.is_empty()
            && self.models.is_empty()
            && self.limit.is_none()
    }

    /// The items whose task (`task_of`) the filters keep, at most [`Selection::limit`] of
    /// them, in their order.
    pub fn pick<'a, T>(&self, items: &'a [T], task_of: impl Fn(&T) -> &str) -> Vec<&'a T> {
        items
            .iter()
            .filter(|i| self.keeps_task(task_of(i)))
            .take(self.limit.unwrap_or(usize::MAX))
            .collect()
    }
}

/// `text` matches `pattern` (`*`: any run of characters, `?`: one character).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    // The last `*` seen and the text position it was tried at.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("cookie-split", "cookie-split"));
        assert!(!glob_match("cookie", "cookie-split"));
        assert!(glob_match("cookie*", "cookie-split"));
        assert!(glob_match("*-s*t", "cookie-split"));
        assert!(glob_match("c?nfig-*", "config-merge"));
        assert!(!glob_match("c?nfig-*", "context-docs"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("?", ""));
    }

    #[test]
    fn exclude_wins_and_empty_keeps_all() {
        let s = Selection {
            tasks: vec!["c*".into()],
            exclude_tasks: vec!["context-*".into()],
            models: vec!["gpt-?".into()],
            limit: None,
        };
        assert!(s.keeps_task("cookie-split"));
        assert!(!s.keeps_task("context-docs"));
        assert!(!s.keeps_task("sdk-retry"));
        assert!(s.keeps_model("gpt-4"));
        assert!(!s.keeps_model("claude"));
        assert!(Selection::default().keeps_task("x") && Selection::default().keeps_model("y"));
    }

    #[test]
    fn a_limit_keeps_the_first_tasks_the_filters_keep_in_order() {
        let ids = ["a-1", "b-1", "a-2", "a-3"];
        let s = Selection {
            tasks: vec!["a-*".into()],
            limit: Some(2),
            ..Selection::default()
        };
        assert_eq!(s.pick(&ids, |i| i), [&"a-1", &"a-2"]);
        assert!(!s.is_all());
    }
}
