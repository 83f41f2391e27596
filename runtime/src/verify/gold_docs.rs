//! Doc-tests the gold patch brings (issue 21, Done-when: "a removed doc example"). A doc
//! example the reference patch adds to an item (`/// ```` … above `pub fn force_push`) is
//! a test of the reference's documentation, not a hidden test: a correct solution without
//! it (or with other examples) must not be graded unsolved for lacking it. So a doc-test
//! that would be fail-to-pass, of an item whose doc comment the gold patch gives a new
//! example (and the hidden test patch does not), is left out of the oracle, and `verify`
//! says so in a note.

use std::collections::{BTreeMap, BTreeSet};

use taskc_compiler::patch::{parse_patch_lenient, LineKind};
use taskc_compiler::plan::{Plan, Step};

/// Per target: file → the names of the items the gold patch adds a doc example to.
pub type GoldDocItems = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

/// The items each target's gold patch adds a doc example to and its hidden test patch
/// does not.
pub fn gold_doc_items(plan: &Plan) -> GoldDocItems {
    let mut gold: BTreeMap<&str, &str> = BTreeMap::new();
    let mut hidden: BTreeMap<&str, &str> = BTreeMap::new();
    for run in plan.runs() {
        for step in &run.steps {
            match step {
                Step::ApplyGold { repo, blob } => {
                    if let Some(t) = plan.blobs.get(blob) {
                        gold.insert(repo, t);
                    }
                }
                Step::ApplyTests { repo, blob } => {
                    if let Some(t) = plan.blobs.get(blob) {
                        hidden.insert(repo, t);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = GoldDocItems::new();
    for (repo, text) in gold {
        // The items the hidden tests give a doc example themselves stay (hidden tests).
        let hidden_items: BTreeMap<String, BTreeSet<String>> = hidden
            .get(repo)
            .map(|t| {
                parse_patch_lenient(t)
                    .files
                    .iter()
                    .map(|f| (f.path().to_string(), file_items(f)))
                    .collect()
            })
            .unwrap_or_default();
        for f in parse_patch_lenient(text).files {
            if !f.path().ends_with(".rs") {
                continue;
            }
            let mut names = file_items(&f);
            if let Some(h) = hidden_items.get(f.path()) {
                names.retain(|n| !h.contains(n));
            }
            if !names.is_empty() {
                out.entry(repo.to_string())
                    .or_default()
                    .insert(f.path().to_string(), names);
            }
        }
    }
    out
}

/// The items a file patch gives a new doc example.
fn file_items(f: &taskc_compiler::patch::FilePatch) -> BTreeSet<String> {
    documented_items(
        f.hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .filter(|l| l.kind != LineKind::Removed)
            .map(|l| (l.kind == LineKind::Added, l.text.as_str())),
    )
}

/// The items (their last name: `force_push`, `Queue`) whose doc comment gets an added
/// ```` ``` ```` fence in `lines` ((added, text) of a file's hunks, removed lines left out).
fn documented_items<'a>(lines: impl Iterator<Item = (bool, &'a str)>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut pending = false;
    for (added, text) in lines {
        let t = text.trim_start();
        if let Some(doc) = t.strip_prefix("///") {
            if added && doc.trim_start().starts_with("```") {
                pending = true;
            }
            continue;
        }
        if t.starts_with("#[") || t.is_empty() {
            continue;
        }
        if pending {
            if let Some(name) = item_name(t) {
                out.insert(name);
            }
        }
        pending = false;
    }
    out
}

/// The name an item line declares: `pub fn force_push<T>(` → `force_push`.
fn item_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    let at = words.iter().position(|w| {
        matches!(
            *w,
            "fn" | "struct"
                | "enum"
                | "trait"
                | "type"
                | "const"
                | "static"
                | "mod"
                | "union"
                | "macro_rules!"
        )
    })?;
    words.get(at + 1).map(|w| w.to_string())
}

/// Whether the doc-test `id` (`src/lib.rs - Queue<T>::force_push`, maybe ` #2`) documents
/// one of `items`, and so is one the gold patch brings.
pub fn is_gold_doc_test(items: &BTreeMap<String, BTreeSet<String>>, id: &str) -> bool {
    let Some((file, item)) = id.split_once(".rs - ") else {
        return false;
    };
    let item = item.rsplit_once(" #").map_or(item, |(i, n)| {
        if n.bytes().all(|b| b.is_ascii_digit()) {
            i
        } else {
            item
        }
    });
    let last = item.rsplit("::").next().unwrap_or(item);
    let last = last.split('<').next().unwrap_or(last).trim();
    items
        .get(&format!("{file}.rs"))
        .is_some_and(|names| names.contains(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doc_example_the_gold_patch_adds_names_its_item() {
        let lines = [
            (false, "    }"),
            (true, "    /// Appends `value`, making room."),
            (true, "    ///"),
            (true, "    /// ```"),
            (true, "    /// let q = 1;"),
            (true, "    /// ```"),
            (true, "    #[inline]"),
            (
                true,
                "    pub fn force_push(&mut self, value: T) -> Option<T> {",
            ),
            (false, "    /// Removes the oldest item."),
            (false, "    ///"),
            (false, "    /// ```"),
            (false, "    pub fn pop(&mut self) -> Option<T> {"),
        ];
        let names = documented_items(lines.into_iter());
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["force_push"]);
        let items: BTreeMap<String, BTreeSet<String>> =
            [("src/lib.rs".to_string(), ["force_push".to_string()].into())].into();
        assert!(is_gold_doc_test(
            &items,
            "src/lib.rs - Queue<T>::force_push"
        ));
        assert!(is_gold_doc_test(
            &items,
            "src/lib.rs - Queue<T>::force_push #2"
        ));
        assert!(!is_gold_doc_test(&items, "src/lib.rs - Queue<T>::pop"));
        assert!(!is_gold_doc_test(&items, "src/other.rs - force_push"));
        assert!(!is_gold_doc_test(&items, "tests/a.rs::force_push"));
    }
}
