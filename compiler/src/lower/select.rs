//! Test selection: narrowing a run's test command to given test ids without rewriting the
//! curator's command (`docs/language.md`, "Test selection"). Which parsers can be narrowed
//! is decided at lowering; the narrowed run itself is made in phase 2, once the base and
//! gold results have fixed the ids, by [`narrow_run`] — a pure function the runtime calls.

use crate::plan::{canonical_digest, short_id, Run, SelectHow, TestSelection};

/// How a parser's command is narrowed, or why it cannot be.
pub fn narrowable(parser: &str) -> Result<(), &'static str> {
    match parser {
        "pytest" => Ok(()),
        "go-test-json" => Ok(()),
        "jest-json" => {
            Err("a jest command is narrowed only by its own arguments (`--testNamePattern`)")
        }
        "cargo" => {
            Err("a cargo test command is narrowed only by its own arguments (a filter after `--`)")
        }
        "tap" => Err("a TAP producer has no common way to select tests"),
        "junit-xml" => Err("a JUnit XML producer has no common way to select tests"),
        _ => Err("unknown parser"),
    }
}

/// Why a run cannot be narrowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NarrowError {
    #[error("run {run} has no test step for `{repo}`")]
    NoStep { run: String, repo: String },
    #[error("the `{parser}` command of `{repo}` cannot be narrowed: {why}")]
    NotNarrowable {
        repo: String,
        parser: String,
        why: &'static str,
    },
}

/// The top-level Go test function of a `go-test-json` id (`pkg/path/TestX/sub` → `TestX`):
/// the first path component that starts like a Go test function.
fn go_top_level(id: &str) -> &str {
    id.split('/')
        .find(|c| {
            ["Test", "Example", "Fuzz", "Benchmark"]
                .iter()
                .any(|p| c.starts_with(p))
        })
        .unwrap_or(id)
}

/// `^(A|B)$` over the top-level names of `ids`, regexp metacharacters escaped. Go test
/// names are identifiers, but escaping keeps any id exact.
fn go_pattern(ids: &[String]) -> String {
    let mut names: Vec<String> = ids
        .iter()
        .map(|i| {
            go_top_level(i)
                .chars()
                .flat_map(|c| {
                    let meta = r"\.+*?()|[]{}^$".contains(c);
                    meta.then_some('\\').into_iter().chain([c])
                })
                .collect()
        })
        .collect();
    names.sort();
    names.dedup();
    format!("^({})$", names.join("|"))
}

/// `run` with the test step of `repo` narrowed to `ids` (sorted, deduplicated), with a new
/// id: the selection is part of what decides the outcome, so it is hashed with the full
/// run's digest.
pub fn narrow_run(
    run: &Run,
    repo: &str,
    ids: &[String],
    fail_fast: bool,
) -> Result<Run, NarrowError> {
    let mut out = run.clone();
    if out.test.repo != repo {
        return Err(NarrowError::NoStep {
            run: run.id.clone(),
            repo: repo.to_string(),
        });
    }
    let step = &mut out.test;
    let mut ids = ids.to_vec();
    ids.sort();
    ids.dedup();
    let how = match step.parser.as_str() {
        "pytest" => SelectHow::PytestPlugin,
        "go-test-json" => SelectHow::GoRun {
            pattern: go_pattern(&ids),
        },
        other => {
            return Err(NarrowError::NotNarrowable {
                repo: repo.to_string(),
                parser: other.to_string(),
                why: narrowable(other).err().unwrap_or("no selection method"),
            })
        }
    };
    step.select = Some(TestSelection {
        ids,
        fail_fast,
        how,
    });
    let digest = canonical_digest("taskc.run.narrowed/1", &(&run.digest, &step.select));
    out.id = short_id("run", &digest);
    out.digest = digest;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_patterns_anchor_top_level_names() {
        let ids = vec![
            "github.com/x/y/TestB/case_1".to_string(),
            "github.com/x/y/TestA".to_string(),
            "github.com/x/y/TestB".to_string(),
        ];
        assert_eq!(go_pattern(&ids), "^(TestA|TestB)$");
        assert_eq!(go_pattern(&["p/Test.x".to_string()]), r"^(Test\.x)$");
    }
}
