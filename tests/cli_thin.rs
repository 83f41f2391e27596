//! Invariant: the CLI is thin. Read from the sources of `src/`, so new orchestration in a
//! command fails here:
//! - the CLI names only the runtime modules it renders or calls an entry point of (never
//!   the executor, grading, repositories, backends, results, parsers, reports, locks);
//! - an executing command calls exactly one runtime entry point (`verify` →
//!   `pipeline::verify_specs`, `score` → `pipeline::score_specs`, `workspace` →
//!   `pipeline::workspace_spec`, `gc` → `pipeline::collect_garbage`), besides the cache
//!   folder's default, and imports no runtime function by name (so every call is seen);
//! - no command has an `async fn` or an `.await`: each hands one future to `Context::rt`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

mod common;

/// `taskc_runtime::<path>` prefixes the CLI may name: entry points and what it renders.
const ALLOWED: &[&str] = &[
    "pipeline",
    // `check` and `diff` read specs through the compiler's loader.
    "fs_loader",
    // `plan -o`, `collect -o`.
    "atomic",
    // One entry point each: `import`, `export harbor`, `image bootstrap`, `collect`.
    "import",
    "export",
    "bootstrap",
    "predictions::collect",
    "predictions::harbor",
    // Rendering `verify`'s outcome.
    "verify::truth",
    "canary::CanarySummary",
];

/// Executing commands and their one entry point.
const ENTRY: &[(&str, &str)] = &[
    ("commands/verify.rs", "verify_specs"),
    ("commands/score.rs", "score_specs"),
    ("commands/workspace.rs", "workspace_spec"),
    ("commands/gc.rs", "collect_garbage"),
];

/// Functions of `pipeline` any command may call: where the cache is.
const HELPERS: &[&str] = &["cache_or_default", "default_cache"];

/// The code of a file: without its unit tests and comments.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Every runtime path `code` names: `use taskc_runtime::…;` trees flattened, and
/// `taskc_runtime::…` in expressions; with whether a `use` names it.
fn named_paths(code: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = code[at..].find("taskc_runtime::") {
        let start = at + i;
        let line_start = code[..start].rfind('\n').map_or(0, |n| n + 1);
        let head = code[line_start..start].trim_start();
        let in_use = head.starts_with("use ") || head.starts_with("pub use ");
        let rest = &code[start + "taskc_runtime::".len()..];
        let end = if in_use {
            rest.find(';').unwrap_or(rest.len())
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len())
        };
        let mut paths = Vec::new();
        flatten("", &rest[..end], &mut paths);
        out.extend(paths.into_iter().map(|p| (p, in_use)));
        at = start + "taskc_runtime::".len();
    }
    out
}

/// The runtime paths `code` names.
fn runtime_paths(code: &str) -> Vec<String> {
    named_paths(code).into_iter().map(|(p, _)| p).collect()
}

/// `a::{b, c::{d}}` → `a::b`, `a::c::d` (after `prefix`).
fn flatten(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim().trim_end_matches(',').trim();
    match tree.find('{') {
        None => {
            let path = tree.split_whitespace().next().unwrap_or("");
            out.push(format!("{prefix}{path}").trim_end_matches("::").to_string());
        }
        Some(open) => {
            let head = format!("{prefix}{}", &tree[..open]);
            let Some(close) = tree.rfind('}') else {
                out.push(head);
                return;
            };
            let inner = &tree[open + 1..close];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        flatten(&head, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            if !inner[start..].trim().is_empty() {
                flatten(&head, &inner[start..], out);
            }
        }
    }
}

/// The runtime functions `code` calls as `pipeline::f(`.
fn pipeline_calls(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("pipeline::") {
        rest = &rest[i + "pipeline::".len()..];
        let name = ident_at(rest);
        if name.starts_with(|c: char| c.is_lowercase()) && rest[name.len()..].starts_with('(') {
            out.insert(name.to_string());
        }
    }
    out
}

/// What is wrong with the CLI file `rel` whose code is `code`.
fn offences(rel: &str, code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (path, in_use) in named_paths(code) {
        let allowed = ALLOWED
            .iter()
            .any(|a| path == *a || path.starts_with(&format!("{a}::")));
        if !allowed {
            found.push(format!("{rel}: names `taskc_runtime::{path}`"));
        }
        // A function imported by name would be called unseen.
        if let Some(name) = path.strip_prefix("pipeline::").filter(|_| in_use) {
            if name != "self" && name.starts_with(|c: char| c.is_lowercase()) {
                found.push(format!(
                    "{rel}: imports `pipeline::{name}`; call it as `pipeline::{name}(…)`"
                ));
            }
        }
    }
    let calls: BTreeSet<String> = pipeline_calls(code)
        .into_iter()
        .filter(|c| !HELPERS.contains(&c.as_str()))
        .collect();
    match ENTRY.iter().find(|(file, _)| *file == rel) {
        Some((_, entry)) => {
            let want = BTreeSet::from([entry.to_string()]);
            if calls != want {
                found.push(format!(
                    "{rel}: calls {calls:?} of `pipeline`; an executing command calls only `{entry}`"
                ));
            }
        }
        None if calls.len() > 1 => {
            found.push(format!(
                "{rel}: calls {calls:?} of `pipeline`; one entry point per command"
            ));
        }
        None => {}
    }
    if code.contains("async fn") || code.contains(".await") {
        found.push(format!(
            "{rel}: awaits; hand one runtime entry point to `ctx.rt.block_on`"
        ));
    }
    found
}

#[test]
fn commands_call_one_entry_point_and_name_no_runtime_internals() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = common::files_with_ext(&src, "rs");
    let mut found = Vec::new();
    let mut seen_entries = BTreeSet::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let code = code(&std::fs::read_to_string(f).unwrap());
        if ENTRY.iter().any(|(file, _)| *file == rel) {
            seen_entries.insert(rel.clone());
        }
        found.extend(offences(&rel, &code));
    }
    assert_eq!(
        seen_entries.len(),
        ENTRY.len(),
        "an executing command moved"
    );
    assert!(
        found.is_empty(),
        "move the logic behind a runtime entry point (runtime/src/pipeline/):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_guard_finds_orchestration_in_a_command() {
    // The shape `score.rs` had before `score_specs`: five runtime calls and an internal.
    let before = "use taskc_runtime::pipeline::{self, PredictionSource, ScoreOptions};\n\
                  use taskc_runtime::report::Report;\n\
                  async fn run_async() {\n\
                  let input = pipeline::read_predictions(&source, &tasks);\n\
                  let locked = pipeline::load_oracle(&l.path, &l.task, &lower, false);\n\
                  let o = pipeline::score(&session, &l.task, &l.dir, &o, p, &opts).await;\n\
                  pipeline::write_reports(&out, &summary);\n}";
    let found = offences("commands/score.rs", before);
    assert!(
        found
            .iter()
            .any(|f| f.contains("`taskc_runtime::report::Report`")),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.contains("an executing command calls only")),
        "{found:?}"
    );
    assert!(found.iter().any(|f| f.contains("awaits")), "{found:?}");
    let hidden = "use taskc_runtime::pipeline::{self, score};\nfn f() { score(); }";
    assert!(
        offences("commands/plan.rs", hidden)
            .iter()
            .any(|f| f.contains("imports `pipeline::score`")),
        "a function imported by name is refused"
    );
    let nested = "use taskc_runtime::{pipeline::Site, exec::{Executor, Job}};";
    assert_eq!(
        runtime_paths(nested),
        ["pipeline::Site", "exec::Executor", "exec::Job"]
    );
    let after = "use taskc_runtime::pipeline::{self, ScoreEvent};\n\
                 fn run() { ctx.rt.block_on(pipeline::score_specs(&s, &p, &o, &mut r)); \
                 taskc_runtime::pipeline::cache_or_default(None); }";
    assert_eq!(offences("commands/score.rs", after), Vec::<String>::new());
}
