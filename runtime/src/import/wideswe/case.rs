//! A WideSWE case folder read into typed values: `task.yaml`, `repos.yaml`, `harness.yaml`,
//! `environment/test_profiles.yaml`, the Dockerfiles, the patches, `prompt.md` and
//! `oracles/scoring_manifest.json`. Every problem is a diagnostic on the file and line.

use std::collections::BTreeMap;

use taskc_compiler::Code;
use taskc_compiler::Diagnostic;

use crate::import::files::{CaseFiles, Doc, Text};
use crate::import::oracle::{Oracle, OracleRepo, ORACLE_SCHEMA};
use crate::import::yaml::{Node, Value};

/// Roles WideSWE gives task repositories (`task.yaml`), all scored.
pub const TARGET_ROLES: &[&str] = &[
    "source",
    "linked",
    "consumer",
    "producer",
    "dependent",
    "dependency",
    "peer",
    "primary",
    // A repository WideSWE added to close a manual bundle (case 119); scored like the others.
    "manual_closure",
    // A repository the change needs to be whole (case 86: nextcloud/server beside calendar
    // and cdav-library); listed in `task.yaml`, so scored like the others.
    "required_closure",
];
/// Roles of repositories the agent sees but that are not scored.
pub const CONTEXT_ROLES: &[&str] = &["context", "ecosystem", "reference"];

#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub ecosystem: Option<String>,
    pub task_type: Option<String>,
    pub repos: Vec<CaseRepo>,
    /// Source pull requests: (url, title).
    pub prs: Vec<(String, String)>,
    pub cutoff: Option<String>,
    /// Hidden test patches per repository, in the order WideSWE applies them.
    pub hidden: BTreeMap<String, Vec<HiddenPatch>>,
    pub profiles: Vec<Profile>,
    pub prompt: Text,
    pub oracle: Option<Oracle>,
    pub dockerfile: Option<Text>,
    pub run_profile: Option<Text>,
    /// `agent_cargo_workspace_patches` of harness.yaml, in order.
    pub cargo_patches: Vec<super::cargo_patch::CargoPatch>,
    /// harness.yaml (where `cargo_patches` are written).
    pub harness: taskc_compiler::SourceId,
}

impl Case {
    /// The repositories as `run_profile.sh` names them, and (profile, repository) pairs.
    pub fn script_view(&self) -> (Vec<super::script::ScriptRepo<'_>>, Vec<(String, String)>) {
        let repos = self
            .repos
            .iter()
            .map(|r| super::script::ScriptRepo {
                name: &r.name,
                local_path: &r.local_path,
            })
            .collect();
        let profiles = self
            .profiles
            .iter()
            .map(|p| (p.name.clone(), p.repo.clone()))
            .collect();
        (repos, profiles)
    }
}

#[derive(Debug, Clone)]
pub struct CaseRepo {
    pub name: String,
    pub url: String,
    pub local_path: String,
    pub role: String,
    pub target: bool,
    pub base: String,
    pub gold: Option<Text>,
}

#[derive(Debug, Clone)]
pub struct HiddenPatch {
    pub patch: Text,
    pub origin: Option<String>,
    pub semantic_changes: Option<String>,
    /// Where `semantic_changes` is written in harness.yaml.
    pub semantic_at: Option<(taskc_compiler::SourceId, usize)>,
    pub profile: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Profile {
    pub name: String,
    pub repo: String,
    pub workdir: Option<String>,
    pub command: String,
    /// The image WideSWE runs the profile in (`ecosyncbench/base/python:3.12-uv`).
    pub image: Option<String>,
    /// Where `command` is written (for diagnostics).
    pub doc: Doc,
    pub command_at: usize,
}

fn bad(files: &mut CaseFiles, doc: &Doc, at: usize, code: Code, msg: String, help: &str) {
    let label = files.at(doc.source, at, "here");
    files.emit(Diagnostic::new(code, msg, label).with_help(help.to_string()));
}

/// Read the case in `files.root`. `None` when a file it cannot do without is broken (the
/// diagnostics say which).
pub fn read(files: &mut CaseFiles) -> Option<Case> {
    let task = files.yaml("task.yaml", "task file");
    let repos = files.yaml("repos.yaml", "repository file");
    let harness = files.yaml("harness.yaml", "harness file");
    let profiles = files.yaml("environment/test_profiles.yaml", "test profile file");
    let prompt = files.text("prompt.md", "prompt");
    let (task, repos, harness, profiles, prompt) = (task?, repos?, harness?, profiles?, prompt?);

    let (id, _) = files.string(&task, &task.root, "id", "the case id")?;
    let ecosystem = files.opt_string(&task, &task.root, "ecosystem");
    let task_type = files.opt_string(&task, &task.root, "task_type");

    // Repositories: task.yaml lists the scored ones, repos.yaml every one with its URL.
    let repo_map = files
        .field(&repos, &repos.root, "repos", "the repositories")?
        .clone();
    if !matches!(repo_map.value, Value::Map(_)) {
        bad(
            files,
            &repos,
            repo_map.at,
            Code::ImportField,
            format!(
                "`repos` in `repos.yaml` must be a mapping, found {}",
                repo_map.describe()
            ),
            "write `repos:` with one `<name>:` entry per repository",
        );
        return None;
    }
    let task_repos = files
        .field(&task, &task.root, "repositories", "the task's repositories")?
        .clone();
    let mut out_repos = Vec::new();
    let mut ok = true;
    // Every name task.yaml lists, even those whose entry is broken: no follow-on errors.
    let declared: Vec<String> = task_repos
        .items()
        .iter()
        .filter_map(|e| e.get("name").and_then(Node::as_str).map(str::to_string))
        .collect();
    for entry in task_repos.items() {
        let Some((name, _)) = files.string(&task, entry, "name", "the repository's name") else {
            ok = false;
            continue;
        };
        let role = files.string(&task, entry, "role", "the repository's role");
        let base = files.string(&task, entry, "base_commit", "the base commit");
        let gold = files.string(&task, entry, "gold_patch", "the gold patch");
        let (Some((role, role_at)), Some((base, _)), Some((gold, _))) = (role, base, gold) else {
            ok = false;
            continue;
        };
        if !TARGET_ROLES.contains(&role.as_str()) {
            ok = false;
            let help = if CONTEXT_ROLES.contains(&role.as_str()) {
                "a repository in task.yaml is scored: move it to repos.yaml only (a context repository)".to_string()
            } else {
                format!(
                    "the importer knows the scored roles {}",
                    TARGET_ROLES.join(", ")
                )
            };
            bad(
                files,
                &task,
                role_at,
                Code::ImportRole,
                format!("repository `{name}` has role `{role}`, which the importer does not know"),
                &help,
            );
            continue;
        }
        let Some(info) = repo_map.get(&name) else {
            ok = false;
            bad(
                files,
                &repos,
                repo_map.at,
                Code::ImportField,
                format!("`repos.yaml` has no entry for the task repository `{name}`"),
                "add its url, local_path and commits under `repos:`",
            );
            continue;
        };
        let url = files.string(&repos, info, "url", "the repository's URL");
        let local = files
            .opt_string(&repos, info, "local_path")
            .unwrap_or_else(|| format!("repos/{name}"));
        let gold = files.text(&gold, "gold patch");
        let (Some((url, _)), Some(gold)) = (url, gold) else {
            ok = false;
            continue;
        };
        // WideSWE checks out repos.yaml's base (for a merged PR, the merge's parent); task.yaml
        // may name the PR's own base, where the gold patch need not apply.
        let mut base = base;
        if let Some(checked_out) = files.opt_string(&repos, info, "base_commit") {
            if checked_out != base {
                let at = info.key_at("base_commit").unwrap_or(info.at);
                bad(
                    files,
                    &repos,
                    at,
                    Code::ImportNote,
                    format!(
                        "repos.yaml checks `{name}` out at `{checked_out}`, task.yaml names `{base}`; the spec uses repos.yaml's commit, where WideSWE applies the gold patch"
                    ),
                    "check that the gold patch applies there (`taskc check` with the repository reachable)",
                );
                base = checked_out;
            }
        }
        out_repos.push(CaseRepo {
            name,
            url,
            local_path: local,
            role,
            target: true,
            base,
            gold: Some(gold),
        });
    }
    // Context repositories: in repos.yaml, not in task.yaml (or `included_in_task: false`).
    for (name, key_at, info) in repo_map.entries().to_vec() {
        if declared.contains(&name) {
            continue;
        }
        let included = info.get("included_in_task").and_then(Node::as_str) == Some("true");
        if included {
            ok = false;
            bad(
                files,
                &repos,
                key_at,
                Code::ImportField,
                format!("`{name}` is `included_in_task: true` in repos.yaml but task.yaml does not list it"),
                "list it under `repositories:` in task.yaml with its gold patch, or set `included_in_task: false`",
            );
            continue;
        }
        let role = files
            .opt_string(&repos, &info, "role")
            .unwrap_or_else(|| "context".into());
        let url = files.string(&repos, &info, "url", "the repository's URL");
        let commit = files
            .opt_string(&repos, &info, "snapshot_commit")
            .or_else(|| files.opt_string(&repos, &info, "base_commit"));
        let Some((url, _)) = url else {
            ok = false;
            continue;
        };
        let Some(base) = commit else {
            ok = false;
            bad(
                files,
                &repos,
                key_at,
                Code::ImportField,
                format!("context repository `{name}` has no `snapshot_commit`"),
                "add the commit the agent sees as `snapshot_commit:`",
            );
            continue;
        };
        let local = files
            .opt_string(&repos, &info, "local_path")
            .unwrap_or_else(|| format!("repos/{name}"));
        out_repos.push(CaseRepo {
            name,
            url,
            local_path: local,
            role,
            target: false,
            base,
            gold: None,
        });
    }
    let cutoff = repos
        .root
        .get("workspace_policy")
        .and_then(|p| p.get("cutoff_time"))
        .and_then(Node::as_str)
        .map(str::to_string);
    let prs = task
        .root
        .get("source_prs")
        .map(|n| {
            n.items()
                .iter()
                .filter_map(|pr| {
                    let url = pr.get("url")?.as_str()?.to_string();
                    let title = pr
                        .get("title")
                        .and_then(Node::as_str)
                        .unwrap_or("")
                        .to_string();
                    Some((url, title))
                })
                .collect()
        })
        .unwrap_or_default();

    // Hidden test patches, in order, per repository.
    let mut hidden: BTreeMap<String, Vec<HiddenPatch>> = BTreeMap::new();
    let list = files
        .field(
            &harness,
            &harness.root,
            "hidden_test_patches",
            "the hidden test patches",
        )?
        .clone();
    for entry in list.items() {
        let repo = files.string(&harness, entry, "repo", "the patch's repository");
        let patch = files.string(&harness, entry, "patch", "the patch file");
        let (Some((repo, repo_at)), Some((patch, _))) = (repo, patch) else {
            ok = false;
            continue;
        };
        if !declared.contains(&repo) {
            ok = false;
            bad(
                files,
                &harness,
                repo_at,
                Code::ImportField,
                format!("hidden test patch for `{repo}`, which is not a task repository"),
                "name a repository listed in task.yaml",
            );
            continue;
        }
        let Some(text) = files.text(&patch, "hidden test patch") else {
            ok = false;
            continue;
        };
        // Written as one string, or (in later cases) as a list of sentences.
        let semantic = match entry.get("semantic_changes").map(|n| &n.value) {
            Some(Value::Seq(items)) => {
                let parts: Vec<&str> = items.iter().filter_map(Node::as_str).collect();
                Some(parts.join(" "))
            }
            _ => files.opt_string(&harness, entry, "semantic_changes"),
        }
        .filter(|s| !s.trim().is_empty() && s.trim() != "none");
        hidden.entry(repo).or_default().push(HiddenPatch {
            patch: text,
            origin: files.opt_string(&harness, entry, "origin"),
            semantic_at: entry
                .get("semantic_changes")
                .map(|n| (harness.source, n.at)),
            semantic_changes: semantic,
            profile: files.opt_string(&harness, entry, "test_profile"),
        });
    }

    // Test profiles.
    let mut out_profiles = Vec::new();
    let pmap = files
        .field(&profiles, &profiles.root, "profiles", "the test profiles")?
        .clone();
    for (name, _, p) in pmap.entries() {
        let repo = files.string(&profiles, p, "repo", "the profile's repository");
        let command = p.get("command");
        let (Some((repo, _)), Some(command)) = (repo, command) else {
            if p.get("command").is_none() {
                ok = false;
                bad(
                    files,
                    &profiles,
                    p.at,
                    Code::ImportProfile,
                    format!("test profile `{name}` has no `command`"),
                    "give the in-container test command as `command:`",
                );
            }
            continue;
        };
        let Some(cmd) = command.as_str() else {
            ok = false;
            bad(
                files,
                &profiles,
                command.at,
                Code::ImportProfile,
                format!(
                    "the command of test profile `{name}` is {}, not a string",
                    command.describe()
                ),
                "write the command as one string",
            );
            continue;
        };
        // Later cases name the image `dependency_image`, some `docker_image`.
        let key = ["image", "dependency_image", "docker_image"]
            .into_iter()
            .find(|k| p.get(k).is_some())
            .unwrap_or("image");
        let mut image = files.opt_string(&profiles, p, key);
        // An image written with prose after it (`rust:1.91-bookworm with rustup toolchain
        // 1.92.0 cached under /data`): the image is its first word, the rest a note.
        let split = image
            .as_deref()
            .map(str::trim)
            .and_then(|i| i.split_once(char::is_whitespace))
            .map(|(a, b)| (a.to_string(), b.trim().to_string()));
        if let Some((first, rest)) = split {
            let at = p.get(key).map_or(p.at, |n| n.at);
            let label = files.at(profiles.source, at, "prose after the image");
            files.emit(
                Diagnostic::new(
                    Code::ImportNote,
                    format!(
                        "the `{key}` of test profile `{name}` is prose: \"{}\"; the importer takes `{first}` as the image, and the rest (\"{}\") is not done",
                        image.as_deref().unwrap_or("").trim(),
                        rest
                    ),
                    label,
                )
                .with_help("make sure the environment provides what the prose says (a toolchain, a cache) in a `setup` step or the Dockerfile"),
            );
            image = Some(first);
        }
        out_profiles.push(Profile {
            name: name.clone(),
            repo,
            workdir: files.opt_string(&profiles, p, "workdir"),
            command: cmd.to_string(),
            image,
            doc: profiles.clone(),
            command_at: command.at,
        });
    }

    // The environment: the case's own Dockerfile if it has one, else its case base.
    let dockerfile = dockerfile_of(files);
    let run_profile = files
        .exists("environment/run_profile.sh")
        .then(|| files.text("environment/run_profile.sh", "profile script"))
        .flatten();

    let cargo_patches = cargo_patches(files, &harness);

    let oracle = if files.exists("oracles/scoring_manifest.json") {
        read_oracle(files, &out_repos)
    } else {
        None
    };

    ok.then_some(Case {
        id,
        ecosystem,
        task_type,
        repos: out_repos,
        prs,
        cutoff,
        hidden,
        profiles: out_profiles,
        prompt,
        oracle,
        dockerfile,
        run_profile,
        cargo_patches,
        harness: harness.source,
    })
}

/// `agent_cargo_workspace_patches`: `crate: path` or `crate: { path, locked_version,
/// locked_manifest_cache_path }`.
fn cargo_patches(files: &mut CaseFiles, harness: &Doc) -> Vec<super::cargo_patch::CargoPatch> {
    let Some(map) = harness.root.get("agent_cargo_workspace_patches") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (krate, at, v) in map.entries() {
        let (path, locked_version, locked_manifest) = match v.as_str() {
            Some(p) => (Some(p.to_string()), None, None),
            None => (
                v.get("path").and_then(Node::as_str).map(str::to_string),
                files.opt_string(harness, v, "locked_version"),
                files.opt_string(harness, v, "locked_manifest_cache_path"),
            ),
        };
        let Some(path) = path.filter(|p| !p.trim().is_empty()) else {
            bad(
                files,
                harness,
                *at,
                Code::ImportField,
                format!("`agent_cargo_workspace_patches.{krate}` has no `path`"),
                "give the repository's workspace folder (`repos/<owner>/<name>`) as `path:`",
            );
            continue;
        };
        out.push(super::cargo_patch::CargoPatch {
            krate: krate.clone(),
            path,
            locked_version: locked_version.filter(|s| !s.trim().is_empty()),
            locked_manifest: locked_manifest.filter(|s| !s.trim().is_empty()),
            at: *at,
        });
    }
    out
}

/// `environment/<name>.Dockerfile` (the case's own), else `environment/case_env/Dockerfile.case-base`.
fn dockerfile_of(files: &mut CaseFiles) -> Option<Text> {
    let env = files.root.join("environment");
    let mut own: Vec<String> = std::fs::read_dir(&env)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".Dockerfile") || n == "Dockerfile")
                .collect()
        })
        .unwrap_or_default();
    own.sort();
    if let Some(name) = own.first() {
        return files.text(&format!("environment/{name}"), "Dockerfile");
    }
    let base = "environment/case_env/Dockerfile.case-base";
    files
        .exists(base)
        .then(|| files.text(base, "Dockerfile"))
        .flatten()
}

/// `oracles/scoring_manifest.json`: per repository, its F2P (native and missing-to-pass)
/// and P2P ids.
fn read_oracle(files: &mut CaseFiles, repos: &[CaseRepo]) -> Option<Oracle> {
    let rel = "oracles/scoring_manifest.json";
    let doc = files.yaml(rel, "scoring manifest")?;
    let sha256 = {
        use sha2::{Digest, Sha256};
        hex::encode(Sha256::digest(
            files.sources.get(doc.source).text.as_bytes(),
        ))
    };
    let list = files
        .field(&doc, &doc.root, "repos", "the per-repository oracle")?
        .clone();
    let mut out = BTreeMap::new();
    for entry in list.items() {
        let Some((repo, at)) = files.string(&doc, entry, "repo", "the repository") else {
            continue;
        };
        if !repos.iter().any(|r| r.name == repo) {
            bad(
                files,
                &doc,
                at,
                Code::ImportField,
                format!(
                    "the scoring manifest names `{repo}`, which is not a repository of the case"
                ),
                "the manifest and task.yaml must name the same repositories",
            );
            continue;
        }
        let Some(ids) = files
            .field(&doc, entry, "test_ids", "the test ids")
            .cloned()
        else {
            continue;
        };
        let take = |key: &str| -> Vec<String> {
            let mut v: Vec<String> = ids
                .get(key)
                .map(|l| {
                    l.items()
                        .iter()
                        .filter_map(|i| i.get("id").and_then(Node::as_str).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            v.dedup();
            v
        };
        // `fail_to_pass` already holds native F2P plus missing-to-pass; older manifests
        // list the two apart.
        let mut f2p = take("fail_to_pass");
        if ids.get("fail_to_pass").is_none() {
            f2p = take("native_fail_to_pass");
            f2p.extend(take("missing_to_pass"));
            f2p.sort();
            f2p.dedup();
        }
        out.insert(
            repo,
            OracleRepo {
                f2p,
                p2p: take("pass_to_pass"),
            },
        );
    }
    Some(Oracle {
        schema: ORACLE_SCHEMA.into(),
        origin: "wideswe".into(),
        file: rel.into(),
        sha256,
        repos: out,
    })
}
