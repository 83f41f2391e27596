//! `taskc import swebench PATH`: SWE-bench instances become single-target specs
//! (`verify per-repo`). PATH is an instances file (a JSON array, or JSON lines; `FAIL_TO_PASS`
//! and `PASS_TO_PASS` as lists or as JSON strings inside the row, as published), or a task
//! repository in SWE-bench's per-task layout (`tasks/<instance_id>/` with `task.yaml`,
//! `tests.json`, `problem_statement.md`, `gold.patch`, `test.patch`, `eval.sh`, `Dockerfile`).
//! The environment of a row comes from SWE-bench's install specification for its
//! repository and version (`specs.json`, exported by scripts/export-swebench-specs.py); a
//! per-task folder brings its own Dockerfile. The mapping is in docs/import.md.

mod instance;
mod specs;

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::patch::parse_patch;
use taskc_compiler::{Code, Diagnostic, SourceId};

use super::build::{call, ident, render, string, Stmt};
use super::files::CaseFiles;
use super::names::{self, task_id};
use super::oracle::{Oracle, OracleRepo, ORACLE_SCHEMA};
use super::output::TaskFolder;
use super::{CaseReport, ImportOptions, ImportReport};
use instance::{EnvSource, Instance};

/// Import every instance of `path`; `Err` when `path` itself cannot be read.
pub fn import_file(path: &Path, opts: &ImportOptions) -> Result<ImportReport, String> {
    let items = instance::read_all(path)?;
    let mut cases = Vec::new();
    for item in items {
        let mut files = item.files;
        let case = item.name.clone();
        let mut out = None;
        if let Some(inst) = item.instance {
            let id = inst.id.clone();
            if let Some(folder) = convert(&inst, &mut files, opts) {
                if !files.diagnostics.iter().any(Diagnostic::is_error) {
                    out = super::wideswe::finish(&folder, &mut files, opts);
                }
            }
            let (diagnostics, sources) = files.into_parts();
            cases.push(CaseReport {
                summary: Default::default(),
                case: id,
                out,
                diagnostics,
                sources,
            });
            continue;
        }
        let (diagnostics, sources) = files.into_parts();
        cases.push(CaseReport {
            summary: Default::default(),
            case,
            out,
            diagnostics,
            sources,
        });
    }
    Ok(ImportReport { cases })
}

fn emit(files: &mut CaseFiles, code: Code, at: (SourceId, usize), message: String, help: &str) {
    let label = files.at(at.0, at.1, "here");
    files.emit(Diagnostic::new(code, message, label).with_help(help.to_string()));
}

/// `owner/name` → `name` as a taskc repository name.
fn repo_name(repo: &str) -> String {
    let last = repo.rsplit('/').next().unwrap_or(repo).to_ascii_lowercase();
    names::repo_name(&last)
}

fn convert(inst: &Instance, files: &mut CaseFiles, opts: &ImportOptions) -> Option<TaskFolder> {
    let id = task_id(&inst.id);
    let name = repo_name(&inst.repo);
    let mut out: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut prompt = inst.problem_statement.clone();
    if !prompt.ends_with('\n') {
        prompt.push('\n');
    }
    out.insert("prompt.md".into(), prompt.into_bytes());
    for (what, text, rel) in [
        (
            "gold patch (`patch`)",
            &inst.patch,
            format!("gold/{name}.patch"),
        ),
        (
            "test patch (`test_patch`)",
            &inst.test_patch,
            format!("tests/{name}.patch"),
        ),
    ] {
        match parse_patch(text) {
            Ok(p) if !p.files.is_empty() => {}
            Ok(_) => {
                emit(
                    files,
                    Code::ImportPatch,
                    inst.at,
                    format!("the {what} of `{}` changes no file", inst.id),
                    "the instance needs a non-empty unified diff",
                );
                return None;
            }
            Err(e) => {
                emit(
                    files,
                    Code::ImportPatch,
                    inst.at,
                    format!("the {what} of `{}` does not parse: {e:?}", inst.id),
                    "the instance needs a unified diff",
                );
                return None;
            }
        }
        out.insert(rel, text.clone().into_bytes());
    }
    let test_files: Vec<String> = parse_patch(&inst.test_patch)
        .map(|p| p.files.iter().filter_map(|f| f.new_path.clone()).collect())
        .unwrap_or_default();

    // Environment, setup and test command.
    let (env, setup, run) = match &inst.env {
        EnvSource::Spec => {
            let Some(spec) = specs::lookup(&inst.repo, &inst.version) else {
                emit(
                    files,
                    Code::ImportEnvironment,
                    inst.at,
                    format!(
                        "SWE-bench has no install specification for `{}` version `{}` in taskc's export",
                        inst.repo, inst.version
                    ),
                    "write the spec's `env` by hand, or re-run scripts/export-swebench-specs.py with a newer swebench",
                );
                return None;
            };
            let df = specs::dockerfile(&spec, opts.base_image.as_deref());
            out.insert("environment/Dockerfile".into(), df.into_bytes());
            if spec.python != specs::BASE_PYTHON {
                emit(
                    files,
                    Code::ImportNote,
                    inst.at,
                    format!(
                        "SWE-bench runs `{}` {} on Python {}; the environment uses the base image's python3 ({})",
                        inst.repo, inst.version, spec.python, specs::BASE_PYTHON
                    ),
                    "check the oracle with `taskc verify`; pass --base-image with an image that has that Python",
                );
            }
            for n in &spec.notes {
                emit(
                    files,
                    Code::ImportNote,
                    inst.at,
                    n.clone(),
                    "review the generated environment/Dockerfile and setup steps",
                );
            }
            let run = format!("{} {}", spec.test_cmd, test_files.join(" "));
            (
                format!(
                    "from SWE-bench's install specification for {} {}",
                    inst.repo, inst.version
                ),
                spec.setup.clone(),
                run.trim().to_string(),
            )
        }
        EnvSource::Folder { dockerfile, eval } => {
            let text = match &opts.base_image {
                Some(b) => super::wideswe::rebase(dockerfile, b).0,
                None => dockerfile.clone(),
            };
            out.insert("environment/Dockerfile".into(), text.into_bytes());
            let Some(cmd) = instance::eval_command(eval) else {
                emit(
                    files,
                    Code::ImportProfile,
                    inst.at,
                    format!("the eval.sh of `{}` has no test command between `: '>>>>> Start Test Output'` and `: '>>>>> End Test Output'`", inst.id),
                    "the importer reads the test command from between SWE-bench's eval markers",
                );
                return None;
            };
            (
                "from the task's own Dockerfile".to_string(),
                Vec::new(),
                cmd,
            )
        }
    };
    if !run
        .split_whitespace()
        .any(|w| w == "pytest" || w.ends_with("/pytest"))
        && !run.contains("-m pytest")
    {
        emit(
            files,
            Code::ImportProfile,
            inst.at,
            format!("the test command of `{}` (`{run}`) is not pytest, and taskc has no parser for its output", inst.id),
            "taskc's parsers read pytest, go test -json, cargo, jest --json, JUnit XML and TAP; import this instance by hand",
        );
        return None;
    }

    let mut test = vec![
        Stmt::new("patch", vec![call("file", &format!("tests/{name}.patch"))]),
        Stmt::new("run", vec![string(&run)]),
        Stmt::new("parser", vec![ident("pytest")]),
    ];
    for t in &inst.f2p {
        test.push(Stmt::new("expect", vec![ident("f2p"), string(t)]));
    }
    for t in &inst.p2p {
        test.push(Stmt::new("expect", vec![ident("p2p"), string(t)]));
    }
    let mut body = vec![
        Stmt::new(
            "source",
            vec![call(
                "git",
                &format!("https://github.com/{}.git", inst.repo),
            )],
        ),
        Stmt::new("base", vec![string(&inst.base_commit)]),
        Stmt::new("gold", vec![call("file", &format!("gold/{name}.patch"))]),
    ];
    for s in &setup {
        body.push(Stmt::new("setup", vec![string(s)]));
    }
    body.push(Stmt::new("test", Vec::new()).block(test));

    let mut env = Stmt::new("env", vec![ident("dockerfile")])
        .block(vec![Stmt::new(
            "dockerfile",
            vec![call("file", "environment/Dockerfile")],
        )])
        .comment(&env);
    if let Some(c) = &inst.created_at {
        env = env.comment(&format!("context cutoff (SWE-bench created_at): {c}"));
    }
    let fields = vec![
        Stmt::new("kind", vec![ident("bugfix")]),
        Stmt::new("prompt", vec![call("file", "prompt.md")]).comment("SWE-bench problem_statement"),
        Stmt::new("verify", vec![ident("per-repo")]),
        env.spaced(),
        Stmt::new("repo", vec![ident(&name)]).block(body).spaced(),
    ];
    let task = Stmt::new("task", vec![string(&id)])
        .block(fields)
        .comment(&format!(
            "Imported from SWE-bench instance `{}` ({} {}) by `taskc import swebench`.",
            inst.id, inst.repo, inst.version
        ));
    out.insert(format!("{id}.task"), render(vec![task]).into_bytes());
    let mut repos = BTreeMap::new();
    let mut f2p = inst.f2p.clone();
    f2p.sort();
    let mut p2p = inst.p2p.clone();
    p2p.sort();
    repos.insert(name, OracleRepo { f2p, p2p });
    let oracle = Oracle {
        schema: ORACLE_SCHEMA.into(),
        origin: "swebench".into(),
        file: inst.file.clone(),
        sha256: inst.sha256.clone(),
        repos,
    };
    out.insert(format!("{id}.oracle.toml"), oracle.to_toml().into_bytes());
    Some(TaskFolder { id, files: out })
}
