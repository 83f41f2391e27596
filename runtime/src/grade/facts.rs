//! What grading and reports need to know about a task, apart from its oracle.

use serde::{Deserialize, Serialize};
use taskc_compiler::model::{Task, TaskKind};

/// A task's id, kind, languages and repositories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskFacts {
    pub id: String,
    pub kind: TaskKind,
    pub languages: Vec<String>,
    /// Target names, in declaration order.
    pub targets: Vec<String>,
    /// Context repository names, in declaration order.
    pub contexts: Vec<String>,
}

impl From<&Task> for TaskFacts {
    fn from(t: &Task) -> TaskFacts {
        TaskFacts {
            id: t.id.clone(),
            kind: t.kind,
            languages: t.languages.clone(),
            targets: t.targets().map(|r| r.name.clone()).collect(),
            contexts: t.contexts().map(|r| r.name.clone()).collect(),
        }
    }
}

impl TaskFacts {
    /// The task's language family: the one family of all its languages, `multi` when they
    /// span several, `other` when none is known.
    pub fn family(&self) -> String {
        let mut fams: Vec<&str> = self.languages.iter().map(|l| family_of(l)).collect();
        fams.sort_unstable();
        fams.dedup();
        match fams.as_slice() {
            [] => "other".into(),
            [one] => (*one).into(),
            _ => "multi".into(),
        }
    }

    /// Every repository name, targets first.
    pub fn repos(&self) -> Vec<String> {
        self.targets.iter().chain(&self.contexts).cloned().collect()
    }
}

/// python→python, javascript/typescript→js, go→go, rust→rust, java/kotlin→jvm, else other.
pub fn family_of(language: &str) -> &'static str {
    match language.to_ascii_lowercase().as_str() {
        "python" => "python",
        "javascript" | "typescript" | "js" | "ts" => "js",
        "go" | "golang" => "go",
        "rust" => "rust",
        "java" | "kotlin" => "jvm",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(langs: &[&str]) -> TaskFacts {
        TaskFacts {
            id: "t".into(),
            kind: TaskKind::Bugfix,
            languages: langs.iter().map(|s| s.to_string()).collect(),
            targets: vec![],
            contexts: vec![],
        }
    }

    #[test]
    fn families() {
        assert_eq!(facts(&["python"]).family(), "python");
        assert_eq!(facts(&["TypeScript", "javascript"]).family(), "js");
        assert_eq!(facts(&["java", "kotlin"]).family(), "jvm");
        assert_eq!(facts(&["python", "go"]).family(), "multi");
        assert_eq!(facts(&["cobol"]).family(), "other");
        assert_eq!(facts(&[]).family(), "other");
    }
}
