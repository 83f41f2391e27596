//! Hand-built checked tasks for plan, lock and diff tests (no parser or checker needed).
#![allow(dead_code)]

use std::collections::BTreeMap;

use taskc_compiler::model::*;
use taskc_compiler::patch::{FilePatch, Patch};
use taskc_compiler::plan::sha256_hex;
use taskc_compiler::span::Span;

/// A patch file whose parsed form lists `paths` (hunks are not needed by lowering).
pub fn patch_file(path: &str, text: &str, paths: &[&str]) -> PatchFile {
    PatchFile {
        path: path.to_string(),
        text: text.to_string(),
        digest: sha256_hex(text.as_bytes()),
        patch: Patch {
            files: paths
                .iter()
                .map(|p| FilePatch {
                    old_path: Some(p.to_string()),
                    new_path: Some(p.to_string()),
                    hunks: Vec::new(),
                    binary: false,
                    span: Span::default(),
                    header_paths: Vec::new(),
                })
                .collect(),
        },
    }
}

pub fn gold_text(repo: &str) -> String {
    format!(
        "diff --git a/src/{repo}.py b/src/{repo}.py\n--- a/src/{repo}.py\n+++ b/src/{repo}.py\n@@ -1,1 +1,2 @@\n x = 1\n+fixed = True\n"
    )
}

pub fn tests_text(repo: &str) -> String {
    format!(
        "diff --git a/tests/test_{repo}.py b/tests/test_{repo}.py\n--- a/tests/test_{repo}.py\n+++ b/tests/test_{repo}.py\n@@ -1,1 +1,4 @@\n import pytest\n+def test_split():\n+    with pytest.raises(ValueError, match=\"cookie too large\"):\n+        split(\"x\" * 5000)\n"
    )
}

pub fn target(name: &str, uses: &[&str]) -> Repo {
    Repo {
        name: name.to_string(),
        role: Role::Target,
        source: Source::Dir {
            path: format!("repos/{name}"),
            digest: sha256_hex(format!("tree of {name}").as_bytes()),
        },
        base: None,
        gold: Some(patch_file(
            &format!("gold/{name}.patch"),
            &gold_text(name),
            &[&format!("src/{name}.py")],
        )),
        setup: vec!["pip install -e .".to_string()],
        uses: uses.iter().map(|s| s.to_string()).collect(),
        test: Some(TestBlock {
            patch: patch_file(
                &format!("tests/{name}.patch"),
                &tests_text(name),
                &[&format!("tests/test_{name}.py")],
            ),
            run: "python -m pytest -rA tests".to_string(),
            parser: taskc_compiler::parser::LogParser::Pytest,
            timeout_secs: DEFAULT_TEST_TIMEOUT_SECS,
            expect: Expectations::default(),
            select: None,
        }),
        relaxations: Vec::new(),
        protect: Vec::new(),
        span: Span::default(),
    }
}

pub fn context(name: &str) -> Repo {
    Repo {
        name: name.to_string(),
        role: Role::Context,
        source: Source::Git {
            url: format!("https://example.com/{name}.git"),
        },
        base: Some("9f2c0c6d8f3a1e0b7c5d4a3b2c1d0e9f8a7b6c5d".to_string()),
        gold: None,
        setup: Vec::new(),
        uses: Vec::new(),
        test: None,
        relaxations: Vec::new(),
        protect: Vec::new(),
        span: Span::default(),
    }
}

pub fn task(id: &str, verify: VerifyStrategy, repos: Vec<Repo>) -> Task {
    let mut params = BTreeMap::new();
    params.insert("version".to_string(), ParamValue::Str("3.11".to_string()));
    params.insert(
        "packages".to_string(),
        ParamValue::List(vec!["pytest==8.2.0".to_string()]),
    );
    params.insert("system-packages".to_string(), ParamValue::List(Vec::new()));
    Task {
        id: id.to_string(),
        spec_path: format!("examples/{id}/{id}.task"),
        title: Some("Split oversized cookies across headers".to_string()),
        kind: TaskKind::Bugfix,
        ecosystem: Some("python".to_string()),
        languages: vec!["python".to_string()],
        links: Vec::new(),
        prompt: Prompt {
            text: "Split cookies larger than 4 KiB across several headers.\n".to_string(),
            file: Some("prompt.md".to_string()),
        },
        verify,
        env: Environment {
            recipe: "python".to_string(),
            params,
        },
        repos,
    }
}

/// The design brief's example: proxy, gateway (uses proxy), context docs, relaxations.
pub fn cookie_split() -> Task {
    let mut gateway = target("gateway", &["proxy"]);
    gateway.relaxations = vec![
        Relaxation {
            rule: Rule::Unrequested,
            reason: "the prompt asks for no new presets".to_string(),
            action: RelaxAction::Drop {
                test: "tests/test_gateway.py::test_extra_presets".to_string(),
            },
        },
        Relaxation {
            rule: Rule::ImplementationSpecific,
            reason: "the prompt does not fix the error text".to_string(),
            action: RelaxAction::Edit {
                file: "tests/test_gateway.py".to_string(),
                replace: "pytest.raises(ValueError, match=\"cookie too large\")".to_string(),
                with: "pytest.raises(ValueError)".to_string(),
            },
        },
    ];
    task(
        "cookie-split",
        VerifyStrategy::Joint,
        vec![target("proxy", &[]), gateway, context("docs")],
    )
}

/// `n` targets where target i uses the targets listed in `uses[i]` (indices).
pub fn dag_task(uses: &[Vec<usize>], verify: VerifyStrategy) -> Task {
    let names: Vec<String> = (0..uses.len()).map(|i| format!("r{i}")).collect();
    let repos = uses
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let u: Vec<&str> = u.iter().map(|j| names[*j].as_str()).collect();
            target(&names[i], &u)
        })
        .collect();
    task("dag", verify, repos)
}

/// Every `examples/<name>/<name>.task` spec, sorted by name.
pub fn example_names() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.path()
                .join(format!("{}.task", e.file_name().to_string_lossy()))
                .is_file()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn read_tree(dir: &std::path::Path, rel: &str, loader: &mut taskc_compiler::loader::MemLoader) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        if e.path().is_dir() {
            read_tree(&e.path(), &rel, loader);
        } else {
            loader.files.insert(rel, std::fs::read(e.path()).unwrap());
        }
    }
}

/// Check `examples/<name>/<name>.task` through an in-memory copy of its folder.
pub fn load_example(name: &str) -> Task {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name);
    let mut loader = taskc_compiler::loader::MemLoader::new();
    read_tree(&dir, "", &mut loader);
    let spec = format!("{name}.task");
    let bytes = loader.files[&spec].clone();
    let checked = taskc_compiler::check::check_spec(&spec, &bytes, &loader);
    assert!(
        !checked.diagnostics.has_errors(),
        "{name}: {:?}",
        checked.diagnostics
    );
    checked.task.unwrap()
}
