//! `taskc import wideswe CASE_DIR…`: WideSWE cases (`cases/<ecosystem>/<case_id>/`) become
//! taskc task folders. The mapping, field by field, is in docs/import.md.

pub(crate) mod branch;
pub(crate) mod built;
pub(crate) mod cargo_patch;
pub(crate) mod cargo_run;
pub mod case;
pub(crate) mod chain;
pub(crate) mod contexts;
pub(crate) mod copied_script;
pub mod data;
pub mod env;
pub(crate) mod formatter;
pub(crate) mod forward;
pub(crate) mod functions;
pub mod graph;
pub mod index_line;
pub mod install;
pub(crate) mod interpreter;
pub(crate) mod plain_script;
pub mod postgres;
pub mod profile;
pub mod root;
pub mod runner;
pub(crate) mod runner_loop;
pub(crate) mod runner_script;
pub mod script;
pub mod services;
pub mod stack;
pub(crate) mod unresolved;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use taskc_compiler::patch::parse_patch;
use taskc_compiler::{Code, Diagnostic};

use super::build::{call, ident, int, list, render, string, Stmt};
use super::files::{CaseFiles, Text};
use super::names::{repo_name, task_id};
use super::output::{write, TaskFolder, WriteError};
use super::summary::{CaseSummary, ProfileRow};
use super::{CaseReport, ImportOptions, ImportReport};
use case::{Case, CaseRepo};

/// Import what `paths` names: case folders, or a WideSWE checkout root followed by the case
/// ids to take from it (every case when none is named). `Err` when a path is not a folder or
/// a named case is not in the checkout.
pub fn import_paths(
    paths: &[std::path::PathBuf],
    opts: &ImportOptions,
) -> Result<ImportReport, String> {
    let (root, dirs) = match paths.split_first() {
        Some((first, rest)) if root::is_checkout(first) => {
            let names: Vec<String> = rest.iter().map(|p| p.display().to_string()).collect();
            (Some(first.clone()), root::cases(first, &names)?)
        }
        _ => (None, paths.to_vec()),
    };
    if let Some(d) = dirs.iter().find(|d| !d.is_dir()) {
        return Err(format!("{}: not a folder", d.display()));
    }
    let opts = ImportOptions {
        root: root.or_else(|| opts.root.clone()),
        ..opts.clone()
    };
    let dirs: Vec<&Path> = dirs.iter().map(std::path::PathBuf::as_path).collect();
    Ok(import_cases(&dirs, &opts))
}

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
    let Some(mut case) = case::read(&mut files) else {
        let (diagnostics, sources) = files.into_parts();
        return CaseReport {
            case: fallback,
            out: None,
            diagnostics,
            sources,
            summary: CaseSummary::default(),
        };
    };
    let mut summary = CaseSummary {
        services: services::needed(&case, &mut files),
        ..CaseSummary::default()
    };
    let cargo_paths = data::cargo_runner_prefix(&mut case, &mut files);
    data::check(&case, &mut files, &cargo_paths);
    let folder = convert(&case, &mut files, opts, &mut summary);
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
        summary,
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

/// harness.yaml's `agent_cargo_workspace_patches` as one `setup` command and the WideSWE
/// name of the repository that runs it: the first patched target repository (else the first
/// target one), so the config exists before any other repository's setup builds. Each entry
/// the spec does not reproduce exactly, or cannot write, is a W1108 note.
fn cargo_setup(case: &Case, files: &mut CaseFiles) -> Option<(String, String)> {
    let mut entries = Vec::new();
    let mut patched = BTreeSet::new();
    for p in &case.cargo_patches {
        let label = files.at(case.harness, p.at, "here");
        let Some(repo) = cargo_patch::repository(p, &case.repos) else {
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "`agent_cargo_workspace_patches` routes crates.io's `{}` to `{}`, which is no repository of the task: not written",
                        p.krate, p.path
                    ),
                    label,
                )
                .with_help("add the repository to the task, or a `setup` step writing `/work/.cargo/config.toml` with the `[patch.crates-io]` entry"),
            );
            continue;
        };
        if let Some(d) = p.differs() {
            files.emit(
                Diagnostic::new(Code::ImportNote, d, label).with_help(
                    "if the tests need the locked version, pin it in the repository's Cargo.toml in a `setup` step",
                ),
            );
        }
        patched.insert(repo.name.as_str());
        entries.push((p.krate.clone(), repo_name(&repo.name)));
    }
    if entries.is_empty() {
        return None;
    }
    let holder = case
        .repos
        .iter()
        .filter(|r| r.target)
        .find(|r| patched.contains(r.name.as_str()))
        .or_else(|| case.repos.iter().find(|r| r.target))?;
    Some((holder.name.clone(), cargo_patch::setup_command(&entries)))
}

fn note(files: &mut CaseFiles, text: &Text, at: usize, message: String, help: &str) {
    let label = files.at(text.source, at, "here");
    files.emit(Diagnostic::new(Code::ImportNote, message, label).with_help(help.to_string()));
}

fn error(files: &mut CaseFiles, code: Code, text: &Text, at: usize, message: String, help: &str) {
    let label = files.at(text.source, at, "here");
    files.emit(Diagnostic::new(code, message, label).with_help(help.to_string()));
}

/// The quoted `-run` pattern of a `go test` command when it is written as prose (holds a
/// space: no test name has one).
fn prose_run_pattern(run: &str) -> Option<String> {
    let at = run.find("-run ")? + "-run ".len();
    let rest = &run[at..];
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = &rest[1..];
    let end = inner.find(quote)?;
    let pattern = &inner[..end];
    pattern.contains(' ').then(|| pattern.to_string())
}

/// `edges` (each repository and the ones it `uses`, in the case's order) without cycles: an
/// edge is kept unless its target already reaches its source through the edges kept before
/// it, so the repository listed first keeps its direction. The kept uses per repository, and
/// the dropped (from, to) pairs.
fn acyclic_uses(edges: &[(String, Vec<String>)]) -> (Vec<Vec<String>>, Vec<(String, String)>) {
    let mut kept: Vec<Vec<String>> = vec![Vec::new(); edges.len()];
    let mut dropped = Vec::new();
    let reaches = |kept: &[Vec<String>], from: &str, to: &str| {
        let mut seen: Vec<&str> = Vec::new();
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.contains(&n) {
                continue;
            }
            seen.push(n);
            if let Some(k) = edges.iter().position(|(e, _)| e == n) {
                stack.extend(kept[k].iter().map(String::as_str));
            }
        }
        false
    };
    for (k, (from, uses)) in edges.iter().enumerate() {
        for to in uses {
            if to == from || reaches(&kept, to, from) {
                dropped.push((from.clone(), to.clone()));
            } else {
                kept[k].push(to.clone());
            }
        }
    }
    (kept, dropped)
}

/// The first run of plain English words after the test runner of `run` (`with plugin configs
/// for the upstream test files`): at least three words of letters (and inner hyphens), one of
/// them a function word no test name or option is, before any shell separator. WideSWE
/// profiles sometimes describe the tests to run instead of naming them; the runner would take
/// the words as test names or filters.
fn prose_arguments(run: &str) -> Option<String> {
    const FUNCTION_WORDS: &[&str] = &[
        "with", "for", "the", "each", "of", "and", "its", "from", "in", "to", "that", "which",
        "every", "their", "on", "under", "by", "per", "upstream", "owning", "all", "only",
    ];
    // Shell words: a quoted argument (jest's `--testNamePattern="^(?!.*(… keyword with
    // space)).*$"`, case 25) is one, never prose.
    let owned = script::words(run);
    let words: Vec<&str> = owned.iter().map(String::as_str).collect();
    let runner_at = (0..words.len()).find(|&i| runner::detect(&words[..=i]).is_some())?;
    let plain = |w: &str| {
        let w = w.trim_end_matches(['.', ',', ':']);
        w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && w.chars().last().is_some_and(|c| c.is_ascii_alphabetic())
            && w.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
    };
    let mut run_of: Vec<&str> = Vec::new();
    let take = |run_of: &[&str]| {
        (run_of.len() >= 3
            && run_of.iter().any(|w| {
                FUNCTION_WORDS.contains(
                    &w.trim_end_matches(['.', ',', ':'])
                        .to_ascii_lowercase()
                        .as_str(),
                )
            }))
        .then(|| run_of.join(" "))
    };
    for w in &words[runner_at + 1..] {
        if matches!(*w, "&&" | "||" | ";" | "|") || w.ends_with(';') {
            break;
        }
        if plain(w) {
            run_of.push(w);
            continue;
        }
        if let Some(p) = take(&run_of) {
            return Some(p);
        }
        run_of.clear();
    }
    take(&run_of)
}

/// The case as a task folder (spec, prompt, patches, environment, oracle).
fn convert(
    case: &Case,
    files: &mut CaseFiles,
    opts: &ImportOptions,
    summary: &mut CaseSummary,
) -> Option<TaskFolder> {
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

    let environment = env::environment(case, files, opts, &mut out, &mut summary.images);
    // Containers started beside the tests from a named image become `service`s every
    // repository's runs get, each image as the case names it.
    let sidecars = services::sidecars(case, files);
    let mut service_stmts = Vec::new();
    for sc in &sidecars {
        let shown = format!("{} ({}, declared)", sc.name, sc.image);
        summary
            .services
            .retain(|s| s != &sc.name && !s.starts_with(&format!("{} (", sc.name)));
        summary.services.push(shown);
        let rel = format!("services/{}/Dockerfile", sc.name);
        out.insert(
            rel.clone(),
            format!(
                "# {} as {} names it (written by `taskc import wideswe`)\nFROM {}\n",
                sc.image, sc.from, sc.image
            )
            .into_bytes(),
        );
        let mut body = vec![Stmt::new("image", vec![ident("dockerfile")])
            .block(vec![Stmt::new("dockerfile", vec![call("file", &rel)])])];
        for p in &sc.ports {
            body.push(Stmt::new("port", vec![int(u64::from(*p))]));
        }
        service_stmts.push(
            Stmt::new("service", vec![ident(&sc.name)])
                .block(body)
                .comment(&format!("`{}`, started by {}", sc.image, sc.from))
                .spaced(),
        );
    }

    // PostgreSQL the script starts inside the test container: a `service postgres` from
    // the stdlib recipe, for the repositories whose tests start it (postgres.rs).
    let in_container =
        postgres::in_container(case).filter(|_| !sidecars.iter().any(|s| s.name == postgres::NAME));
    if let Some(pg) = &in_container {
        postgres::report(pg, case, files);
        let from = case
            .run_profile
            .as_ref()
            .map_or("run_profile.sh", |t| t.rel.as_str());
        service_stmts.push(postgres::service_stmt(pg, from));
        summary
            .services
            .retain(|s| s != postgres::NAME && !s.starts_with("postgres ("));
        summary.services.push(format!(
            "postgres (PostgreSQL {} in the test container → `service postgres`, declared)",
            pg.version
        ));
    }

    let cargo_setup = cargo_setup(case, files);
    // A profile on another Rust than the environment's: its toolchain (cargo_run.rs).
    let toolchains = cargo_run::toolchains(case, files, true);
    let mut repo_stmts = Vec::new();
    // Target repositories, written once their `uses` are known to form no cycle: the place
    // among `repo_stmts`, name, body, uses, test block, WideSWE role.
    let mut pending = Vec::new();
    let mut relax_stmts = Vec::new();
    // Every repository's profile is read (and summarised) even after one fails.
    let mut failed = false;
    for r in &case.repos {
        let name = repo_name(&r.name);
        let mut body = vec![
            Stmt::new("source", vec![call("git", &r.url)]),
            Stmt::new("base", vec![string(&r.base)]),
        ];
        let mut names: Vec<_> = sidecars.iter().map(|s| ident(&s.name)).collect();
        if in_container
            .as_ref()
            .is_some_and(|pg| pg.repos.contains(&r.name))
        {
            names.push(ident(postgres::NAME));
        }
        if r.target && !names.is_empty() {
            body.push(Stmt::new("services", names));
        }
        let toolchain = toolchains.get(&r.name);
        if let Some(t) = toolchain {
            body.push(
                Stmt::new("setup", vec![string(&t.install())]).comment(&format!(
                    "the Rust of WideSWE's `{}` for this repository's tests",
                    t.image
                )),
            );
        }
        if let Some((_, cmd)) = cargo_setup.as_ref().filter(|(holder, _)| *holder == r.name) {
            body.push(Stmt::new("setup", vec![string(cmd)]).comment(
                "from harness.yaml's agent_cargo_workspace_patches: crates.io packages built from repositories of the task",
            ));
        }
        if let Some(e) = &environment {
            for cmd in e.setup.get(&r.name).into_iter().flatten() {
                let from = if cmd.starts_with("cargo fetch") {
                    "from a `cargo fetch` of environment/run_profile.sh, at image build (runs have no network)"
                } else {
                    "from an install step of environment/run_profile.sh"
                };
                let cmd = toolchain.map_or_else(|| cmd.clone(), |t| t.on_path(cmd));
                body.push(Stmt::new("setup", vec![string(&cmd)]).comment(from));
            }
        }
        let setups_end = body.len();
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
        let Some((test, mut uses, relax, warm)) =
            test_block(case, r, &name, &paths, files, &mut out, summary)
        else {
            failed = true;
            continue;
        };
        if let Some(warm) = warm {
            body.insert(
                setups_end,
                Stmt::new("setup", vec![string(&warm)]).comment(
                    "the run's own test build, at base and at image build (WideSWE keeps a target directory between runs)",
                ),
            );
        }
        if !relax.is_empty() {
            relax_stmts.push(Stmt::new("relax", vec![ident(&name)]).block(relax).spaced());
        }
        // Repositories this one's install steps put in the environment.
        if let Some(e) = &environment {
            for other in e.installs_of.get(&r.name).into_iter().flatten() {
                let other = repo_name(other);
                if !uses.contains(&other) {
                    uses.push(other);
                }
            }
        }
        pending.push((repo_stmts.len(), name, body, uses, test, r.role.clone()));
    }

    if failed {
        return None;
    }
    // `uses` must not form a cycle (E1107): when each profile installs the other repository,
    // the direction of the repository listed first is kept and the other is a note.
    let edges: Vec<(String, Vec<String>)> = pending
        .iter()
        .map(|(_, name, _, uses, _, _)| (name.clone(), uses.clone()))
        .collect();
    let (kept, dropped) = acyclic_uses(&edges);
    for (from, to) in &dropped {
        let (source, at) = match (&case.run_profile, case.profiles.first()) {
            (Some(t), _) => (t.source, 0),
            (None, Some(p)) => (p.doc.source, 0),
            (None, None) => continue,
        };
        let label = files.at(source, at, "installs the repositories");
        files.emit(
            Diagnostic::new(
                Code::ImportNote,
                format!(
                    "`{from}` uses `{to}` is not written: `{to}` already uses `{from}` (each profile installs the other repository), and `uses` cannot form a cycle (E1107); the direction of the repository listed first in the case is kept"
                ),
                label,
            )
            .with_help(format!(
                "if the tests of `{from}` need `{to}` installed, add a `setup` step to `repo {from}` that installs it from /work/{to}"
            )),
        );
    }
    for ((at, name, mut body, _, test, role), uses) in pending.into_iter().zip(kept).rev() {
        for u in uses {
            body.push(Stmt::new("uses", vec![ident(&u)]));
        }
        body.push(test);
        repo_stmts.insert(
            at,
            Stmt::new("repo", vec![ident(&name)])
                .block(body)
                .comment(&format!("WideSWE role `{role}`"))
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
    let mut env = environment?.env;
    if let Some(c) = &case.cutoff {
        env = env.comment(&format!(
            "context cutoff (WideSWE workspace_policy.cutoff_time): {c}"
        ));
    }
    fields.push(env.spaced());
    fields.extend(service_stmts);
    fields.extend(repo_stmts);
    fields.extend(relax_stmts);

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

/// A repository's `test` block, the repositories it uses, its `relax` statements and the
/// warm build of its run (cargo_run.rs).
type TestBlock = (Stmt, Vec<String>, Vec<Stmt>, Option<String>);

/// The test block of target `r`, and the repositories its profile puts on its path.
fn test_block(
    case: &Case,
    r: &CaseRepo,
    name: &str,
    paths: &[(String, String)],
    files: &mut CaseFiles,
    out: &mut BTreeMap<String, Vec<u8>>,
    summary: &mut CaseSummary,
) -> Option<TestBlock> {
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
    // Stacked patches: a later one that only rewrites lines the earlier ones add becomes
    // typed `relax … edit`s (stack.rs); any other stays a stacked patch, in order.
    let mut touched: BTreeSet<String> = BTreeSet::new();
    let mut stack: Vec<String> = Vec::new();
    let mut stack_text = String::new();
    let mut edits: Vec<Stmt> = Vec::new();
    let mut converted: Vec<usize> = Vec::new();
    for (k, p) in patches.iter().enumerate() {
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
        if !stack.is_empty() {
            if let Some(rewrites) = stack::as_edits(&stack_text, &p.patch.text) {
                let because = p.semantic_changes.clone().unwrap_or_else(|| {
                    format!(
                        "WideSWE aligns the hidden tests with `{}` ({})",
                        p.patch.rel,
                        p.origin.as_deref().unwrap_or("a stacked patch")
                    )
                });
                for rw in rewrites {
                    edits.push(
                        Stmt::new("edit", vec![string(&rw.file)])
                            .block(vec![
                                Stmt::new("rule", vec![ident("implementation-specific")]),
                                Stmt::new("because", vec![string(&because)]),
                                Stmt::new(
                                    "replace",
                                    vec![string(&rw.replace), ident("with"), string(&rw.with)],
                                ),
                            ])
                            .comment(&format!(
                                "from WideSWE's stacked hidden test patch {}",
                                p.patch.rel
                            )),
                    );
                }
                converted.push(k);
                continue;
            }
        }
        for f in &parsed.files {
            if !touched.insert(f.path().to_string()) && f.old_path.is_none() {
                error(
                    files,
                    Code::ImportPatch,
                    &p.patch,
                    0,
                    format!(
                        "the stacked hidden test patch `{}` creates `{}` again, after an earlier patch for `{}` created or changed it",
                        p.patch.rel,
                        f.path(),
                        r.name
                    ),
                    "a stacked patch applies on top of the ones before: make it change the file, or fold the patches into one",
                );
                return None;
            }
        }
        let rel = if stack.is_empty() {
            format!("tests/{name}.patch")
        } else {
            format!("tests/{name}-{}.patch", stack.len() + 1)
        };
        out.insert(rel.clone(), p.patch.text.clone().into_bytes());
        if !stack_text.is_empty() && !stack_text.ends_with('\n') {
            stack_text.push('\n');
        }
        stack_text.push_str(&p.patch.text);
        stack.push(rel);
    }

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
    // A profile whose command is the wrapper script itself: its in-container command.
    let mut command = profile.command.clone();
    // … or a script baked into the image that a Dockerfile of the case copies from the
    // case's folder (`bash /opt/ecosync/run-x.sh <profile>`; cases 48, 49, laravel).
    let baked = baked_script(case, r, &profile.name, &command, files);
    if let Some(c) = baked {
        command = c;
    } else if command.contains("run_profile.sh") {
        let found = case.run_profile.as_ref().and_then(|t| {
            let (repos, profiles) = case.script_view();
            script::test_command_noted(&t.text, &repos, &profiles, &r.name)
                .map(|(at, c, resolved)| (t, at, c, resolved))
        });
        // A runner script the wrapper writes with a heredoc, run by a compose service of
        // the case with the test list (case 62).
        let found = match (found, case.run_profile.as_ref()) {
            (None, Some(t)) => {
                let compose: Vec<(String, String)> = services::COMPOSE
                    .iter()
                    .filter(|rel| files.exists(rel))
                    .filter_map(|rel| std::fs::read_to_string(files.root.join(rel)).ok())
                    .flat_map(|text| runner_script::compose_commands(&text))
                    .collect();
                let (_, profiles) = case.script_view();
                runner_script::test_command(&t.text, &compose, &profiles, &r.name)
                    .map(|(at, c, resolved)| (t, at, c, resolved))
            }
            (found, _) => found,
        };
        match found {
            Some((t, at, c, resolved)) => {
                for what in resolved {
                    note(
                        files,
                        t,
                        at,
                        format!(
                            "to read the test command of `{}` the importer resolved {what}",
                            r.name
                        ),
                        "check that the spec's `run` does what the script does",
                    );
                }
                note(
                    files,
                    t,
                    at,
                    format!(
                        "test profile `{}` runs `{}`; the importer took its in-container test command for `{}` from there",
                        profile.name, t.rel, r.name
                    ),
                    "check that the command is the one the profile runs",
                );
                let (repos, _) = case.script_view();
                if let Some(dir) = script::foreign_directory(&t.text, at, &repos, &r.name) {
                    note(
                        files,
                        t,
                        at,
                        format!(
                            "`{}` runs `{}`'s tests in `{dir}`, outside its checkout (after an absolute `cd`); the spec runs them in `{}`'s own folder",
                            t.rel, r.name, r.name
                        ),
                        "check whether the tests can run in the repository's own checkout, or keep the case for review",
                    );
                }
                command = c;
            }
            None => {
                // A test line in a branch a function argument chooses, which the
                // profile's arm does not pass as a literal: named (case 75's `runner`).
                let undecided = case.run_profile.as_ref().and_then(|t| {
                    let (repos, profiles) = case.script_view();
                    branch::undecided(&t.text, &repos, &profiles, &r.name)
                });
                // A test line built from values the script computes (case 116): named.
                let unresolved = case.run_profile.as_ref().and_then(|t| {
                    let (repos, profiles) = case.script_view();
                    unresolved::test_line(&t.text, &repos, &profiles, &r.name)
                });
                let why = match (undecided, unresolved) {
                    (Some(v), _) => format!(
                        "; its test lines are in branches chosen by the function argument `{v}`, which the profile's `case` arm does not pass as a literal"
                    ),
                    (None, Some((line, vars))) => format!(
                        "; its test line `{line}` is built from values the script computes when it runs ({})",
                        vars.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
                    ),
                    (None, None) => String::new(),
                };
                // A plain test script whose exit status is the result (case 60): named.
                let plain = case.run_profile.as_ref().and_then(|t| {
                    let (repos, profiles) = case.script_view();
                    plain_script::test_script(&t.text, &repos, &profiles, &r.name)
                });
                let (message, help) = match plain {
                    Some(path) => (
                        format!(
                            "test profile `{}` runs environment/run_profile.sh, whose test of `{}` is the plain Python script `{path}`: its exit status is its only result, which the `exit-status` parser reads, but the script runs it with values built at run time (shell variables, a list of test names) the importer does not resolve",
                            profile.name, r.name
                        ),
                        "write the script's command as the profile's `command`, as WideSWE runs it (its test name, its environment), and the importer scores it with `parser exit-status`; or leave the case out",
                    ),
                    None => (
                        format!(
                            "test profile `{}` runs environment/run_profile.sh, and no test command for `{}` was found in it{why}",
                            profile.name, r.name
                        ),
                        "write the in-container test command (pytest, go test or cargo test) as the profile's `command`",
                    ),
                };
                error(
                    files,
                    Code::ImportProfile,
                    &doc_text,
                    profile.command_at,
                    message,
                    help,
                );
                return None;
            }
        }
    }
    let mut row = ProfileRow {
        repo: name.to_string(),
        profile: profile.name.clone(),
        runner: None,
        parser: None,
        needs: None,
    };
    let cmd = match profile::read(&command, paths, taskc_compiler::parser::LogParser::WORDS) {
        Ok(c) => c,
        Err(profile::Unreadable::Command(why)) => {
            summary.profiles.push(row);
            error(
                files,
                Code::ImportProfile,
                &doc_text,
                profile.command_at,
                format!("test profile `{}` cannot be read: {why}", profile.name),
                "write the in-container test command as the profile's `command` (see docs/import.md for the runners the importer reads)",
            );
            return None;
        }
        Err(profile::Unreadable::NoParser { runner, native }) => {
            row.runner = Some(runner.as_str().to_string());
            row.needs = Some(native.to_string());
            summary.profiles.push(row);
            error(
                files,
                Code::ImportNoParser,
                &doc_text,
                profile.command_at,
                format!(
                    "test profile `{}` of `{}` runs {}, and this taskc has no parser that reads it: it needs the parser `{native}`",
                    profile.name,
                    r.name,
                    runner.as_str()
                ),
                "the case imports once taskc has that parser (docs/import.md lists the runners and the parsers they need)",
            );
            return None;
        }
    };
    row.runner = Some(cmd.runner.as_str().to_string());
    row.parser = Some(cmd.parser.to_string());
    if cmd.runner == runner::Runner::Jest {
        let words: Vec<&str> = cmd.run.split_whitespace().collect();
        let named = words.iter().any(|w| {
            let base = w.rsplit('/').next().unwrap_or(w);
            base == "jest" || base == "jest.js"
        });
        if let Some(script) = runner::jest_package_script(&words).filter(|_| !named) {
            note(
                files,
                &doc_text,
                profile.command_at,
                format!(
                    "test profile `{}` runs jest through the package script `{script}` of `{}`: the case's command hands it jest's own options (`--runInBand`), so the importer takes the script to run jest and gives it `--json` the same way, through the package manager",
                    profile.name, r.name
                ),
                "check the script in the repository's package.json: it must run jest once and hand it its arguments, or the run prints no report the `jest-json` parser reads",
            );
        }
    }
    if cmd.runner == runner::Runner::PlainScript {
        let words: Vec<&str> = command.split_whitespace().collect();
        let path = plain_script::in_words(&words).unwrap_or_default();
        // The script run otherwise by run_profile.sh (case 60: once per test name): the
        // profile's command is not WideSWE's run.
        let otherwise = case
            .run_profile
            .as_ref()
            .and_then(|t| plain_script::run_otherwise(&t.text, &path, &words));
        if let Some(line) = otherwise {
            summary.profiles.push(row);
            error(
                files,
                Code::ImportProfile,
                &doc_text,
                profile.command_at,
                format!(
                    "test profile `{}` runs the plain Python script `{path}` as `{}`, but environment/run_profile.sh runs it as `{line}`: with arguments the profile's command does not pass, so the command is not the run WideSWE scores",
                    profile.name,
                    command.trim()
                ),
                "write the script's command as the profile's `command`, as run_profile.sh runs it (its test names, its environment), and the importer scores it with `parser exit-status`; or leave the case out",
            );
            return None;
        }
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` runs the plain Python script `{path}`, whose exit status is its only result: the spec scores it with `parser exit-status`, one test `exit-status` of `{}`, passed iff the command exits 0 (the status the harness records; what the command prints is never read)",
                profile.name, r.name
            ),
            "an exit-status run has no canaries: code the script imports can end it with status 0 early (docs/security.md, \"Exit-status runs\"); protect the files it runs (`protect \"…\"`) and check the command's status is the test's",
        );
    }
    if let Some((option, native)) = cmd.fallback {
        row.needs = Some(native.to_string());
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` runs {}; taskc has no `{native}` parser yet, so the command gets `{option}` and the `{}` parser reads that output",
                profile.name,
                cmd.runner.as_str(),
                cmd.parser
            ),
            "check that the runner prints that report on its standard output (a config file may send it elsewhere); the test ids follow the report's naming",
        );
    }
    let others = chain::other_runners(&cmd.run, cmd.runner);
    if !others.is_empty() {
        let names: Vec<&str> = others.iter().map(|o| o.as_str()).collect();
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` runs {} and also {}; the spec's `{}` parser reads only the {} runs' output, so the tests the other runs report are not scored",
                profile.name,
                cmd.runner.as_str(),
                names.join(", "),
                cmd.parser,
                cmd.runner.as_str()
            ),
            "split the runs into profiles of their own, one runner each, to score every test",
        );
    }
    summary.profiles.push(row);
    // `uses`: other repositories the profile puts on this one's path.
    let mut uses = Vec::new();
    for other in case.repos.iter().filter(|o| o.name != r.name) {
        let mentioned = command.contains(&other.local_path)
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
    if let Some(pattern) = prose_run_pattern(&cmd.run) {
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` selects its tests with `-run '{pattern}'`, which is prose: go test reads it as a regular expression, and a pattern with spaces matches no test name",
                profile.name
            ),
            "write the test names as a `-run` regular expression (`'^(TestA|TestB)$'`) in the spec's `run`",
        );
    }
    if let Some(words) = prose_arguments(&cmd.run) {
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` describes its tests in prose after {}: \"{words}\"; the spec's `run` passes these words to the runner as test names or filters, which match no test",
                profile.name,
                cmd.runner.as_str()
            ),
            "replace the prose in the spec's `run` with the test files or names it describes (the hidden test patch lists the files it touches)",
        );
    }
    for script in unread_scripts(&cmd.run) {
        note(
            files,
            &doc_text,
            profile.command_at,
            format!(
                "test profile `{}` also runs `{script}` after {}; the `{}` parser reads only {}'s output, so the tests that script runs are not read (a failing one still fails the command)",
                profile.name,
                cmd.runner.as_str(),
                cmd.parser,
                cmd.runner.as_str()
            ),
            "give that script's tests their own `test` block with a parser that reads its report, or drop it from the spec's `run`",
        );
    }
    // WideSWE runs the command in the profile's `workdir`; taskc in the repository's folder.
    let mut run = cmd.run.clone();
    // The database variables the script exports for these tests (postgres.rs).
    run = format!("{}{run}", postgres::run_prefix(case, &r.name));
    if let Some(sub) = profile
        .workdir
        .as_deref()
        .and_then(|w| below(w, &r.local_path))
    {
        let cd = format!("cd {} && ", taskc_compiler::lower::shell_quote(&sub));
        // The script's own `docker run -w` may already start there (script.rs).
        if !cmd.run.starts_with(&cd) {
            run = format!("{cd}{run}");
        }
    }
    // Cargo: the run on its profile's toolchain, and built once at image build (cargo_run.rs).
    let mut warm = None;
    if cmd.runner == runner::Runner::CargoTest {
        let toolchain = cargo_run::toolchains(case, files, false).remove(&r.name);
        match cargo_run::warm_build(&run) {
            Ok(w) => {
                let w = toolchain.as_ref().map_or(w.clone(), |t| t.on_path(&w));
                note(
                    files,
                    &doc_text,
                    profile.command_at,
                    format!(
                        "WideSWE keeps the cargo target directory of `{}` between runs, taskc's runs start from the task image: the spec builds the run's tests at image build (`setup \"{w}\"`, at base), so each run compiles only what the patches change",
                        r.name
                    ),
                    "check that the setup selects what the run compiles (packages, targets, features); it builds the base's tests, never the hidden ones",
                );
                warm = Some(w);
            }
            Err(cargo_run::NoWarmBuild::NoCargoTest) => {}
            Err(why) => note(
                files,
                &doc_text,
                profile.command_at,
                format!(
                    "no warm build is written for `{}`: {}; each run compiles its tests from the task image",
                    r.name,
                    why.reason()
                ),
                "add `setup \"cargo test --no-run …\"` with the run's selection to the repository if the build is long",
            ),
        }
        if let Some(t) = &toolchain {
            run = t.on_path(&run);
        }
    }
    let mut test = vec![
        Stmt::new("patch", stack.iter().map(|p| call("file", p)).collect()),
        Stmt::new("run", vec![string(&run)]),
        Stmt::new("parser", vec![ident(cmd.parser)]),
    ];
    if let Some(p) = &cmd.prose {
        test[1] = test[1]
            .clone()
            .comment(&format!("WideSWE profile `{}`: {p}", profile.name));
    }
    let mut block = Stmt::new("test", Vec::new()).block(std::mem::take(&mut test));
    if stack.len() > 1 {
        block = block.comment(&format!(
            "{} stacked hidden test patches, applied in order",
            stack.len()
        ));
    }
    let mut relax = edits;
    for (k, p) in patches.iter().enumerate() {
        let label = |files: &CaseFiles| {
            let (source, at) = p.semantic_at.unwrap_or((p.patch.source, 0));
            files.at(source, at, "free-text relaxation")
        };
        if converted.contains(&k) {
            let l = label(files);
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "the stacked hidden test patch `{}` of `{}` only rewrites lines the earlier patch adds: imported as `relax {name} {{ edit … }}` with `rule implementation-specific`",
                        p.patch.rel, r.name
                    ),
                    l,
                )
                .with_help("check the rule: `unrequested` if the patch removes checks of functionality the prompt never asked for"),
            );
            continue;
        }
        if let Some(s) = &p.semantic_changes {
            relax.push(Stmt::new("note", vec![string(s)]).comment(&format!(
                "WideSWE semantic_changes of {} ({})",
                p.patch.rel,
                p.origin.as_deref().unwrap_or("hidden tests")
            )));
            let l = label(files);
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!("the hidden tests of `{}` were relaxed in free text: {s}", r.name),
                    l,
                )
                .with_help("kept as `relax … { note \"…\" }` (taskc check shows it, N0607); write it as typed `drop`/`edit` statements where it maps onto one"),
            );
        }
    }
    Some((block, uses, relax, warm))
}

/// The test command of `r` in a script baked into the profile's image that a Dockerfile of
/// the case copies from the case's folder: the script the profile's `command` runs, or one
/// that `run_profile.sh` runs (`docker run … bash /opt/ecosync/run-x.sh "$profile"`). Notes
/// say which file was read and what was resolved; `None` when there is no such script or it
/// holds no test command of `r`.
fn baked_script(
    case: &Case,
    r: &CaseRepo,
    profile: &str,
    command: &str,
    files: &mut CaseFiles,
) -> Option<String> {
    let mut targets: Vec<String> = copied_script::script_of(command).into_iter().collect();
    if command.contains("run_profile.sh") {
        if let Some(t) = case.run_profile.as_ref() {
            let words = script::logical_lines(&t.text)
                .into_iter()
                .flat_map(|(_, l)| script::words(&l));
            for w in words {
                if w.starts_with('/')
                    && w.ends_with(".sh")
                    && !w.contains('$')
                    && !targets.contains(&w)
                {
                    targets.push(w);
                }
            }
        }
    }
    let root = files.root.clone();
    let script_text = case.run_profile.as_ref().map(|t| t.text.clone());
    let (target, rel, dockerfile) = targets.into_iter().find_map(|target| {
        copied_script::copied_from(&root, &target)
            .map(|(rel, d)| (target.clone(), rel, format!("`{d}` copies")))
            .or_else(|| {
                let s = script_text.as_deref()?;
                copied_script::mounted_from(s, &root, &target).map(|rel| {
                    (
                        target,
                        rel,
                        "`environment/run_profile.sh` mounts".to_string(),
                    )
                })
            })
    })?;
    let t = files.text(&rel, "runner script")?;
    let (repos, profiles) = case.script_view();
    let Some((at, c, resolved)) = script::test_command_noted(&t.text, &repos, &profiles, &r.name)
    else {
        // A runner run once per element of a loop (cases 48, 49): one run per element when
        // the list is literal and the runs' ids cannot be confused, else named.
        let origin = format!("`{target}`, which {dockerfile} from `{rel}`");
        return unrolled_loop(files, &t, profile, &origin, &r.name, &repos, &profiles);
    };
    for what in resolved {
        note(
            files,
            &t,
            at,
            format!(
                "to read the test command of `{}` the importer resolved {what}",
                r.name
            ),
            "check that the spec's `run` does what the script does",
        );
    }
    note(
        files,
        &t,
        at,
        format!(
            "test profile `{profile}` runs `{target}`, which {dockerfile} from `{rel}`; the importer took its test command for `{}` from there",
            r.name
        ),
        "check that the command is the one the profile runs",
    );
    Some(c)
}

/// The test command of `repo` in `t` (a script of the case, run as `origin` says) when its
/// runner runs once per element of a `for` loop: the loop unrolled into one run per element
/// (`runner_loop.rs`), with a W1108 saying so; when the loop cannot be unrolled, a W1108
/// naming it and why, and `None`.
fn unrolled_loop(
    files: &mut CaseFiles,
    t: &Text,
    profile: &str,
    origin: &str,
    repo: &str,
    repos: &[script::ScriptRepo<'_>],
    profiles: &[(String, String)],
) -> Option<String> {
    match runner_loop::unroll(&t.text, repos, profiles, repo)? {
        runner_loop::Unroll::Taken(u) => {
            note(
                files,
                t,
                u.found.at,
                format!(
                    "test profile `{profile}` runs {origin}: its tests of `{repo}` run `{}` once per element of the loop `{}`; the importer unrolled it into {} runs, one per element ({}), each read by the parser, and the list fails when any run fails, as the loop does; the elements are distinct paths, none inside another, and an id two runs still report alike is kept once with its worst outcome",
                    u.found.runner,
                    u.found.header,
                    u.elements.len(),
                    u.elements.join(", ")
                ),
                "check that the runs are the loop's: one run of the runner per element, in order",
            );
            Some(u.run)
        }
        runner_loop::Unroll::Refused(l, why) => {
            note(
                files,
                t,
                l.at,
                format!(
                    "test profile `{profile}` runs {origin}: its tests of `{repo}` run `{}` once per element of the loop `{}`, which the importer does not unroll: {why}",
                    l.runner, l.header
                ),
                "write the repository's test command as the profile's `command` (one run of the runner per element, or one run over every element if its runner takes several), or leave the case out",
            );
            None
        }
    }
}

/// The part of WideSWE `workdir` below the repository folder `local_path` (`repos/k/autoscaler`
/// and `/workspace/repos/k/autoscaler/vertical-pod-autoscaler/test` →
/// `vertical-pod-autoscaler/test`); `None` at the repository's root or outside it.
pub(crate) fn below(workdir: &str, local_path: &str) -> Option<String> {
    let w = workdir.trim_end_matches('/');
    let w = w.strip_prefix("/workspace/").unwrap_or(w);
    let w = w.strip_prefix("./").unwrap_or(w);
    let sub = w.strip_prefix(local_path.trim_end_matches('/'))?;
    let sub = sub.strip_prefix('/')?.trim_matches('/');
    (!sub.is_empty() && !sub.split('/').any(|c| c == ".." || c.is_empty())).then(|| sub.to_string())
}

/// Shell scripts a test command runs beside its runner (`… && go test ./x && GOWORK=off
/// test/sharness/t0275-cid-security.sh`): commands of the chain, after their variable
/// assignments, that run a `.sh` file (directly or through `bash`/`sh`) and no runner.
fn unread_scripts(run: &str) -> Vec<String> {
    let spaced = run.replace(';', " ; ");
    let words: Vec<&str> = spaced.split_whitespace().collect();
    let mut out = Vec::new();
    for segment in words.split(|w| matches!(*w, "&&" | "||" | ";" | "|")) {
        let program: Vec<&str> = segment
            .iter()
            .copied()
            .skip_while(|w| {
                w.split_once('=').is_some_and(|(k, _)| {
                    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                })
            })
            .collect();
        let script = match program.as_slice() {
            [first, ..] if first.ends_with(".sh") => true,
            [shell, second, ..] if matches!(*shell, "bash" | "sh") => second.ends_with(".sh"),
            _ => false,
        };
        if script && runner::detect(segment).is_none() {
            out.push(segment.join(" "));
        }
    }
    out
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
    fn a_go_test_run_pattern_written_as_prose() {
        assert_eq!(
            prose_run_pattern("go test -json -run 'all Test* functions in a_test.go' ./pkg"),
            Some("all Test* functions in a_test.go".into())
        );
        assert_eq!(
            prose_run_pattern("go test -json -run 'TestA|TestB' ./pkg"),
            None
        );
    }

    #[test]
    fn a_uses_cycle_keeps_the_first_direction() {
        let e = |n: &str, u: &[&str]| (n.to_string(), u.iter().map(|s| s.to_string()).collect());
        // Each profile pip-installs the other repository.
        let (kept, dropped) = acyclic_uses(&[
            e("django-mongodb-backend", &["mongo-python-driver"]),
            e("mongo-python-driver", &["django-mongodb-backend"]),
        ]);
        assert_eq!(kept, vec![vec!["mongo-python-driver".to_string()], vec![]]);
        assert_eq!(
            dropped,
            vec![(
                "mongo-python-driver".to_string(),
                "django-mongodb-backend".to_string()
            )]
        );
        // A longer cycle loses its closing edge; a chain is untouched.
        let (kept, dropped) = acyclic_uses(&[e("a", &["b"]), e("b", &["c"]), e("c", &["a"])]);
        assert_eq!(kept[0], vec!["b".to_string()]);
        assert_eq!(kept[1], vec!["c".to_string()]);
        assert_eq!(dropped, vec![("c".to_string(), "a".to_string())]);
        let (_, dropped) = acyclic_uses(&[e("a", &["b"]), e("b", &["ctx"])]);
        assert!(dropped.is_empty());
    }

    #[test]
    fn prose_after_the_runner() {
        assert_eq!(
            prose_arguments("yarn kbn bootstrap && node scripts/jest with plugin configs for the upstream test files --json"),
            Some("with plugin configs for the upstream test files".into())
        );
        assert_eq!(
            prose_arguments("cd code && yarn exec -- vitest run each upstream test file with its owning package config --reporter=json"),
            Some("run each upstream test file with its owning package config".into())
        );
        assert_eq!(
            prose_arguments("cargo test -p sql-migration-tests --test migration_tests for the upstream-touched migrations and schema_push modules."),
            Some("for the upstream-touched migrations and".into())
        );
        // Test names, paths and options are not prose; nor is what precedes the runner.
        assert_eq!(
            prose_arguments("./tests/runtests.py auth forms admin_views --verbosity 2"),
            None
        );
        assert_eq!(
            prose_arguments("npx vitest run src/a.test.ts --reporter=json"),
            None
        );
        assert_eq!(
            prose_arguments("for f in a b; do pytest -rA $f; done"),
            None
        );
        assert_eq!(
            prose_arguments("go test -json ./pkg/... && echo done with the tests"),
            None
        );
        assert_eq!(prose_arguments("make all of the things"), None);
        // A quoted filter is one argument (case 25).
        assert_eq!(
            prose_arguments(
                r#"node scripts/jest.js a.test.ts --testNamePattern="^(?!.*(missing step param|suggests = after buckets keyword with space)).*$" --json"#
            ),
            None
        );
    }

    #[test]
    fn a_workdir_below_the_repository() {
        let repo = "repos/kubernetes/autoscaler";
        assert_eq!(
            below(
                "repos/kubernetes/autoscaler/vertical-pod-autoscaler/test",
                repo
            )
            .as_deref(),
            Some("vertical-pod-autoscaler/test")
        );
        assert_eq!(
            below("/workspace/repos/kubernetes/autoscaler/x/", repo).as_deref(),
            Some("x")
        );
        assert_eq!(below("repos/kubernetes/autoscaler", repo), None);
        assert_eq!(below("repos/kubernetes/autoscaler2/x", repo), None);
        assert_eq!(below("repos/kubernetes/autoscaler/../x", repo), None);
    }

    #[test]
    fn a_script_beside_the_runner() {
        assert_eq!(
            unread_scripts("make build && go test -json ./test/cli && GOWORK=off TEST_JUNIT=1 test/sharness/t0275-cid-security.sh"),
            vec!["GOWORK=off TEST_JUNIT=1 test/sharness/t0275-cid-security.sh".to_string()]
        );
        assert_eq!(
            unread_scripts("bash semantic_policy_test.sh; go test -json ./x"),
            vec!["bash semantic_policy_test.sh".to_string()]
        );
        assert!(unread_scripts("go test -json ./x").is_empty());
        assert!(unread_scripts("./scripts/run-pytest.sh -m pytest tests").is_empty());
    }

    #[test]
    fn ids_and_names() {
        assert_eq!(task_id("pypa_packaging_X"), "pypa_packaging_x");
        assert_eq!(repo_name("pyproject-metadata"), "pyproject-metadata");
        assert_eq!(repo_name("3rd/party"), "r3rd-party");
    }
}
