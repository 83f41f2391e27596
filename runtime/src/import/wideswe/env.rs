//! A WideSWE case's environment as a taskc `env` and per-repository `setup` steps.
//!
//! WideSWE's `environment/case_env/Dockerfile.case-base` is the *agent* layer of its harness
//! (it `COPY --from=task_ctx` files its harness supplies, labelled
//! `org.ecosyncbench.layer=case-base`); the tests run in the profile's `image` with the
//! installs of `run_profile.sh`. So:
//!
//! - a case whose Dockerfile is that agent layer and whose profiles all run in WideSWE's
//!   Python base image (`ecosyncbench/base/python:<version>…`) becomes `env python`, the
//!   requirements of its installs the recipe's `packages` (`pytest` its `pytest`);
//! - a case with its own Dockerfile keeps it (`env dockerfile`, `FROM` rebased with
//!   `--base-image`), the requirements installed by `setup` steps;
//! - an agent layer over any other image cannot be rebuilt here: E1109.
//!
//! Installs of a repository's own folder become its `setup` steps in both cases.

use std::collections::BTreeMap;

use taskc_compiler::lower::shell_quote as sh;
use taskc_compiler::{Code, Diagnostic};

use super::case::Case;
use super::graph;
use super::install::{self, Installs};
use super::{error, note, rebase};
use crate::import::build::{call, ident, list, string, Stmt};
use crate::import::files::CaseFiles;
use crate::import::summary::ImageRow;
use crate::import::ImportOptions;

/// The prefix of WideSWE's Python base images; the version follows.
const PYTHON_IMAGE: &str = "ecosyncbench/base/python:";
/// What the python recipe's default base image ships.
const BASE_PYTHON: &str = "3.11";

/// The task's `env` statement and the `setup` commands of each repository (by WideSWE name).
pub struct Environment {
    pub env: Stmt,
    pub setup: BTreeMap<String, Vec<String>>,
    /// Repositories each repository's installs put in its environment (for `uses`).
    pub installs_of: BTreeMap<String, Vec<String>>,
}

/// Whether `dockerfile` is WideSWE's agent case layer rather than a test environment.
pub(super) fn is_agent_layer(dockerfile: &str) -> bool {
    dockerfile.contains("org.ecosyncbench.layer=case-base")
        || dockerfile.contains("--from=task_ctx")
}

/// The package name of a requirement specifier (`coverage[toml]>=7` → `coverage`).
fn requirement_name(spec: &str) -> String {
    spec.split(|c: char| "<>=!~[;@ (".contains(c))
        .next()
        .unwrap_or(spec)
        .to_ascii_lowercase()
        .replace('_', "-")
}

pub fn environment(
    case: &Case,
    files: &mut CaseFiles,
    opts: &ImportOptions,
    out: &mut BTreeMap<String, Vec<u8>>,
    rows: &mut Vec<ImageRow>,
) -> Option<Environment> {
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
    let installs = read_installs(case, files);
    let targets: Vec<&super::case::Profile> = case
        .profiles
        .iter()
        .filter(|p| case.repos.iter().any(|r| r.target && r.name == p.repo))
        .collect();
    // A profile without `image` runs in what the case's Dockerfile starts from.
    // Its `ARG` defaults substituted (`FROM ${ECOSYNC_BASE_IMAGE}`, cases 4 and 20).
    let from_owned = graph::from_image(&df.text).unwrap_or_default();
    let from = from_owned.as_str();
    let images: Vec<&str> = targets
        .iter()
        .map(|p| p.image.as_deref().unwrap_or(from))
        .collect();
    let python: Option<&str> = images
        .iter()
        .map(|i| i.strip_prefix(PYTHON_IMAGE))
        .collect::<Option<Vec<&str>>>()
        .and_then(|v| v.first().copied())
        .map(|v| v.split('-').next().unwrap_or(v));
    let agent = is_agent_layer(&df.text);
    // `run_profile.sh` builds a test image per runtime from the case's Dockerfiles (a java
    // one for gradle, a node one for jest: cases 24–27, 32, 33); the spec's one environment
    // is built from one of them, which the report says.
    if !agent {
        if let Some(rp) = &case.run_profile {
            let chosen = df.rel.rsplit('/').next().unwrap_or(&df.rel).to_string();
            let mut others: Vec<String> = super::built::dockerfiles_built(&rp.text)
                .into_iter()
                .filter(|n| *n != chosen)
                .collect();
            // A test image built from one of WideSWE's recipes (cases 32, 33: the go image
            // of package-spec's tests), unless the environment is built from that recipe
            // (the image its Dockerfile starts from, or one of that image's parents).
            let mut own: Vec<String> = super::root::recipe_candidates(from);
            if let Some(root) = opts.root.as_deref() {
                if let Ok(g) = graph::resolve(root, from) {
                    own.extend(g.stages.into_iter().map(|st| st.recipe));
                }
            }
            others.extend(
                super::built::recipes_built(&rp.text)
                    .into_iter()
                    .filter(|r| !own.contains(r)),
            );
            if !others.is_empty() {
                note(
                    files,
                    rp,
                    0,
                    format!(
                        "`{}` builds its profiles' test images from several Dockerfiles (`{chosen}`, `{}`); taskc's one environment is built from `{}`, so the tests of profiles that WideSWE runs in the other images run in it",
                        rp.rel,
                        others.join("`, `"),
                        df.rel
                    ),
                    "check that every repository's tests run in that image, or give the environment what they need (`setup` steps, one Dockerfile with both runtimes)",
                );
            }
        }
    }

    let mut setup: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut installs_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let push = |map: &mut BTreeMap<String, Vec<String>>, repo: &str, v: String| {
        let e = map.entry(repo.to_string()).or_default();
        if !e.contains(&v) {
            e.push(v);
        }
    };
    let mut requirements: Vec<String> = Vec::new();
    let mut per_repo: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut groups = false;
    for step in &installs.steps {
        for r in &step.requirements {
            if !requirements.contains(r) {
                requirements.push(r.clone());
            }
            for owner in &step.repos {
                push(&mut per_repo, owner, r.clone());
            }
        }
        for f in &step.requirement_files {
            for owner in &step.repos {
                push(
                    &mut setup,
                    owner,
                    format!("python -m pip install -r {}", sh(f)),
                );
            }
        }
        for l in &step.locals {
            groups |= !l.groups.is_empty();
            push(&mut setup, &l.repo, l.setup_command());
            for owner in &step.repos {
                if owner != &l.repo {
                    push(&mut installs_of, owner, l.repo.clone());
                }
            }
            if !l.was_editable {
                if let Some(t) = &case.run_profile {
                    note(
                        files,
                        t,
                        step.at,
                        format!(
                            "`{}` installs the folder of `{}` without `-e`; taskc installs it at image build, so the spec installs it editable (`-e`) to see the gold and agent patches",
                            t.rel, l.repo
                        ),
                        "check that an editable install behaves as WideSWE's install did",
                    );
                }
            }
        }
    }
    // A `cargo fetch` runs at image build: taskc's test runs have no network.
    for f in &installs.fetches {
        for owner in &f.repos {
            push(&mut setup, owner, f.command.clone());
        }
    }
    let sets: Vec<&Vec<String>> = per_repo.values().collect();
    if sets.windows(2).any(|w| w[0] != w[1]) {
        if let Some(t) = &case.run_profile {
            note(
                files,
                t,
                0,
                format!(
                    "`{}` installs different requirements per profile, each into its own virtual environment; taskc's one environment holds all of them ({})",
                    t.rel,
                    requirements.join(", ")
                ),
                "check that no repository's tests change with another's requirements",
            );
        }
    }

    let env = if agent && python.is_some() {
        let version = python.unwrap_or(BASE_PYTHON);
        rows.push(ImageRow {
            name: images.first().copied().unwrap_or("").to_string(),
            from: "the python recipe (`env python`)".into(),
        });
        let mut params = Vec::new();
        let (pytest, mut packages): (Vec<String>, Vec<String>) = requirements
            .iter()
            .cloned()
            .partition(|r| requirement_name(r) == "pytest");
        if groups && !packages.iter().any(|p| requirement_name(p) == "pip") {
            // `pip install --group` (PEP 735) needs pip 25.1; `uv pip` had it.
            packages.push("pip>=25.1".into());
        }
        if let Some(p) = pytest.first() {
            params.push(Stmt::new("pytest", vec![string(p)]));
        }
        if !packages.is_empty() {
            params.push(Stmt::new("packages", vec![list(&packages)]));
        }
        if version != BASE_PYTHON {
            note(
                files,
                df,
                0,
                format!(
                    "WideSWE runs the tests on Python {version} (`{}`); the python recipe uses the base image's python3 ({BASE_PYTHON} on taskc/base:bookworm)",
                    images.first().copied().unwrap_or("")
                ),
                "set `[images] base` in taskc.toml to an image with that Python and add `version` to `env python` when the difference matters",
            );
        }
        Stmt::new("env", vec![ident("python")])
            .block(params)
            .comment(&format!(
                "WideSWE's test image `{}` as the python recipe, with the requirements of {}; {} is WideSWE's agent layer, not rebuilt",
                images.first().copied().unwrap_or(""),
                case.run_profile
                    .as_ref()
                    .map_or("environment/run_profile.sh", |t| t.rel.as_str()),
                df.rel
            ))
    } else if agent {
        let image = images.first().copied().unwrap_or("");
        if let Some(t) = images.iter().find(|i| **i != image) {
            note(
                files,
                df,
                0,
                format!(
                    "the case's profiles run in different images (`{image}`, `{t}`); taskc's one environment is built from `{image}`"
                ),
                "check that every repository's tests run in that image",
            );
        }
        // The profile's image as the case's compose file builds it (a deps recipe of
        // benchmark/images/ with build arguments), else by its name.
        let service = targets
            .first()
            .and_then(|p| compose_service(&files.root, &p.name));
        let built = match (opts.root.as_deref(), &service) {
            (None, Some(s)) => Err(s.image.clone()),
            (None, None) => Err(image.to_string()),
            (Some(root), Some(s)) => graph::resolve_recipe(root, &s.image, &s.recipe, &s.args),
            (Some(root), None) => graph::resolve(root, image),
        };
        let image = service.as_ref().map_or(image, |s| s.image.as_str());
        if let Some(s) = &service {
            let others: Vec<String> = targets
                .iter()
                .skip(1)
                .filter_map(|p| compose_service(&files.root, &p.name))
                .filter(|o| o.image != s.image)
                .map(|o| o.image)
                .collect();
            if !others.is_empty() {
                note(
                    files,
                    df,
                    0,
                    format!(
                        "the case's compose file builds a test image per profile (`{}`, `{}`); taskc's one environment is built as `{}`'s, so the other repositories' prepared dependencies are not in it",
                        s.image,
                        others.join("`, `"),
                        s.image
                    ),
                    "install each repository's dependencies in its `setup` steps",
                );
            }
        }
        let mut graph = match built {
            Ok(g) => g,
            Err(missing) => {
                rows.push(ImageRow {
                    name: missing.clone(),
                    from: "no recipe".into(),
                });
                let where_ = if opts.root.is_some() {
                    "the checkout's benchmark/images/ has no recipe for it"
                } else {
                    "import from a WideSWE checkout (`taskc import wideswe ROOT CASE…`) so the image's recipe under benchmark/images/ can be read"
                };
                error(
                    files,
                    Code::ImportEnvironment,
                    df,
                    df.text.find("--from=task_ctx").unwrap_or(0),
                    format!(
                        "`{}` is WideSWE's agent layer over `{image}`; the tests run in that image, and `{missing}` cannot be rebuilt: {where_}",
                        df.rel
                    ),
                    "write the test environment as a Dockerfile (`env dockerfile`) for this case",
                );
                return None;
            }
        };
        // The deps recipes' copies of a repository read it as a named context.
        let routed =
            super::contexts::route(&mut graph, case, targets.first().map(|p| p.repo.as_str()));
        assumed_notes(files, df, &routed);
        let (text, stages) = graph.dockerfile(opts.base_image.as_deref());
        for st in &stages {
            rows.push(ImageRow {
                name: st.image.clone(),
                from: st.recipe.clone(),
            });
            for c in &st.copies {
                note(
                    files,
                    df,
                    0,
                    format!(
                        "the recipe `{}` of `{}` copies `{c}` from its build context, which is no repository of the case the importer can name (WideSWE's build script gives it); the spec's environment has no such context, so its build fails until that file is provided",
                        st.recipe, st.image
                    ),
                    "name the folder it comes from as a named context (`contexts { src repo(<name>) }` or `dir(\"…\")`) and copy `--from=` it, or drop the step when the tests do not need it",
                );
            }
        }
        rows.push(ImageRow {
            name: graph.upstream.clone(),
            from: match (&opts.base_image, graph.unbuilt) {
                (Some(b), _) => format!("stood in for by `{b}` (--base-image)"),
                (None, true) => {
                    "no recipe in benchmark/images/: named as the case names it, for `[images.map]`"
                        .into()
                }
                (None, false) => "upstream: must exist locally or be pulled".into(),
            },
        });
        if graph.unbuilt && opts.base_image.is_none() {
            let why = match &graph.missing_recipe {
                Some(r) => format!(
                    "the case's compose file builds it from `{r}`, which the checkout does not hold"
                ),
                None => "WideSWE builds it outside the case, and it is not published".into(),
            };
            note(
                files,
                df,
                0,
                format!(
                    "`{}` has no recipe in the checkout's benchmark/images/ ({why}); the environment starts `FROM {}` as the case names it",
                    graph.upstream, graph.upstream
                ),
                "name a local image for it in `[images.map]` of taskc.toml (or pass --base-image) before building",
            );
        }
        out.insert("environment/Dockerfile".into(), text.into_bytes());
        let chain: Vec<String> = stages
            .iter()
            .map(|s| format!("{} ({})", s.image, s.recipe))
            .collect();
        let mut comment = format!(
            "WideSWE's test image `{image}` {}; {} is WideSWE's agent layer, not rebuilt",
            built_from(&chain),
            df.rel
        );
        match &opts.base_image {
            Some(b) => comment.push_str(&format!(
                "\nFROM {} stood in for by {b} (--base-image)",
                graph.upstream
            )),
            None => comment.push_str(&format!(
                "\nFROM {} as the {} names it",
                graph.upstream,
                if chain.is_empty() { "case" } else { "recipe" }
            )),
        }
        if let Some(t) = &case.run_profile {
            note(
                files,
                t,
                0,
                format!(
                    "`{}` may prepare the workspace before the tests (dependency installs, builds) in `{image}`; only its test command was taken",
                    t.rel
                ),
                "add what the tests need to each repository's `setup` steps",
            );
        }
        Stmt::new("env", vec![ident("dockerfile")])
            .block(dockerfile_params(&routed))
            .comment(&comment)
    } else {
        // The image the case's own Dockerfile starts from, rebuilt from its recipes first.
        let mut parents = match (opts.root.as_deref(), agent) {
            (Some(root), false) if from.starts_with("ecosyncbench/") => {
                graph::resolve(root, from).ok()
            }
            _ => None,
        };
        let profile_repo = targets.first().map(|p| p.repo.as_str());
        let mut routed = match parents.as_mut() {
            Some(g) => super::contexts::route(g, case, profile_repo),
            None => Default::default(),
        };
        // The case's own Dockerfile, built with the workspace as its context: its copies of
        // a repository read that repository's context too.
        let (own, own_routed) =
            super::contexts::route_dockerfile(&df.text, &df.rel, case, profile_repo);
        for c in own_routed.contexts {
            if !routed.contexts.contains(&c) {
                routed.contexts.push(c);
            }
        }
        routed.assumed.extend(own_routed.assumed);
        assumed_notes(files, df, &routed);
        let chained = parents
            .as_ref()
            .and_then(|g| g.under(&own, opts.base_image.as_deref()).map(|t| (g, t)));
        let (text, rebased) = match (&chained, &opts.base_image) {
            (Some((_, t)), _) => (t.clone(), Vec::new()),
            (None, Some(b)) => rebase(&own, b),
            (None, None) => (own.clone(), Vec::new()),
        };
        if let Some((g, _)) = &chained {
            for st in &g.stages {
                rows.push(ImageRow {
                    name: st.image.clone(),
                    from: st.recipe.clone(),
                });
            }
            rows.push(ImageRow {
                name: g.upstream.clone(),
                from: match (&opts.base_image, g.unbuilt) {
                    (Some(b), _) => format!("stood in for by `{b}` (--base-image)"),
                    (None, true) => "no recipe in benchmark/images/: named as the case names it, for `[images.map]`".into(),
                    (None, false) => "upstream: must exist locally or be pulled".into(),
                },
            });
            if g.unbuilt && opts.base_image.is_none() {
                note(
                    files,
                    df,
                    0,
                    format!(
                        "`{}` has no recipe in the checkout's benchmark/images/; the environment's root stage starts `FROM {}` as the case names it",
                        g.upstream, g.upstream
                    ),
                    "name a local image for it in `[images.map]` of taskc.toml (or pass --base-image) before building",
                );
            }
        }
        // What it still copies from its build context (not `--from=` a stage or context).
        if own.lines().any(|l| {
            let l = l.trim_start().to_ascii_uppercase();
            (l.starts_with("COPY ") || l.starts_with("ADD ")) && !l.contains("--FROM=")
        }) {
            note(
                files,
                df,
                0,
                format!("`{}` copies files from a build context the case does not ship", df.rel),
                "add those files to the task's environment/ folder and a `context dir(\"environment\")` parameter",
            );
        }
        for (old, _) in &rebased {
            rows.push(ImageRow {
                name: old.clone(),
                from: format!("the case's {}, rebased (--base-image)", df.rel),
            });
        }
        if rebased.is_empty() && !from.is_empty() {
            rows.push(ImageRow {
                name: from.to_string(),
                from: match &chained {
                    Some(_) => format!("built from its recipes, under the case's {}", df.rel),
                    None => format!("named by the case's {}", df.rel),
                },
            });
        }
        out.insert("environment/Dockerfile".into(), text.into_bytes());
        // Requirements are installed by the first repository that asked for them.
        if groups {
            for repo in setup.keys().cloned().collect::<Vec<_>>() {
                let e = setup.entry(repo).or_default();
                if e.iter().any(|c| c.contains(" --group ")) {
                    e.insert(0, "python -m pip install 'pip>=25.1'".into());
                }
            }
        }
        for (repo, reqs) in &per_repo {
            let words: Vec<String> = reqs.iter().map(|r| sh(r)).collect();
            setup
                .entry(repo.clone())
                .or_default()
                .insert(0, format!("python -m pip install {}", words.join(" ")));
        }
        let mut comment = match &chained {
            Some((g, _)) => {
                let chain: Vec<String> = g
                    .stages
                    .iter()
                    .map(|s| format!("{} ({})", s.image, s.recipe))
                    .collect();
                format!(
                    "from the case's {} over its image, {}\nroot FROM {}",
                    df.rel,
                    built_from(&chain),
                    g.upstream
                )
            }
            None => format!("from the case's {}", df.rel),
        };
        for (old, new) in rebased {
            comment.push_str(&format!("\nFROM {old} rebased onto {new} (--base-image)"));
        }
        Stmt::new("env", vec![ident("dockerfile")])
            .block(dockerfile_params(&routed))
            .comment(&comment)
    };
    Some(Environment {
        env,
        setup,
        installs_of,
    })
}

/// `dockerfile file("environment/Dockerfile")`, and the named contexts the recipes read.
fn dockerfile_params(routed: &super::contexts::Routed) -> Vec<Stmt> {
    let mut params = vec![Stmt::new(
        "dockerfile",
        vec![call("file", "environment/Dockerfile")],
    )];
    if !routed.contexts.is_empty() {
        let each = routed
            .contexts
            .iter()
            .map(|c| {
                Stmt::new(
                    &c.name,
                    vec![crate::import::build::call_ident(
                        "repo",
                        &crate::import::names::repo_name(&c.repo),
                    )],
                )
            })
            .collect();
        params.push(Stmt::new("contexts", Vec::new()).block(each));
    }
    params
}

/// A W1108 note per copy routed to the profile's repository by assumption.
fn assumed_notes(
    files: &mut CaseFiles,
    df: &crate::import::files::Text,
    routed: &super::contexts::Routed,
) {
    for (recipe, source, repo) in &routed.assumed {
        note(
            files,
            df,
            0,
            format!(
                "the recipe `{recipe}` copies `{source}` from its build context, which WideSWE's build script gives; taken to be the repository `{repo}` at its base commit (the profile's repository: the recipe names none)"
            ),
            "check that the deps image is built from that repository; name another in the spec's `contexts { … }` if not",
        );
    }
}

/// How an image is built, for a spec comment: from its recipes (`image (recipe)`, parents
/// first), or, with none, as the public image it names.
fn built_from(chain: &[String]) -> String {
    if chain.is_empty() {
        "is the public image it names (no recipe of the checkout builds it)".into()
    } else {
        format!(
            "built from its recipes, parents first: {}",
            chain.join(" <- ")
        )
    }
}

/// A compose service that builds a profile's test image from a recipe of WideSWE's tree.
struct ComposeImage {
    image: String,
    /// Relative to the checkout root (`benchmark/images/deps/…/Dockerfile`).
    recipe: String,
    args: Vec<(String, String)>,
}

/// The service named `profile` in the case's `environment/docker-compose.yml`, when it
/// builds its `image` from a Dockerfile under `benchmark/images/`.
fn compose_service(case_dir: &std::path::Path, profile: &str) -> Option<ComposeImage> {
    let text = [
        "environment/docker-compose.yml",
        "environment/docker-compose.yaml",
    ]
    .iter()
    .find_map(|rel| std::fs::read_to_string(case_dir.join(rel)).ok())?;
    let doc = crate::import::yaml::parse(&text).ok()?;
    let service = doc.get("services")?.get(profile)?;
    let image = service.get("image")?.as_str()?.to_string();
    let build = service.get("build")?;
    let dockerfile = build.get("dockerfile")?.as_str()?;
    let at = dockerfile.find("benchmark/images/")?;
    let args = build
        .get("args")
        .map(|a| {
            a.entries()
                .iter()
                .filter_map(|(k, _, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Some(ComposeImage {
        image,
        recipe: dockerfile[at..].to_string(),
        args,
    })
}

/// The installs of `environment/run_profile.sh`, what cannot be mapped reported (W1108).
fn read_installs(case: &Case, files: &mut CaseFiles) -> Installs {
    let Some(script) = &case.run_profile else {
        return Installs::default();
    };
    let (repos, profiles) = case.script_view();
    let installs = install::read(&script.text, &repos, &profiles);
    for u in &installs.unmapped {
        note(
            files,
            script,
            u.at,
            format!(
                "an install step of `{}` cannot be mapped: {}",
                script.rel, u.what
            ),
            "the spec does not do it: add it to the environment (`packages`, a `setup` step or a Dockerfile) if the tests need it",
        );
    }
    installs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_image_without_recipes_is_named_as_such() {
        assert_eq!(
            built_from(&[]),
            "is the public image it names (no recipe of the checkout builds it)"
        );
        assert!(!built_from(&[]).contains(": ;"));
        assert_eq!(
            built_from(&[
                "ecosyncbench/deps/x:1 (deps/x)".into(),
                "ecosyncbench/base/node:22 (base/node-22)".into()
            ]),
            "built from its recipes, parents first: ecosyncbench/deps/x:1 (deps/x) <- ecosyncbench/base/node:22 (base/node-22)"
        );
    }

    #[test]
    fn names_and_quoting() {
        assert_eq!(requirement_name("coverage[toml]>=7.2.0"), "coverage");
        assert_eq!(requirement_name("tomli_w"), "tomli-w");
        assert_eq!(requirement_name("pytest<9"), "pytest");
        assert!(is_agent_layer("COPY --from=task_ctx /a /b\n"));
        assert!(!is_agent_layer("FROM x\nRUN true\n"));
    }
}
