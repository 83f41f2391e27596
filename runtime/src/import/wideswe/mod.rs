//! `taskc import wideswe CASE_DIR…`: WideSWE cases (`cases/<ecosystem>/<case_id>/`) become
//! taskc task folders. The mapping, field by field, is in docs/import.md.

pub mod case;
pub mod profile;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use taskc_compiler::patch::parse_patch;
use taskc_compiler::{Code, Diagnostic};

use super::build::{call, ident, list, render, string, Stmt};
use super::files::{CaseFiles, Text};
use super::output::{write, TaskFolder, WriteError};
use super::{CaseReport, ImportOptions, ImportReport};
use case::{Case, CaseRepo};

/// Import every case folder in `dirs`, going on past a bad one.
pub fn import_cases(dirs: &[&Path], opts: &ImportOptions) -> ImportReport {
    ImportReport {
        cases: dirs.iter().map(|d| import_case(d, opts)).collect(),
    }
}

/// Import one case folder.
pub fn import_case(dir: &Path, opts: &ImportOptions) -> CaseReport {
    let mut files = CaseFiles::new(dir);
    let fallback = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string());
    let Some(case) = case::read(&mut files) else {
        let (diagnostics, sources) = files.into_parts();
        return CaseReport {
            case: fallback,
            out: None,
            diagnostics,
            sources,
        };
    };
    let folder = convert(&case, &mut files, opts);
    let id = case.id.clone();
    let mut out = None;
    if let Some(folder) = folder.filter(|_| !files.diagnostics.iter().any(Diagnostic::is_error)) {
        out = finish(&folder, &mut files, opts);
    }
    let (diagnostics, sources) = files.into_parts();
    CaseReport {
        case: id,
        out,
        diagnostics,
        sources,
    }
}

/// Check the generated spec, then write it; a spec that does not check clean is never written.
pub(crate) fn finish(
    folder: &TaskFolder,
    files: &mut CaseFiles,
    opts: &ImportOptions,
) -> Option<std::path::PathBuf> {
    let (diags, sources) = folder.check();
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    if !errors.is_empty() {
        let spec = files.sources.add(folder.spec_name(), folder.spec_text());
        let detail: Vec<String> = errors
            .iter()
            .map(|d| {
                let f = sources.get(d.primary.source);
                let (line, col) = f.line_col(d.primary.span.start as usize);
                format!("{}:{line}:{col}: {} {}", f.name, d.code.as_str(), d.message)
            })
            .collect();
        files.emit(
            Diagnostic::new(
                Code::ImportSpecInvalid,
                format!(
                    "the spec generated for `{}` does not check clean: {}",
                    folder.id,
                    detail.join("; ")
                ),
                files.at(spec, 0, "generated spec"),
            )
            .with_help("nothing was written; the case holds something the importer cannot express faithfully"),
        );
        return None;
    }
    match write(&opts.out, folder, opts.force) {
        Ok(p) => Some(p),
        Err(WriteError::Exists(p)) => {
            files.file_problem(
                Code::ImportOutExists,
                &folder.spec_name(),
                format!("`{}` already exists; nothing was written", p.display()),
                "pass --force to replace it, or choose another --out",
            );
            None
        }
        Err(WriteError::Io(p, e)) => {
            files.file_problem(
                Code::ImportFileMissing,
                &folder.spec_name(),
                format!("cannot write `{}`: {e}", p.display()),
                "check that --out is a writable folder",
            );
            None
        }
    }
}

fn note(files: &mut CaseFiles, text: &Text, at: usize, message: String, help: &str) {
    let label = files.at(text.source, at, "here");
    files.emit(Diagnostic::new(Code::ImportNote, message, label).with_help(help.to_string()));
}

fn error(files: &mut CaseFiles, code: Code, text: &Text, at: usize, message: String, help: &str) {
    let label = files.at(text.source, at, "here");
    files.emit(Diagnostic::new(code, message, label).with_help(help.to_string()));
}

/// A repository name as taskc spells it.
fn repo_name(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, 'r');
    }
    s
}

/// The task id as taskc spells it (`[a-z0-9][a-z0-9._-]*`).
fn task_id(id: &str) -> String {
    let s: String = id
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    s.trim_start_matches(['.', '_', '-']).to_string()
}

/// The case as a task folder (spec, prompt, patches, environment, oracle).
fn convert(case: &Case, files: &mut CaseFiles, opts: &ImportOptions) -> Option<TaskFolder> {
    let id = task_id(&case.id);
    let mut out: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    out.insert("prompt.md".into(), case.prompt.text.clone().into_bytes());

    // WideSWE workspace paths → taskc's `/work/<name>`.
    let paths: Vec<(String, String)> = case
        .repos
        .iter()
        .map(|r| {
            (
                format!("/workspace/{}", r.local_path),
                format!("/work/{}", repo_name(&r.name)),
            )
        })
        .collect();

    let env = environment(case, files, opts, &mut out);

    let mut repo_stmts = Vec::new();
    for r in &case.repos {
        let name = repo_name(&r.name);
        let mut body = vec![
            Stmt::new("source", vec![call("git", &r.url)]),
            Stmt::new("base", vec![string(&r.base)]),
        ];
        if !r.target {
            repo_stmts.push(
                Stmt::new("context", vec![ident(&name)])
                    .block(body)
                    .comment(&format!("WideSWE role `{}`; not scored", r.role))
                    .spaced(),
            );
            continue;
        }
        if let Some(g) = &r.gold {
            match parse_patch(&g.text) {
                Err(e) => error(
                    files,
                    Code::ImportPatch,
                    g,
                    0,
                    format!("the gold patch `{}` does not parse: {e:?}", g.rel),
                    "regenerate it with `git diff`",
                ),
                Ok(p) if p.files.is_empty() => error(
                    files,
                    Code::ImportPatch,
                    g,
                    0,
                    format!("the gold patch `{}` changes no file", g.rel),
                    "regenerate it with `git diff` between the base and gold commits",
                ),
                Ok(_) => {}
            }
            let rel = format!("gold/{name}.patch");
            out.insert(rel.clone(), g.text.clone().into_bytes());
            body.push(Stmt::new("gold", vec![call("file", &rel)]));
        }
        let (test, uses) = test_block(case, r, &name, &paths, files, &mut out)?;
        for u in uses {
            body.push(Stmt::new("uses", vec![ident(&u)]));
        }
        body.push(test);
        repo_stmts.push(
            Stmt::new("repo", vec![ident(&name)])
                .block(body)
                .comment(&format!("WideSWE role `{}`", r.role))
                .spaced(),
        );
    }

    let kind = match case.task_type.as_deref() {
        Some(t) if t.contains("bug") || t.contains("fix") => "bugfix",
        _ => "feature",
    };
    let mut fields = Vec::new();
    if let Some((_, title)) = case.prs.first() {
        if !title.is_empty() {
            fields.push(Stmt::new("title", vec![string(title)]));
        }
    }
    fields.push(Stmt::new("kind", vec![ident(kind)]).comment(&format!(
        "WideSWE task_type: {}",
        case.task_type.as_deref().unwrap_or("(none)")
    )));
    if let Some(e) = &case.ecosystem {
        fields.push(Stmt::new("ecosystem", vec![string(e)]));
    }
    let links: Vec<String> = case.prs.iter().map(|(u, _)| u.clone()).collect();
    if !links.is_empty() {
        fields.push(Stmt::new("links", vec![list(&links)]));
    }
    fields.push(Stmt::new("prompt", vec![call("file", "prompt.md")]));
    fields.push(
        Stmt::new("verify", vec![ident("per-repo")])
            .comment("WideSWE's matrix: every target fails at base and passes with gold"),
    );
    let mut env = env?;
    if let Some(c) = &case.cutoff {
        env = env.comment(&format!(
            "context cutoff (WideSWE workspace_policy.cutoff_time): {c}"
        ));
    }
    fields.push(env.spaced());
    fields.extend(repo_stmts);

    let mut header = format!(
        "Imported from WideSWE case `{}` by `taskc import wideswe`.",
        case.id
    );
    if case.oracle.is_some() {
        header.push_str(&format!(
            "\nIts recorded oracle: `taskc verify --compare-oracle {id}.oracle.toml`."
        ));
    }
    let task = Stmt::new("task", vec![string(&id)])
        .block(fields)
        .comment(&header);
    out.insert(format!("{id}.task"), render(vec![task]).into_bytes());
    match &case.oracle {
        Some(o) => {
            let mut o = o.clone();
            o.repos = o
                .repos
                .into_iter()
                .map(|(k, v)| (repo_name(&k), v))
                .collect();
            out.insert(format!("{id}.oracle.toml"), o.to_toml().into_bytes());
        }
        None if files.exists("oracles/scoring_manifest.json") => {}
        None => {
            let source = files
                .sources
                .add(files.shown("oracles/scoring_manifest.json"), String::new());
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    "the case has no oracles/scoring_manifest.json: no oracle to compare with",
                    files.at(source, 0, "missing"),
                )
                .with_help("run `taskc verify` to derive the oracle; nothing can be cross-checked"),
            );
        }
    }
    Some(TaskFolder { id, files: out })
}

/// The test block of target `r`, and the repositories its profile puts on its path.
fn test_block(
    case: &Case,
    r: &CaseRepo,
    name: &str,
    paths: &[(String, String)],
    files: &mut CaseFiles,
    out: &mut BTreeMap<String, Vec<u8>>,
) -> Option<(Stmt, Vec<String>)> {
    let patches = case.hidden.get(&r.name).cloned().unwrap_or_default();
    let Some(first) = patches.first() else {
        let source = files
            .sources
            .add(files.shown("harness.yaml"), String::new());
        files.emit(
            Diagnostic::new(
                Code::ImportField,
                format!(
                    "harness.yaml has no hidden test patch for the task repository `{}`",
                    r.name
                ),
                files.at(source, 0, "here"),
            )
            .with_help("add a `hidden_test_patches` entry for it"),
        );
        return None;
    };
    // Stacked patches: kept in order in one file when they touch different files.
    let mut touched: BTreeSet<String> = BTreeSet::new();
    let mut text = String::new();
    for p in &patches {
        let parsed = match parse_patch(&p.patch.text) {
            Ok(x) if x.files.is_empty() => {
                error(
                    files,
                    Code::ImportPatch,
                    &p.patch,
                    0,
                    format!("the hidden test patch `{}` changes no file", p.patch.rel),
                    "regenerate it with `git diff`",
                );
                return None;
            }
            Ok(x) => x,
            Err(e) => {
                error(
                    files,
                    Code::ImportPatch,
                    &p.patch,
                    0,
                    format!(
                        "the hidden test patch `{}` does not parse: {e:?}",
                        p.patch.rel
                    ),
                    "regenerate it with `git diff`",
                );
                return None;
            }
        };
        for f in &parsed.files {
            if !touched.insert(f.path().to_string()) {
                error(
                    files,
                    Code::ImportPatch,
                    &p.patch,
                    0,
                    format!(
                        "the stacked hidden test patch `{}` changes `{}` again, after an earlier patch for `{}`",
                        p.patch.rel,
                        f.path(),
                        r.name
                    ),
                    "the importer keeps stacked patches only when they touch different files; fold them into one patch (or write the change as a `relax … edit`)",
                );
                return None;
            }
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&p.patch.text);
    }
    let rel = format!("tests/{name}.patch");
    out.insert(rel.clone(), text.into_bytes());

    // The profile: the one the harness names, else the repository's only one.
    let wanted = first.profile.clone();
    let candidates: Vec<&case::Profile> = case
        .profiles
        .iter()
        .filter(|p| match &wanted {
            Some(w) => &p.name == w,
            None => p.repo == r.name,
        })
        .collect();
    let profile = match candidates.as_slice() {
        [p] => *p,
        [] => {
            error(
                files,
                Code::ImportProfile,
                &first.patch,
                0,
                format!(
                    "no test profile {} for `{}` in environment/test_profiles.yaml",
                    wanted
                        .as_deref()
                        .map(|w| format!("`{w}`"))
                        .unwrap_or_default(),
                    r.name
                ),
                "add the profile that runs this repository's hidden tests",
            );
            return None;
        }
        _ => {
            error(
                files,
                Code::ImportProfile,
                &first.patch,
                0,
                format!(
                    "`{}` has several test profiles and the harness names none",
                    r.name
                ),
                "name the profile with `test_profile:` in harness.yaml",
            );
            return None;
        }
    };
    let doc_text = Text {
        rel: profile.doc.rel.clone(),
        source: profile.doc.source,
        text: files.sources.get(profile.doc.source).text.clone(),
    };
    let cmd = match profile::read(&profile.command, paths) {
        Ok(c) => c,
        Err(profile::Unreadable(why)) => {
            error(
                files,
                Code::ImportProfile,
                &doc_text,
                profile.command_at,
                format!("test profile `{}` cannot be read: {why}", profile.name),
                "write the in-container test command (pytest, go test or cargo test) as the profile's `command`",
            );
            return None;
        }
    };
    // `uses`: other repositories the profile puts on this one's path.
    let mut uses = Vec::new();
    for other in case.repos.iter().filter(|o| o.name != r.name) {
        let mentioned = profile.command.contains(&other.local_path)
            || cmd.prose.as_deref().is_some_and(|p| {
                p.split(|c: char| c.is_whitespace() || c == ',')
                    .any(|w| w == other.name)
            });
        if mentioned {
            uses.push(repo_name(&other.name));
        }
    }
    if let Some(p) = &cmd.prose {
        note(
            files,
            &doc_text,
            profile.command_at,
            format!("test profile `{}` starts with prose: \"{p}\"", profile.name),
            "the importer ran the command after `then`; make sure the environment or a `setup` step does what the prose says",
        );
    }
    let mut test = vec![
        Stmt::new("patch", vec![call("file", &rel)]),
        Stmt::new("run", vec![string(&cmd.run)]),
        Stmt::new("parser", vec![ident(cmd.parser)]),
    ];
    if let Some(p) = &cmd.prose {
        test[1] = test[1]
            .clone()
            .comment(&format!("WideSWE profile `{}`: {p}", profile.name));
    }
    let mut block = Stmt::new("test", Vec::new()).block(std::mem::take(&mut test));
    if patches.len() > 1 {
        block = block.comment(&format!(
            "{} stacked hidden test patches, kept in order in {rel}",
            patches.len()
        ));
    }
    for p in &patches {
        if let Some(s) = &p.semantic_changes {
            block = block.comment(&format!(
                "WideSWE semantic_changes ({}): {s}",
                p.origin.as_deref().unwrap_or("hidden tests")
            ));
            let (source, at) = p.semantic_at.unwrap_or((p.patch.source, 0));
            let label = files.at(source, at, "free-text relaxation");
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!("the hidden tests of `{}` were relaxed in free text: {s}", r.name),
                    label,
                )
                .with_help("kept as a comment in the spec; write it as typed `relax` statements where it maps onto one"),
            );
        }
    }
    Some((block, uses))
}

/// `env dockerfile { dockerfile file("environment/Dockerfile") }` from the case's Dockerfile,
/// its `FROM` rebased onto `--base-image` when given.
fn environment(
    case: &Case,
    files: &mut CaseFiles,
    opts: &ImportOptions,
    out: &mut BTreeMap<String, Vec<u8>>,
) -> Option<Stmt> {
    let Some(df) = &case.dockerfile else {
        let source = files.sources.add(files.shown("environment"), String::new());
        files.emit(
            Diagnostic::new(
                Code::ImportEnvironment,
                "the case has no Dockerfile (environment/*.Dockerfile or environment/case_env/Dockerfile.case-base)",
                files.at(source, 0, "here"),
            )
            .with_help("add the Dockerfile its tests run in"),
        );
        return None;
    };
    let (text, rebased) = match &opts.base_image {
        Some(b) => rebase(&df.text, b),
        None => (df.text.clone(), Vec::new()),
    };
    if df.text.lines().any(|l| {
        let l = l.trim_start().to_ascii_uppercase();
        l.starts_with("COPY ") || l.starts_with("ADD ")
    }) {
        note(
            files,
            df,
            0,
            format!("`{}` copies files from a build context the case does not ship", df.rel),
            "add those files to the task's environment/ folder and a `context dir(\"environment\")` parameter",
        );
    }
    out.insert("environment/Dockerfile".into(), text.into_bytes());
    let mut stmt = Stmt::new("env", vec![ident("dockerfile")]).block(vec![Stmt::new(
        "dockerfile",
        vec![call("file", "environment/Dockerfile")],
    )]);
    let mut comment = format!("from the case's {}", df.rel);
    for (old, new) in rebased {
        comment.push_str(&format!("\nFROM {old} rebased onto {new} (--base-image)"));
    }
    stmt = stmt.comment(&comment);
    Some(stmt)
}

/// Replace the image of every `FROM` that does not name an earlier build stage.
pub fn rebase(dockerfile: &str, base: &str) -> (String, Vec<(String, String)>) {
    let mut stages: BTreeSet<String> = BTreeSet::new();
    let mut changed = Vec::new();
    let mut out = String::new();
    for line in dockerfile.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        if words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("FROM"))
        {
            let mut i = 1;
            while words.get(i).is_some_and(|w| w.starts_with("--")) {
                i += 1;
            }
            if let Some(image) = words.get(i) {
                if !stages.contains(&image.to_ascii_lowercase()) {
                    let mut new_words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
                    new_words[i] = base.to_string();
                    changed.push((image.to_string(), base.to_string()));
                    out.push_str(&new_words.join(" "));
                    out.push('\n');
                    if let (Some(a), Some(n)) = (words.get(i + 1), words.get(i + 2)) {
                        if a.eq_ignore_ascii_case("AS") {
                            stages.insert(n.to_ascii_lowercase());
                        }
                    }
                    continue;
                }
                if let (Some(a), Some(n)) = (words.get(i + 1), words.get(i + 2)) {
                    if a.eq_ignore_ascii_case("AS") {
                        stages.insert(n.to_ascii_lowercase());
                    }
                }
            }
        }
        out.push_str(line);
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebase_keeps_stage_references() {
        let df = "FROM reg/x:1 AS build\nRUN make\nFROM build\nFROM --platform=linux/amd64 reg/y\n";
        let (out, changed) = rebase(df, "taskc/base:bookworm");
        assert_eq!(
            out,
            "FROM taskc/base:bookworm AS build\nRUN make\nFROM build\nFROM --platform=linux/amd64 taskc/base:bookworm\n"
        );
        assert_eq!(changed.len(), 2);
    }

    #[test]
    fn ids_and_names() {
        assert_eq!(task_id("pypa_packaging_X"), "pypa_packaging_x");
        assert_eq!(repo_name("pyproject-metadata"), "pyproject-metadata");
        assert_eq!(repo_name("3rd/party"), "r3rd-party");
    }
}
