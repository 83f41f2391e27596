//! Named build contexts lowered (`docs/plan.md`, "Named build contexts"): a folder and a
//! repository's tree at base each become a context image node (`FROM scratch`, the tree
//! copied to `/`) that the Dockerfile's `COPY --from=<name>` names by tag; an image context
//! is the image as built (stand-in, digest). Every context enters the id of every image that
//! reads it, and nothing an agent or a run writes does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;
mod contexts_support;

use contexts_support::VALID;

use std::collections::BTreeMap;

use taskc_compiler::lower::{environment_images, lower_verify, LowerOptions};
use taskc_compiler::plan::{ContextTree, NodeFrom, Plan, PlanContext};

/// WideSWE's shape: a deps stage copying the repository's lock files, the case image `FROM`
/// an image context copying a harness folder.
const DOCKERFILE: &str = "\
FROM golang:1.26-bookworm AS deps
WORKDIR /opt/deps
COPY --from=src go.mod go.sum ./
RUN go mod download
FROM dep_0
COPY --from=deps /opt/deps /opt/deps
COPY --from=task_ctx run.sh /opt/run.sh
";

struct Files {
    dockerfile: String,
    run_sh: String,
    go_mod: String,
    gold: String,
}

impl Default for Files {
    fn default() -> Files {
        Files {
            dockerfile: DOCKERFILE.into(),
            run_sh: "echo run\n".into(),
            go_mod: "module api\n".into(),
            gold: contexts_support::GOLD.into(),
        }
    }
}

fn lower(f: &Files, opts: &LowerOptions) -> (Plan, String) {
    let files = contexts_support::files(&f.dockerfile, &f.run_sh, &f.go_mod, &f.gold);
    let (checked, out) = contexts_support::check(VALID, &files);
    let task = checked.task.expect(&out);
    (lower_verify(&task, opts).unwrap(), out)
}

fn node_of(p: &Plan, name: &str) -> String {
    match &p.images.environment.contexts[name] {
        PlanContext::Dir { node, .. } | PlanContext::Repo { node, .. } => node.clone(),
        PlanContext::Image { .. } => panic!("{name} is an image"),
    }
}

#[test]
fn contexts_lower_to_nodes_and_images_that_the_dockerfile_names() {
    let (p, input) = lower(&Files::default(), &LowerOptions::default());
    // Input and plan together: the spec, its Dockerfile, then the images.
    let shown = format!(
        "{input}=== images\n{}",
        serde_json::to_string_pretty(&p.images.nodes).unwrap()
    );
    insta::assert_snapshot!("contexts_plan_nodes", shown);
    insta::assert_json_snapshot!("contexts_plan_environment", p.images.environment);
    let src = node_of(&p, "src");
    let ctx = node_of(&p, "task_ctx");
    let deps = p.images.nodes.values().find(|n| n.stage == "deps").unwrap();
    assert!(deps
        .dockerfile
        .contains(&format!("COPY --from=taskc/node:{src} go.mod go.sum ./")));
    assert_eq!(deps.copies_from, vec![src.clone()]);
    let env = &p.images.environment;
    assert!(
        env.dockerfile.starts_with("FROM ecosyncbench/deps/api:1\n"),
        "{}",
        env.dockerfile
    );
    assert!(env
        .dockerfile
        .contains(&format!("--from=taskc/node:{ctx} run.sh")));
    assert!(env.nodes.contains(&ctx) && env.nodes.contains(&deps.id));
    assert!(matches!(
        &p.images.nodes[&src].tree,
        Some(ContextTree::Repo { name, .. }) if name == "api"
    ));
    assert_eq!(
        p.images.nodes[&src].from,
        NodeFrom::Image {
            named: "scratch".into(),
            used: "scratch".into()
        }
    );
    // The runtime resolves the image context as it resolves `FROM` images; `dep_0` is no image.
    let d = Files::default();
    let (checked, _) = contexts_support::check(
        VALID,
        &contexts_support::files(&d.dockerfile, &d.run_sh, &d.go_mod, &d.gold),
    );
    assert_eq!(
        environment_images(&checked.task.unwrap().env),
        vec![
            "golang:1.26-bookworm".to_string(),
            "ecosyncbench/deps/api:1".to_string()
        ]
    );
}

#[test]
fn a_context_enters_the_id_of_every_image_that_reads_it_and_nothing_else_does() {
    let opts = LowerOptions::default();
    let (a, _) = lower(&Files::default(), &opts);
    let deps_of = |p: &Plan| {
        p.images
            .nodes
            .values()
            .find(|n| n.stage == "deps")
            .unwrap()
            .id
            .clone()
    };
    // The folder context's tree: its node, the environment and the task image change; the
    // deps stage (which does not read it) does not.
    let (b, _) = lower(
        &Files {
            run_sh: "echo other\n".into(),
            ..Files::default()
        },
        &opts,
    );
    assert_ne!(node_of(&a, "task_ctx"), node_of(&b, "task_ctx"));
    assert_ne!(a.images.environment.id, b.images.environment.id);
    assert_ne!(a.images.task.id, b.images.task.id);
    assert_eq!(deps_of(&a), deps_of(&b));
    assert_eq!(node_of(&a, "src"), node_of(&b, "src"));
    // The repository at base: its node and the deps stage on it change.
    let (c, _) = lower(
        &Files {
            go_mod: "module api\n\ngo 1.26\n".into(),
            ..Files::default()
        },
        &opts,
    );
    assert_ne!(node_of(&a, "src"), node_of(&c, "src"));
    assert_ne!(deps_of(&a), deps_of(&c));
    assert_ne!(a.images.environment.id, c.images.environment.id);
    // The gold patch (what the agent must write) is never in a context: no image changes.
    let (d, _) = lower(
        &Files {
            gold: contexts_support::GOLD.replace("+X = 2", "+X = 3"),
            ..Files::default()
        },
        &opts,
    );
    assert_eq!(a.images, d.images);
    // Lowered twice: the same plan.
    assert_eq!(a, lower(&Files::default(), &opts).0);
}

#[test]
fn an_image_context_is_built_from_its_stand_in_or_its_digest() {
    let mut opts = LowerOptions::default();
    opts.stand_ins
        .insert("ecosyncbench/deps/api:1".into(), "local/deps-api:1".into());
    opts.image_ids
        .insert("local/deps-api:1".into(), "sha256:aaaa".into());
    let (a, _) = lower(&Files::default(), &opts);
    let env = &a.images.environment;
    assert!(
        env.dockerfile.starts_with("FROM local/deps-api:1\n"),
        "{}",
        env.dockerfile
    );
    assert_eq!(
        env.from_stand_ins
            .get("ecosyncbench/deps/api:1")
            .map(String::as_str),
        Some("local/deps-api:1")
    );
    assert_eq!(
        env.contexts["dep_0"],
        PlanContext::Image {
            named: "ecosyncbench/deps/api:1".into(),
            used: "local/deps-api:1".into()
        }
    );
    let pinned = LowerOptions {
        base_digests: BTreeMap::from([(
            "ecosyncbench/deps/api:1".to_string(),
            format!("sha256:{}", "b".repeat(64)),
        )]),
        ..LowerOptions::default()
    };
    let (b, _) = lower(&Files::default(), &pinned);
    assert!(b.images.environment.dockerfile.starts_with(&format!(
        "FROM ecosyncbench/deps/api:1@sha256:{}\n",
        "b".repeat(64)
    )));
    assert_ne!(a.images.environment.id, b.images.environment.id);
}

#[test]
fn two_tasks_reading_one_tree_share_its_node() {
    let (a, _) = lower(&Files::default(), &LowerOptions::default());
    // The same folder under another name, in another Dockerfile.
    let other = DOCKERFILE.replace("task_ctx", "harness");
    let d = Files::default();
    let (checked, out) = contexts_support::check(
        &VALID.replace("task_ctx dir", "harness dir"),
        &contexts_support::files(&other, &d.run_sh, &d.go_mod, &d.gold),
    );
    let b = lower_verify(&checked.task.expect(&out), &LowerOptions::default()).unwrap();
    assert_eq!(node_of(&a, "task_ctx"), node_of(&b, "harness"));
    assert_eq!(node_of(&a, "src"), node_of(&b, "src"));
}
