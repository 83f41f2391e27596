//! Data problems of WideSWE's case folders that the importer survives and reports (W1108),
//! never silently:
//!
//! - `validation.yaml`'s `oracle_totals` that disagree with the scoring manifest's lists;
//! - oracle ids prefixed with another repository's name (`cargo::…` for a rustup test);
//! - `runners/` scripts `run_profile.sh` names that the case folder does not hold;
//! - cargo test ids under WideSWE's runner prefix (`cargo::suite::cli_rustup::default`, for
//!   rustup's tests as for cargo's): the prefix is the JUnit classname WideSWE's cargo
//!   report gets, not a repository, and is removed ([`cargo_runner_prefix`]);
//! - a hidden patch that keeps the gold patch's `index` line over other hunks (`index_line`).
//!
//! (task.yaml's base commit against repos.yaml's is checked where both are read, in
//! `case.rs`.)

use taskc_compiler::{Code, Diagnostic};

use super::case::Case;
use crate::import::files::CaseFiles;
use crate::import::names::repo_name;
use crate::import::yaml::{self, Node};

fn emit(
    files: &mut CaseFiles,
    source: taskc_compiler::SourceId,
    at: usize,
    msg: String,
    help: &str,
) {
    let label = files.at(source, at, "here");
    files.emit(Diagnostic::new(Code::ImportNote, msg, label).with_help(help.to_string()));
}

fn number(n: Option<&Node>) -> Option<usize> {
    n.and_then(Node::as_str).and_then(|s| s.parse().ok())
}

/// Every check, each a note. `cargo_paths`: the repositories whose ids are cargo test paths
/// (their runner prefix removed by [`cargo_runner_prefix`]), whose first segment is a module.
pub fn check(case: &Case, files: &mut CaseFiles, cargo_paths: &[String]) {
    totals(case, files);
    prefixed_ids(case, files, cargo_paths);
    runners(case, files);
    super::index_line::check(case, files);
}

fn totals(case: &Case, files: &mut CaseFiles) {
    let Some(oracle) = &case.oracle else { return };
    if !files.exists("validation.yaml") {
        return;
    }
    let Some(t) = files.text("validation.yaml", "validation record") else {
        return;
    };
    let Ok(doc) = yaml::parse(&t.text) else {
        return;
    };
    let f2p: usize = oracle.repos.values().map(|r| r.f2p.len()).sum();
    let p2p: usize = oracle.repos.values().map(|r| r.p2p.len()).sum();
    for (matrix, _, m) in doc.get("matrix").map(Node::entries).unwrap_or(&[]) {
        let Some(tot) = m.get("oracle_totals") else {
            continue;
        };
        let (vf, vp) = (
            number(tot.get("fail_to_pass")),
            number(tot.get("pass_to_pass")),
        );
        if vf.is_some_and(|v| v != f2p) || vp.is_some_and(|v| v != p2p) {
            emit(
                files,
                t.source,
                tot.at,
                format!(
                    "validation.yaml's `{matrix}` totals ({} F2P, {} P2P) disagree with the scoring manifest's lists ({f2p} F2P, {p2p} P2P); the oracle file keeps the manifest's ids",
                    vf.map_or("?".into(), |v| v.to_string()),
                    vp.map_or("?".into(), |v| v.to_string()),
                ),
                "`taskc verify --compare-oracle` compares with the manifest; the totals are a recorded fact, not an input",
            );
        }
    }
}

/// WideSWE's cargo reports name every test `cargo::<test path>`, whichever repository runs
/// `cargo test` (`cargo::suite::cli_rustup::default` is a rustup test). For a repository whose
/// test profile runs cargo and whose oracle ids all carry that prefix, the prefix is removed
/// (a note says so): taskc's `cargo` parser names a test by its test target and path
/// (`tests/test_bonanza.rs::suite::cli_rustup::default`), and `--compare-oracle` compares
/// the test paths (`import::ids`).
pub fn cargo_runner_prefix(case: &mut Case, files: &mut CaseFiles) -> Vec<String> {
    const PREFIX: &str = "cargo::";
    let Some(oracle) = case.oracle.as_mut() else {
        return Vec::new();
    };
    let script_runs_cargo = case
        .run_profile
        .as_ref()
        .is_some_and(|t| t.text.contains("cargo test") || t.text.contains("cargo nextest"));
    let mut stripped: Vec<(String, String)> = Vec::new();
    for (repo, o) in oracle.repos.iter_mut() {
        let runs_cargo = case.profiles.iter().any(|p| {
            &p.repo == repo
                && (p.command.contains("cargo test")
                    || p.command.contains("cargo nextest")
                    || (p.command.contains("run_profile.sh") && script_runs_cargo))
        });
        let all = o.f2p.iter().chain(&o.p2p);
        if !runs_cargo || o.f2p.is_empty() && o.p2p.is_empty() {
            continue;
        }
        if !all
            .clone()
            .all(|id| id.starts_with(PREFIX) && id.len() > PREFIX.len())
        {
            continue;
        }
        let example = o.f2p.first().or(o.p2p.first()).cloned().unwrap_or_default();
        for id in o.f2p.iter_mut().chain(o.p2p.iter_mut()) {
            *id = id[PREFIX.len()..].to_string();
        }
        stripped.push((repo.clone(), example));
    }
    let repos: Vec<String> = stripped.iter().map(|(r, _)| r.clone()).collect();
    if stripped.is_empty() {
        return repos;
    }
    let source = files
        .sources
        .add(files.shown("oracles/scoring_manifest.json"), String::new());
    for (repo, example) in stripped {
        emit(
            files,
            source,
            0,
            format!(
                "the oracle ids of `{repo}` carry WideSWE's cargo report prefix `{PREFIX}` (`{example}`), the runner's name, not a repository's; removed, so `--compare-oracle` compares the test paths"
            ),
            "taskc's `cargo` parser names a test by its test target and path; the comparison leaves the target out",
        );
    }
    repos
}

fn prefixed_ids(case: &Case, files: &mut CaseFiles, cargo_paths: &[String]) {
    let Some(oracle) = &case.oracle else { return };
    let names: Vec<String> = case.repos.iter().map(|r| repo_name(&r.name)).collect();
    let mut found: Vec<(String, String, String)> = Vec::new();
    for (repo, o) in &oracle.repos {
        // A cargo test path starts with a module, which may share a repository's name
        // (cargo's `rustup::typical_rustup` tests cargo under rustup).
        if cargo_paths.contains(repo) {
            continue;
        }
        for id in o.f2p.iter().chain(&o.p2p) {
            let Some((head, _)) = id.split_once("::") else {
                continue;
            };
            if let Some(other) = names.iter().find(|n| *n != repo && repo_name(head) == **n) {
                found.push((repo.clone(), other.clone(), id.clone()));
                break;
            }
        }
    }
    if found.is_empty() {
        return;
    }
    let source = files
        .sources
        .add(files.shown("oracles/scoring_manifest.json"), String::new());
    for (repo, other, id) in found {
        emit(
            files,
            source,
            0,
            format!(
                "the oracle ids of `{repo}` start with another repository's name (`{id}` names `{other}`); kept as written, so `--compare-oracle` lists them on one side until the prefix is removed"
            ),
            "check which repository's tests these are; the ids taskc derives carry no repository prefix",
        );
    }
}

fn runners(case: &Case, files: &mut CaseFiles) {
    let Some(script) = &case.run_profile else {
        return;
    };
    let mut seen: Vec<String> = Vec::new();
    for (at, line) in super::script::logical_lines(&script.text) {
        for w in super::script::words(&line) {
            let Some(i) = w.find("runners/") else {
                continue;
            };
            let rel = w[i..].trim_matches(|c: char| c == '"' || c == '\'' || c == ';');
            if rel.contains('$') || seen.iter().any(|s| s == rel) {
                continue;
            }
            seen.push(rel.to_string());
            if !files.root.join(rel).exists() && !files.root.join("environment").join(rel).exists()
            {
                emit(
                    files,
                    script.source,
                    at,
                    format!("`{}` runs `{rel}`, which the case folder does not hold", script.rel),
                    "the script comes from WideSWE's checkout (or another case); the spec takes only the test command",
                );
            }
        }
    }
}
