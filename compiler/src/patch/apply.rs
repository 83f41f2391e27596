//! Applying parsed patches in memory, to say at `check` time whether they apply at base.
//!
//! The rules are `git apply`'s without fuzz: every hunk's context and removed lines must
//! match the file exactly (a trailing `\r` aside), at the line the hunk header names or
//! shifted (nearest first, hunks in order, never overlapping); a file the patch changes,
//! deletes or renames must exist; a file it creates must not. Binary changes are checked for
//! existence only, and leave the file's content unknown to later patches.
//!
//! Patches stack: [`Overlay`] holds what earlier patches changed over a base [`Tree`].

use std::collections::BTreeMap;

use super::{FilePatch, LineKind, Patch};
use crate::loader::{LoadError, Tree};

/// A file's state after the patches applied so far.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Lines(Vec<String>),
    Deleted,
    /// Changed by a binary patch (or unreadable): its content is not known.
    Unknown,
}

/// A base tree and what the patches applied to it so far changed.
pub struct Overlay<'t> {
    tree: &'t dyn Tree,
    changed: BTreeMap<String, State>,
}

/// Why a file patch does not apply. `file` indexes [`Patch::files`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyProblem {
    /// The patch changes, deletes or renames `path`, which does not exist.
    Missing { file: usize, path: String },
    /// The patch creates `path`, which already exists.
    Exists { file: usize, path: String },
    /// A hunk's lines are nowhere in the file. `line` indexes the hunk's lines: the first
    /// one that differs at the place the hunk names; `found` is what the file has there
    /// (`None`: the file ends first); `at` is that place, 1-based.
    Context {
        file: usize,
        hunk: usize,
        line: usize,
        at: usize,
        found: Option<String>,
    },
}

impl<'t> Overlay<'t> {
    pub fn new(tree: &'t dyn Tree) -> Overlay<'t> {
        Overlay {
            tree,
            changed: BTreeMap::new(),
        }
    }

    /// Whether `path` exists now.
    pub fn exists(&self, path: &str) -> bool {
        match self.changed.get(path) {
            Some(State::Deleted) => false,
            Some(_) => true,
            None => self
                .tree
                .paths()
                .binary_search_by(|p| p.as_str().cmp(path))
                .is_ok(),
        }
    }

    fn content(&self, path: &str) -> State {
        match self.changed.get(path) {
            Some(s) => s.clone(),
            None => match self.tree.read(path) {
                Ok(bytes) => State::Lines(lines(&String::from_utf8_lossy(&bytes))),
                Err(LoadError::NotFound) => State::Deleted,
                Err(_) => State::Unknown,
            },
        }
    }

    /// Apply `patch` on top of what is here. Files that apply are applied; the problems of
    /// the others are returned (empty: the whole patch applies).
    pub fn apply(&mut self, patch: &Patch) -> Vec<ApplyProblem> {
        let mut problems = Vec::new();
        for (i, f) in patch.files.iter().enumerate() {
            if let Err(p) = self.apply_file(i, f) {
                problems.push(p);
            }
        }
        problems
    }

    fn apply_file(&mut self, i: usize, f: &FilePatch) -> Result<(), ApplyProblem> {
        let (before, after) = (f.old_path.as_deref(), f.new_path.as_deref());
        let old = match before {
            Some(path) => {
                if !self.exists(path) {
                    return Err(ApplyProblem::Missing {
                        file: i,
                        path: path.to_string(),
                    });
                }
                Some(self.content(path))
            }
            None => None,
        };
        if let Some(path) = after {
            let renamed = before.is_some_and(|b| b != path);
            if (before.is_none() || renamed) && self.exists(path) {
                return Err(ApplyProblem::Exists {
                    file: i,
                    path: path.to_string(),
                });
            }
        }
        let result = match (f.binary, old) {
            (true, _) | (_, Some(State::Unknown)) => State::Unknown,
            (false, None) => State::Lines(apply_hunks(i, f, &[])?),
            (false, Some(State::Lines(l))) => State::Lines(apply_hunks(i, f, &l)?),
            (false, Some(State::Deleted)) => {
                return Err(ApplyProblem::Missing {
                    file: i,
                    path: before.unwrap_or_default().to_string(),
                })
            }
        };
        match after {
            Some(path) => {
                self.changed.insert(path.to_string(), result);
            }
            None => {
                if let Some(path) = before {
                    self.changed.insert(path.to_string(), State::Deleted);
                }
            }
        }
        Ok(())
    }
}

/// `f`'s hunks applied to the lines `old` (as [`Overlay`] applies them: exact context,
/// shifted nearest first); `None` when a hunk does not apply.
pub fn apply_to_lines(f: &FilePatch, old: &[String]) -> Option<Vec<String>> {
    apply_hunks(0, f, old).ok()
}

/// A text's lines without their endings (`\n`, `\r\n`).
pub fn lines(text: &str) -> Vec<String> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_string())
        .collect()
}

fn apply_hunks(file: usize, f: &FilePatch, old: &[String]) -> Result<Vec<String>, ApplyProblem> {
    let mut out: Vec<String> = Vec::with_capacity(old.len());
    let mut cursor = 0usize;
    let mut shift: isize = 0;
    for (h_i, h) in f.hunks.iter().enumerate() {
        let pre: Vec<(usize, &str)> = h
            .lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.kind != LineKind::Added)
            .map(|(k, l)| (k, l.text.as_str()))
            .collect();
        let post = h
            .lines
            .iter()
            .filter(|l| l.kind != LineKind::Removed)
            .map(|l| l.text.clone());
        let named = if h.old_len == 0 {
            h.old_start as usize
        } else {
            (h.old_start as usize).saturating_sub(1)
        };
        let expected = named.saturating_add_signed(shift).max(cursor);
        let fits = |at: usize| {
            at + pre.len() <= old.len()
                && pre
                    .iter()
                    .zip(&old[at..])
                    .all(|((_, want), have)| *want == have.as_str())
        };
        let last = old.len().saturating_sub(pre.len());
        let found = (0..=old.len()).find_map(|d| {
            let up = expected.checked_add(d).filter(|&a| a <= last && fits(a));
            let down = expected
                .checked_sub(d)
                .filter(|&a| d > 0 && a >= cursor && a <= last && fits(a));
            up.or(down)
        });
        let Some(at) = found.filter(|&a| pre.is_empty() || a + pre.len() <= old.len()) else {
            let expected = expected.min(old.len());
            let (line, found) = pre
                .iter()
                .enumerate()
                .find(|(k, (_, want))| old.get(expected + k).map(String::as_str) != Some(*want))
                .map(|(k, (line, _))| (*line, old.get(expected + k).cloned()))
                .unwrap_or((pre.first().map_or(0, |p| p.0), None));
            let offset = pre.iter().position(|p| p.0 == line).unwrap_or(0);
            return Err(ApplyProblem::Context {
                file,
                hunk: h_i,
                line,
                at: expected + offset + 1,
                found,
            });
        };
        let at = if pre.is_empty() {
            at.min(old.len())
        } else {
            at
        };
        out.extend_from_slice(&old[cursor..at]);
        out.extend(post);
        cursor = at + pre.len();
        shift = at as isize - named as isize;
    }
    out.extend_from_slice(&old[cursor.min(old.len())..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::MemTree;
    use crate::patch::parse_patch;

    fn tree(files: &[(&str, &str)]) -> MemTree {
        MemTree::new(
            files
                .iter()
                .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
                .collect(),
        )
    }

    fn apply(files: &[(&str, &str)], patch: &str) -> Vec<ApplyProblem> {
        let t = tree(files);
        let mut o = Overlay::new(&t);
        o.apply(&parse_patch(patch).expect("parses"))
    }

    const MODIFY: &str = "--- a/a.py\n+++ b/a.py\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n";

    #[test]
    fn exact_context_applies() {
        assert_eq!(apply(&[("a.py", "a\nb\nc\nd\n")], MODIFY), vec![]);
    }

    #[test]
    fn shifted_context_applies() {
        assert_eq!(apply(&[("a.py", "x\ny\na\nb\nc\nd\n")], MODIFY), vec![]);
    }

    #[test]
    fn changed_context_does_not_apply() {
        assert_eq!(
            apply(&[("a.py", "a\nb\nX\nd\n")], MODIFY),
            vec![ApplyProblem::Context {
                file: 0,
                hunk: 0,
                line: 1,
                at: 3,
                found: Some("X".into())
            }]
        );
    }

    #[test]
    fn missing_and_existing_files() {
        assert_eq!(
            apply(&[("b.py", "")], MODIFY),
            vec![ApplyProblem::Missing {
                file: 0,
                path: "a.py".into()
            }]
        );
        let create = "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+x\n";
        assert_eq!(apply(&[("b.py", "")], create), vec![]);
        assert_eq!(
            apply(&[("a.py", "")], create),
            vec![ApplyProblem::Exists {
                file: 0,
                path: "a.py".into()
            }]
        );
    }

    #[test]
    fn stacked_patches_see_earlier_changes() {
        let t = tree(&[("a.py", "a\nb\nc\nd\n")]);
        let mut o = Overlay::new(&t);
        assert!(o.apply(&parse_patch(MODIFY).expect("parses")).is_empty());
        let second = "--- a/a.py\n+++ b/a.py\n@@ -3,2 +3,2 @@\n C\n-d\n+D\n";
        assert!(o.apply(&parse_patch(second).expect("parses")).is_empty());
        // The first patch again no longer applies: `c` is gone.
        assert_eq!(o.apply(&parse_patch(MODIFY).expect("parses")).len(), 1);
    }

    #[test]
    fn crlf_files_and_files_without_final_newline() {
        assert_eq!(apply(&[("a.py", "a\r\nb\r\nc\r\nd\r\n")], MODIFY), vec![]);
        assert_eq!(apply(&[("a.py", "a\nb\nc")], MODIFY), vec![]);
    }

    #[test]
    fn deleting_a_file_then_it_is_gone() {
        let del = "--- a/a.py\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n";
        let t = tree(&[("a.py", "a\n")]);
        let mut o = Overlay::new(&t);
        assert!(o.apply(&parse_patch(del).expect("parses")).is_empty());
        assert!(!o.exists("a.py"));
    }
}
