//! Static flags (`docs/security.md`, defence 10): whatever a prediction scores, the files
//! its patches add or change that could rig a test run — the test surface (runner hooks and
//! configuration, `.pth`, `sitecustomize`, entry-point metadata, test files), the paths the
//! hidden tests bring, a Go `TestMain` — are listed in every report with the file and the
//! rule, and whether taskc reverted it before the tests ran.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use taskc_compiler::glob::Glob;
use taskc_compiler::patch::parse_patch;
use taskc_compiler::plan::{Plan, Step};

use crate::predictions::Prediction;

/// Why a file is flagged.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum FlagRule {
    /// The file matches a test-surface glob (`glob`): reverted to base before the tests.
    Surface { glob: String },
    /// The hidden test patch touches the file: restored before the hidden tests apply.
    HiddenTestPath,
    /// A Rust file whose unit tests the hidden tests change: the prediction's changes
    /// inside its `#[cfg(test)]` modules are left out, the rest kept.
    HiddenTestModules,
    /// The patch adds a Go `TestMain`, which decides what a test binary runs and prints.
    TestMain,
    /// The patch cannot be read, so nothing about it can be vouched for.
    UnreadablePatch { detail: String },
}

impl FlagRule {
    /// A short human-readable name of the rule.
    pub fn describe(&self) -> String {
        match self {
            FlagRule::Surface { glob } => format!("test surface `{glob}`"),
            FlagRule::HiddenTestPath => "hidden test path".into(),
            FlagRule::HiddenTestModules => {
                "hidden unit tests beside the code: its `#[cfg(test)]` modules are the hidden tests'".into()
            }
            FlagRule::TestMain => "Go TestMain".into(),
            FlagRule::UnreadablePatch { detail } => format!("unreadable patch: {detail}"),
        }
    }
}

/// One flagged file of a prediction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Flag {
    pub repo: String,
    /// The file's path in the repository (empty for an unreadable patch).
    pub file: String,
    #[serde(flatten)]
    pub rule: FlagRule,
    /// taskc put the file back as it was at base before the tests ran.
    pub reverted: bool,
}

impl Flag {
    /// `repo/file: rule (reverted)`.
    pub fn text(&self) -> String {
        let mut s = format!("{}/{}: {}", self.repo, self.file, self.rule.describe());
        if self.reverted {
            s.push_str(" (reverted)");
        }
        s
    }
}

/// The flags of `prediction` under the score plan `plan`, sorted.
pub fn flags(prediction: &Prediction, plan: &Plan) -> Vec<Flag> {
    let mut surface: BTreeMap<&str, Vec<Glob>> = BTreeMap::new();
    let mut hidden: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut modules: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for run in plan.runs() {
        for step in &run.steps {
            match step {
                Step::RestoreSurface { repo, globs } => {
                    surface.entry(repo).or_insert_with(|| {
                        globs.iter().filter_map(|g| Glob::parse(g).ok()).collect()
                    });
                }
                Step::RestoreFiles { repo, paths } => {
                    hidden
                        .entry(repo)
                        .or_default()
                        .extend(paths.iter().map(String::as_str));
                }
                Step::RestoreTestModules { repo, paths } => {
                    modules
                        .entry(repo)
                        .or_default()
                        .extend(paths.iter().map(String::as_str));
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    for (repo, text) in &prediction.patches {
        if text.trim().is_empty() {
            continue;
        }
        let patch = match parse_patch(text) {
            Ok(p) => p,
            Err(e) => {
                out.insert(Flag {
                    repo: repo.clone(),
                    file: String::new(),
                    rule: FlagRule::UnreadablePatch {
                        detail: e.to_string(),
                    },
                    reverted: false,
                });
                continue;
            }
        };
        let globs = surface.get(repo.as_str()).map_or(&[][..], Vec::as_slice);
        let hidden = hidden.get(repo.as_str());
        let modules = modules.get(repo.as_str());
        for f in &patch.files {
            let paths: Vec<&String> = [&f.old_path, &f.new_path].into_iter().flatten().collect();
            let surface_glob = paths
                .iter()
                .find_map(|p| globs.iter().find(|g| g.matches(p)));
            for p in &paths {
                if let Some(g) = globs.iter().find(|g| g.matches(p)) {
                    out.insert(Flag {
                        repo: repo.clone(),
                        file: p.to_string(),
                        rule: FlagRule::Surface {
                            glob: g.as_str().to_string(),
                        },
                        reverted: true,
                    });
                }
                if modules.is_some_and(|h| h.contains(p.as_str())) {
                    out.insert(Flag {
                        repo: repo.clone(),
                        file: p.to_string(),
                        rule: FlagRule::HiddenTestModules,
                        reverted: false,
                    });
                }
                if hidden.is_some_and(|h| h.contains(p.as_str())) {
                    out.insert(Flag {
                        repo: repo.clone(),
                        file: p.to_string(),
                        rule: FlagRule::HiddenTestPath,
                        reverted: true,
                    });
                }
            }
            let adds_test_main = f
                .added_lines()
                .any(|l| l.text.trim_start().starts_with("func TestMain("));
            if adds_test_main {
                out.insert(Flag {
                    repo: repo.clone(),
                    file: f.path().to_string(),
                    rule: FlagRule::TestMain,
                    reverted: surface_glob.is_some(),
                });
            }
        }
    }
    out.into_iter().collect()
}
