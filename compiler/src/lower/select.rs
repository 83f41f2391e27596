//! Test selection: narrowing a run's test command to given test ids without rewriting the
//! curator's command (`docs/language.md`, "Test selection"). Which parsers can be narrowed
//! is decided at lowering; the narrowed run itself is made in phase 2, once the base and
//! gold results have fixed the ids, by [`narrow_run`] — a pure function the runtime calls.

use crate::parser::{LogParser, Narrowing};
use crate::plan::{canonical_digest, short_id, Run, SelectHow, TestSelection};

/// Why a run cannot be narrowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NarrowError {
    #[error("run {run} has no test step for `{repo}`")]
    NoStep { run: String, repo: String },
    #[error("the `{parser}` command of `{repo}` cannot be narrowed: {why}")]
    NotNarrowable {
        repo: String,
        parser: LogParser,
        why: String,
    },
}

/// Whether `name` is a Go test function name as `go test` finds them: a prefix `Test`,
/// `Example`, `Fuzz` or `Benchmark` not followed by a lower-case letter (Go's `isTest`).
fn is_go_test_name(name: &str) -> bool {
    ["Test", "Example", "Fuzz", "Benchmark"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|rest| !rest.chars().next().is_some_and(char::is_lowercase))
    })
}

/// The test path of a `go-test-json` id (`pkg/path/TestX/sub` → `[TestX, sub]`): the
/// components from the first that names a Go test function (the package path before it).
fn go_levels(id: &str) -> Vec<&str> {
    let parts: Vec<&str> = id.split('/').collect();
    let first = parts
        .iter()
        .position(|c| is_go_test_name(c))
        .unwrap_or(parts.len().saturating_sub(1));
    parts[first..].to_vec()
}

/// The package path of a `go-test-json` id (`pkg/path/TestX/sub` → `pkg/path`): the
/// components before the first that names a Go test function; `None` when no component
/// does (the id of a package as a whole: a build failure, say).
pub fn go_package(id: &str) -> Option<&str> {
    let mut at = 0;
    for part in id.split('/') {
        if is_go_test_name(part) {
            return Some(id[..at].trim_end_matches('/'));
        }
        at += part.len() + 1;
    }
    None
}

/// One level of a Go test name as an anchored regexp matching exactly it: metacharacters
/// escaped (as `regexp.QuoteMeta` does), white space and control characters as `\x{…}` so
/// the pattern is one `GOFLAGS` word. (`go test` reports subtest names rewritten — spaces
/// to `_`, unprintable runes quoted — and matches `-run` against that rewritten name, so
/// the reported name is the one to match.)
fn go_level(name: &str) -> String {
    let mut out = String::from("^");
    for c in name.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
            out.push(c);
        } else if c.is_whitespace() || c.is_control() {
            out.push_str(&format!("\\x{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out.push('$');
    out
}

/// A `-run` pattern selecting exactly the tests `ids` name: one alternative per test path,
/// each level anchored (`^TestA$/^sub$|^TestB$`). A test whose parent is also selected is
/// left out (the parent's alternative runs all its subtests).
pub fn go_pattern(ids: &[String]) -> String {
    let mut paths: Vec<Vec<&str>> = ids.iter().map(|i| go_levels(i)).collect();
    paths.sort();
    paths.dedup();
    let kept: Vec<&Vec<&str>> = paths
        .iter()
        .filter(|p| !paths.iter().any(|q| q.len() < p.len() && p.starts_with(q)))
        .collect();
    kept.iter()
        .map(|p| p.iter().map(|l| go_level(l)).collect::<Vec<_>>().join("/"))
        .collect::<Vec<_>>()
        .join("|")
}

/// What a `select` template's `{ids}` stands for.
pub const IDS_PLACEHOLDER: &str = "{ids}";

/// `template` with `{ids}` replaced by `ids`, each quoted as one POSIX shell word and
/// separated by spaces: an id with spaces, quotes, brackets or newlines reaches the command
/// as exactly one argument, byte for byte.
pub fn fill_template(template: &str, ids: &[String]) -> String {
    let words: Vec<String> = ids.iter().map(|i| super::shell_word::quote(i)).collect();
    template.replace(IDS_PLACEHOLDER, &words.join(" "))
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
    let how = match (step.parser.descriptor().narrowing, &step.select_template) {
        (Narrowing::PytestPlugin, _) => SelectHow::PytestPlugin,
        (Narrowing::GoRun, _) => SelectHow::GoRun {
            pattern: go_pattern(&ids),
        },
        (Narrowing::Template { .. } | Narrowing::Arguments(_), Some(template)) => {
            SelectHow::Command {
                command: fill_template(template, &ids),
            }
        }
        // The runner's own arguments, appended to its invocation: read as a template's
        // command is (it may run more than the ids; a missing id is no evidence).
        (Narrowing::Arguments(selector), None) => {
            match super::select_args::insert_arguments(&step.command, selector, &ids) {
                Ok(command) => SelectHow::Command { command },
                Err(why) => {
                    return Err(NarrowError::NotNarrowable {
                        repo: repo.to_string(),
                        parser: step.parser,
                        why,
                    })
                }
            }
        }
        (Narrowing::Template { why }, None) => {
            return Err(NarrowError::NotNarrowable {
                repo: repo.to_string(),
                parser: step.parser,
                why: why.to_string(),
            })
        }
    };
    // A template's command is the curator's: whether it stops early is its own business.
    let fail_fast = fail_fast && !matches!(how, SelectHow::Command { .. });
    step.select = Some(TestSelection {
        ids,
        fail_fast,
        how,
    });
    let digest = canonical_digest("taskc.run.narrowed/2", &(&run.digest, &step.select));
    out.id = short_id("run", &digest);
    out.digest = digest;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn go_patterns_anchor_every_level() {
        let ids = strings(&[
            "github.com/x/y/TestB/case_1",
            "github.com/x/y/TestA",
            "github.com/x/y/TestC/a_b/deep",
        ]);
        assert_eq!(
            go_pattern(&ids),
            "^TestA$|^TestB$/^case_1$|^TestC$/^a_b$/^deep$"
        );
        // A selected parent covers its subtests.
        let ids = strings(&["p/TestB/case_1", "p/TestB"]);
        assert_eq!(go_pattern(&ids), "^TestB$");
        assert_eq!(go_pattern(&strings(&["p/Test.x"])), r"^Test\.x$");
        assert_eq!(
            go_pattern(&strings(&["p/TestX/x[1]_(a|b)*"])),
            r"^TestX$/^x\[1\]_\(a\|b\)\*$"
        );
        assert_eq!(
            go_pattern(&strings(&["p/TestX/a\tb"])),
            r"^TestX$/^a\x{9}b$"
        );
    }

    #[test]
    fn go_package_components_are_not_test_names() {
        assert_eq!(
            go_levels("example.com/Testing/pkg/TestA/sub"),
            ["TestA", "sub"]
        );
        assert_eq!(go_levels("example.com/pkg/Test/sub"), ["Test", "sub"]);
        assert_eq!(go_levels("example.com/pkg/ExampleFoo"), ["ExampleFoo"]);
    }

    #[test]
    fn go_packages_end_before_the_first_test_name() {
        assert_eq!(
            go_package("example.com/r1/TestX/sub"),
            Some("example.com/r1")
        );
        assert_eq!(
            go_package("example.com/Testing/pkg/TestA"),
            Some("example.com/Testing/pkg")
        );
        assert_eq!(go_package("example.com/r1"), None);
    }

    #[test]
    fn templates_get_each_id_as_one_shell_word() {
        let ids = strings(&["a b", "it's", "x[\"q\"]", "new\nline", "plain::t"]);
        assert_eq!(
            fill_template("npx jest {ids} --json", &ids),
            "npx jest 'a b' 'it'\\''s' 'x[\"q\"]' 'new\nline' plain::t --json"
        );
    }
}
