//! Image nodes (`docs/plan.md`, "Image nodes"): a multi-stage `env dockerfile` lowered to
//! content-addressed nodes — a WideSWE case image `FROM` its deps image `FROM` a public base,
//! as `taskc import wideswe` writes it — shared between tasks whose stages agree, with base
//! images pinned by digest when the runtime resolved them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use taskc_compiler::lower::{lower_verify, lower_workspace, LowerOptions};
use taskc_compiler::model::{Environment, ParamValue, Task};
use taskc_compiler::plan::{multi_stage, sha256_hex, NodeFrom, Plan, WorkspaceMode};

/// WideSWE's shape: a base recipe stage, a deps recipe stage `FROM` it, and the case's own
/// Dockerfile `FROM` the deps image, copying a tool from the base stage.
const CASE: &str = "\
# syntax=docker/dockerfile:1
ARG GO_VERSION=1.26
FROM golang:1.26-bookworm AS ecosyncbench-base-go--base
RUN apt-get update && apt-get install -y --no-install-recommends git
FROM ecosyncbench-base-go--base AS ecosyncbench-deps-go-mod--deps
RUN go env -w GOFLAGS=-mod=mod
FROM ecosyncbench-deps-go-mod--deps
COPY --from=ecosyncbench-base-go--base /usr/bin/git /usr/local/bin/git
RUN go version
";

fn with_dockerfile(mut task: Task, text: &str) -> Task {
    task.env = Environment {
        recipe: "dockerfile".into(),
        params: [(
            "dockerfile".to_string(),
            ParamValue::File {
                path: "environment/Dockerfile".into(),
                text: text.to_string(),
                digest: sha256_hex(text.as_bytes()),
            },
        )]
        .into_iter()
        .collect(),
    };
    task
}

fn plan(text: &str, opts: &LowerOptions) -> Plan {
    lower_verify(&with_dockerfile(plan_support::cookie_split(), text), opts).unwrap()
}

#[test]
fn a_case_image_on_a_deps_image_is_a_graph_of_nodes() {
    let p = plan(CASE, &LowerOptions::default());
    insta::assert_json_snapshot!("image_graph_case_on_deps", p.images);
}

#[test]
fn two_cases_over_one_deps_image_share_its_nodes() {
    let a = plan(CASE, &LowerOptions::default());
    // Another case: the same recipes (its stages named otherwise), its own last stage.
    let other = CASE
        .replace("ecosyncbench-base-go--base", "base")
        .replace("ecosyncbench-deps-go-mod--deps", "deps")
        .replace("RUN go version", "RUN go vet ./...");
    let b = plan(&other, &LowerOptions::default());
    let ids = |p: &Plan| p.images.nodes.keys().cloned().collect::<Vec<_>>();
    assert_eq!(ids(&a).len(), 2);
    assert_eq!(ids(&a), ids(&b), "the shared stages are the same nodes");
    assert_ne!(a.images.environment.id, b.images.environment.id);
    // Lowered twice: the same ids (content-addressed, deterministic).
    assert_eq!(a, plan(CASE, &LowerOptions::default()));
}

#[test]
fn a_changed_parent_changes_every_node_and_image_on_it_and_nothing_else() {
    let a = plan(CASE, &LowerOptions::default());
    let changed = CASE.replace("GOFLAGS=-mod=mod", "GOFLAGS=-mod=readonly");
    let b = plan(&changed, &LowerOptions::default());
    let root = |p: &Plan| {
        p.images
            .nodes
            .values()
            .find(|n| matches!(n.from, NodeFrom::Image { .. }))
            .map(|n| n.id.clone())
            .unwrap()
    };
    assert_eq!(root(&a), root(&b), "the base stage did not change");
    let deps = |p: &Plan| {
        p.images
            .nodes
            .values()
            .find(|n| matches!(n.from, NodeFrom::Node { .. }))
            .map(|n| n.id.clone())
            .unwrap()
    };
    assert_ne!(deps(&a), deps(&b));
    assert_ne!(a.images.environment.id, b.images.environment.id);
    assert_ne!(a.images.task.id, b.images.task.id);
}

#[test]
fn a_pinned_base_is_built_by_digest_and_recorded() {
    let digest = format!("sha256:{}", "ab".repeat(32));
    let opts = LowerOptions {
        base_digests: [("golang:1.26-bookworm".to_string(), digest.clone())]
            .into_iter()
            .collect(),
        ..LowerOptions::default()
    };
    let pinned = plan(CASE, &opts);
    let plain = plan(CASE, &LowerOptions::default());
    let env = &pinned.images.environment;
    assert_eq!(env.from_digests["golang:1.26-bookworm"], digest);
    let root = pinned
        .images
        .nodes
        .values()
        .find_map(|n| match &n.from {
            NodeFrom::Image { named, used } => Some((named.clone(), used.clone(), n)),
            NodeFrom::Node { .. } => None,
        })
        .unwrap();
    assert_eq!(root.0, "golang:1.26-bookworm");
    assert_eq!(root.1, format!("golang:1.26-bookworm@{digest}"));
    assert!(root
        .2
        .dockerfile
        .contains(&format!("FROM golang:1.26-bookworm@{digest}\n")));
    // Another digest is another image: every id on it changes.
    assert!(pinned
        .images
        .nodes
        .keys()
        .all(|id| !plain.images.nodes.contains_key(id)));
    assert_ne!(env.id, plain.images.environment.id);
    // The lock names the plan lowered without runtime data: pins do not make it stale.
    let task = with_dockerfile(plan_support::cookie_split(), CASE);
    let a = taskc_compiler::lock::lock_inputs(&task, &opts).unwrap();
    let b = taskc_compiler::lock::lock_inputs(&task, &LowerOptions::default()).unwrap();
    assert_eq!(a.plan, b.plan);
}

#[test]
fn a_single_stage_dockerfile_stays_one_image_pinned_in_place() {
    let df = "FROM golang:1.26-bookworm\nRUN go version\n";
    let digest = format!("sha256:{}", "cd".repeat(32));
    let opts = LowerOptions {
        base_digests: [("golang:1.26-bookworm".to_string(), digest.clone())]
            .into_iter()
            .collect(),
        ..LowerOptions::default()
    };
    let p = plan(df, &opts);
    assert!(p.images.nodes.is_empty());
    assert_eq!(
        p.images.environment.dockerfile,
        format!("FROM golang:1.26-bookworm@{digest}\nRUN go version\n")
    );
    // Without a pin, the plan is what it was before image nodes existed.
    let plain = plan(df, &LowerOptions::default());
    assert_eq!(plain.images.environment.dockerfile, df);
    assert!(plain.images.environment.from_digests.is_empty());
}

#[test]
fn a_stand_in_wins_over_a_pin_and_its_content_id_enters_the_node() {
    let opts = |id: &str| LowerOptions {
        stand_ins: [(
            "golang:1.26-bookworm".to_string(),
            "taskc-standin/go:1.26".to_string(),
        )]
        .into_iter()
        .collect(),
        base_digests: [(
            "golang:1.26-bookworm".to_string(),
            format!("sha256:{}", "ef".repeat(32)),
        )]
        .into_iter()
        .collect(),
        image_ids: [("taskc-standin/go:1.26".to_string(), id.to_string())]
            .into_iter()
            .collect(),
        ..LowerOptions::default()
    };
    let a = plan(CASE, &opts("sha256:1"));
    let b = plan(CASE, &opts("sha256:2"));
    assert!(a.images.environment.from_digests.is_empty());
    assert_eq!(
        a.images.environment.from_stand_ins["golang:1.26-bookworm"],
        "taskc-standin/go:1.26"
    );
    assert!(a
        .images
        .nodes
        .values()
        .any(|n| n.dockerfile.contains("FROM taskc-standin/go:1.26\n")));
    assert_ne!(
        a.images.nodes.keys().collect::<Vec<_>>(),
        b.images.nodes.keys().collect::<Vec<_>>(),
        "a rebuilt stand-in rebuilds the nodes on it"
    );
}

#[test]
fn the_graph_is_one_multi_stage_dockerfile_again_for_other_builders() {
    let p = lower_workspace(
        &with_dockerfile(plan_support::cookie_split(), CASE),
        &LowerOptions::default(),
        WorkspaceMode::Joint,
    )
    .unwrap();
    let text = multi_stage(&p.images.nodes, &p.images.environment.dockerfile);
    assert!(!text.contains("taskc/node:"), "{text}");
    insta::assert_snapshot!("image_graph_multi_stage", text);
    // Stage order: every `FROM node-…` names a stage defined above it.
    let mut defined: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("FROM ")) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words[1].starts_with("node-") {
            assert!(defined.iter().any(|d| d == words[1]), "{text}");
        }
        if let Some(name) = words.get(3) {
            defined.push(name.to_string());
        }
    }
}
