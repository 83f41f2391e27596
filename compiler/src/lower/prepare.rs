//! What every plan kind shares: images, blobs, per-target test material, and a run builder.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{RelaxAction, Task};
use crate::plan::{
    canonical_digest, sha256_hex, short_id, DroppedTest, Images, Plan, PlanBody, Run, RunService,
    Step, TaskInfo, TestStep, PLAN_SCHEMA,
};

use super::relax::{apply_edits, Edit};
use super::task_image::repo_path;
use super::{env, manifest, task_image, LowerError, LowerOptions};

/// A target's hidden-test material, ready to put in runs.
#[derive(Debug, Clone)]
pub(crate) struct TargetTests {
    pub gold_blob: String,
    pub tests_blob: String,
    pub restore: Vec<String>,
    /// Rust files the hidden tests change beside the code (`restore-test-modules`).
    pub modules: Vec<String>,
    pub test: TestStep,
}

/// Shared lowering state of one task.
pub(crate) struct Prepared<'t> {
    pub task: &'t Task,
    pub images: Images,
    pub blobs: BTreeMap<String, String>,
    /// Targets in declaration order.
    pub targets: Vec<String>,
    /// Context repositories in declaration order.
    pub contexts: Vec<String>,
    pub tests: BTreeMap<String, TargetTests>,
    pub prompt_blob: String,
    /// Per repository, its test-surface globs (`restore-surface`), sorted.
    pub surface: BTreeMap<String, Vec<String>>,
    /// Every service of the task as a run starts it, by name.
    pub services: BTreeMap<String, RunService>,
}

impl<'t> Prepared<'t> {
    pub fn new(task: &'t Task, opts: &LowerOptions) -> Result<Prepared<'t>, LowerError> {
        let recipe = manifest::load(&task.env.recipe)?;
        let trees = repo_trees(task);
        let (environment, mut nodes) =
            env::env_image_and_nodes(&task.env, &recipe, opts, true, &trees)?;
        let task_img = task_image::task_image(task, &environment);
        let mut blobs = BTreeMap::new();
        let mut add = |text: &str| {
            let d = sha256_hex(text.as_bytes());
            blobs.entry(d.clone()).or_insert_with(|| text.to_string());
            d
        };
        let prompt_blob = add(&task.prompt.text);
        let mut tests = BTreeMap::new();
        for r in task.targets() {
            let gold = r
                .gold
                .as_ref()
                .ok_or_else(|| LowerError::TargetIncomplete {
                    repo: r.name.clone(),
                    what: "gold patch",
                })?;
            let t = r
                .test
                .as_ref()
                .ok_or_else(|| LowerError::TargetIncomplete {
                    repo: r.name.clone(),
                    what: "test block",
                })?;
            let edits: Vec<Edit<'_>> = r
                .relaxations
                .iter()
                .filter_map(|x| match &x.action {
                    RelaxAction::Edit {
                        file,
                        replace,
                        with,
                    } => Some(Edit {
                        file,
                        replace,
                        with,
                    }),
                    RelaxAction::Drop { .. } => None,
                })
                .collect();
            let relaxed =
                apply_edits(&t.patch.text, &edits).map_err(|source| LowerError::Relax {
                    repo: r.name.clone(),
                    source,
                })?;
            let mut dropped: Vec<DroppedTest> = r
                .relaxations
                .iter()
                .filter_map(|x| match &x.action {
                    RelaxAction::Drop { test } => Some(DroppedTest {
                        test: test.clone(),
                        rule: x.rule,
                    }),
                    RelaxAction::Edit { .. } => None,
                })
                .collect();
            dropped.sort();
            dropped.dedup();
            // A Rust source file the hidden tests change in place (its unit tests beside the
            // code) keeps the solution's changes: only its test modules are the hidden ones.
            let modules: BTreeSet<String> = t
                .patch
                .patch
                .files
                .iter()
                .filter(|f| crate::inline_tests::candidate(f))
                .map(|f| f.path().to_string())
                .collect();
            let restore: BTreeSet<String> = t
                .patch
                .patch
                .files
                .iter()
                .flat_map(|f| [f.old_path.clone(), f.new_path.clone()])
                .flatten()
                .filter(|p| !modules.contains(p))
                .collect();
            tests.insert(
                r.name.clone(),
                TargetTests {
                    gold_blob: add(&gold.text),
                    tests_blob: add(&relaxed),
                    restore: restore.into_iter().collect(),
                    modules: modules.into_iter().collect(),
                    test: TestStep {
                        repo: r.name.clone(),
                        workdir: repo_path(&r.name),
                        command: t.run.clone(),
                        parser: t.parser,
                        timeout_secs: t.timeout_secs,
                        dropped,
                        select_template: t.select.clone(),
                        select: None,
                    },
                },
            );
        }
        let surface = surface_globs(task);
        let (service_images, services, service_nodes) =
            super::service::lower_services(task, opts, &trees)?;
        nodes.extend(service_nodes);
        Ok(Prepared {
            task,
            surface,
            services,
            images: Images {
                environment,
                task: task_img,
                services: service_images,
                nodes,
            },
            blobs,
            targets: task.targets().map(|r| r.name.clone()).collect(),
            contexts: task.contexts().map(|r| r.name.clone()).collect(),
            tests,
            prompt_blob,
        })
    }

    /// A run from the task image testing `under_test` (a target): the prediction
    /// placeholders, then gold, then `under_test`'s test files restored and its relaxed
    /// hidden tests applied; then its tests. Lists are sorted by name. `None` when
    /// `under_test` is not a target with tests.
    pub fn run(&self, under_test: &str, gold: &[String], prediction: &[String]) -> Option<Run> {
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v.dedup();
            v
        };
        let (gold, prediction) = (sorted(gold), sorted(prediction));
        let t = self.tests.get(under_test)?;
        let mut steps = Vec::new();
        for repo in &prediction {
            steps.push(Step::ApplyPrediction { repo: repo.clone() });
        }
        for repo in &prediction {
            steps.push(Step::RestoreSurface {
                repo: repo.clone(),
                globs: self.surface.get(repo).cloned().unwrap_or_default(),
            });
        }
        for repo in &gold {
            if let Some(g) = self.tests.get(repo) {
                steps.push(Step::ApplyGold {
                    repo: repo.clone(),
                    blob: g.gold_blob.clone(),
                });
            }
        }
        steps.push(Step::RestoreFiles {
            repo: under_test.to_string(),
            paths: t.restore.clone(),
        });
        if !t.modules.is_empty() {
            steps.push(Step::RestoreTestModules {
                repo: under_test.to_string(),
                paths: t.modules.clone(),
            });
        }
        steps.push(Step::ApplyTests {
            repo: under_test.to_string(),
            blob: t.tests_blob.clone(),
        });
        let mut run = Run {
            id: String::new(),
            digest: String::new(),
            image: self.images.task.id.clone(),
            under_test: under_test.to_string(),
            gold_applied: gold,
            prediction,
            network: false,
            steps,
            test: t.test.clone(),
            services: self
                .task
                .repo(under_test)
                .map(|r| {
                    r.services
                        .iter()
                        .filter_map(|n| self.services.get(n).cloned())
                        .collect()
                })
                .unwrap_or_default(),
        };
        let digest = canonical_digest("taskc.run/1", &(&self.images.task.digest, &run));
        run.id = short_id("run", &digest);
        run.digest = digest;
        Some(run)
    }

    /// Assemble and seal a plan, keeping only the blobs it refers to.
    pub fn finish(self, body: PlanBody) -> Plan {
        let mut used: BTreeSet<String> = BTreeSet::new();
        let targeted = match &body {
            PlanBody::Verify { verify } => verify.targeted.iter().map(|t| &t.run).collect(),
            _ => Vec::new(),
        };
        for run in body.runs().iter().chain(targeted) {
            for step in &run.steps {
                match step {
                    Step::ApplyGold { blob, .. } | Step::ApplyTests { blob, .. } => {
                        used.insert(blob.clone());
                    }
                    Step::ApplyPrediction { .. }
                    | Step::RestoreFiles { .. }
                    | Step::RestoreTestModules { .. }
                    | Step::RestoreSurface { .. } => {}
                }
            }
        }
        if let PlanBody::Workspace { workspace } = &body {
            for w in &workspace.workspaces {
                used.insert(w.prompt.clone());
            }
        }
        let blobs = self
            .blobs
            .into_iter()
            .filter(|(k, _)| used.contains(k))
            .collect();
        Plan {
            schema: PLAN_SCHEMA.to_string(),
            id: String::new(),
            digest: String::new(),
            body,
            task: TaskInfo {
                id: self.task.id.clone(),
                title: self.task.title.clone(),
                kind: self.task.kind,
                targets: self.targets,
                contexts: self.contexts,
            },
            images: self.images,
            blobs,
        }
        .seal()
    }
}

/// The test surface of every repository: the stdlib's common list, the lists of every parser
/// the task's test blocks name (a repository's code can rig another's runner: a
/// `sitecustomize.py` on `PYTHONPATH`, a context repository imported by tests), and the
/// repository's own `protect` globs.
fn surface_globs(task: &Task) -> BTreeMap<String, Vec<String>> {
    use taskc_stdlib::surface;
    let mut shared: BTreeSet<String> = surface::COMMON.iter().map(|g| g.to_string()).collect();
    for r in &task.repos {
        if let Some(t) = &r.test {
            shared.extend(t.parser.descriptor().surface.iter().map(|g| g.to_string()));
        }
    }
    task.repos
        .iter()
        .map(|r| {
            let mut globs = shared.clone();
            globs.extend(r.protect.iter().cloned());
            (r.name.clone(), globs.into_iter().collect())
        })
        .collect()
}

/// Each repository's tree identity at base (`tree_digest`), by name: what a `repo(…)`
/// named build context is.
fn repo_trees(task: &Task) -> BTreeMap<String, String> {
    task.repos
        .iter()
        .map(|r| (r.name.clone(), super::task_image::tree_digest(r)))
        .collect()
}
