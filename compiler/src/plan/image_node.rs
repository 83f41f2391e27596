//! Image nodes: the stages of a curator's multi-stage Dockerfile (`env dockerfile`, as
//! `taskc import wideswe` writes a case's deps and base recipes) as images of their own,
//! each content-addressed by its Dockerfile (which names its parent's id, or its base image
//! as built — a stand-in, or pinned by registry digest) and the build context it reads.
//! Two tasks whose Dockerfiles share a stage share its node: the runtime builds each node
//! once, parents first, and tags it `taskc/node:<id>` (`docs/plan.md`, "Image nodes").

use serde::{Deserialize, Serialize};

use super::image::BuildContext;

/// The engine tag of the image node `id` (`img-…`).
pub fn node_image_tag(id: &str) -> String {
    format!("taskc/node:{id}")
}

/// One stage of the environment's Dockerfile, built as an image of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageNode {
    /// `img-<16 hex>`.
    pub id: String,
    /// sha256 over `dockerfile` (parents by tag, so by id) and the context it reads.
    pub digest: String,
    /// The stage's name in the curator's Dockerfile (`AS deps`), else its index (`0`).
    /// Informational: it does not enter `digest`, so renaming a stage shares its node.
    pub stage: String,
    /// What the stage is built `FROM`.
    pub from: NodeFrom,
    /// The nodes its `--from=` instructions copy from, by id, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copies_from: Vec<String>,
    /// The stage alone: the Dockerfile's global `ARG`s, `FROM` its parent node's tag or its
    /// base image as built, its instructions with `--from=<stage>` naming node tags.
    pub dockerfile: String,
    /// The environment's build context, when the stage reads it (`COPY`/`ADD` without
    /// `--from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<BuildContext>,
    /// A named build context (`contexts { … }`) this node is: a folder's or a repository's
    /// tree, sent under [`CONTEXT_TREE`]`/` of its build context and copied to `/` of an
    /// image `FROM scratch` (`COPY tree/ /`), so that a `.dockerignore` of the tree is a file
    /// like any other and never filters what is copied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<ContextTree>,
}

/// The folder of a context node's build context that holds the tree (`ImageNode::tree`).
pub const CONTEXT_TREE: &str = "tree";

/// The tree a context node copies (`ImageNode::tree`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ContextTree {
    /// A folder beside the spec: its path and the digest of its tree (`.git` left out),
    /// checked before it is sent.
    Dir { path: String, digest: String },
    /// A repository of the task at its base commit as taskc materialises it (its work tree,
    /// without `.git`): never a setup step's, a patch's or a run's effects. `tree` is its
    /// identity (`RepoMaterial::digest`: the folder's digest, or the URL or bundle with the
    /// base commit).
    Repo { name: String, tree: String },
}

/// Where an image node starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum NodeFrom {
    /// Another node of the plan (`FROM <earlier stage>`).
    Node { id: String },
    /// A named image: `named` as the Dockerfile names it, `used` as the build starts from
    /// it (`named` itself, its `[images.map]` stand-in, or `named@sha256:…` pinned by digest).
    Image { named: String, used: String },
}

impl ImageNode {
    /// The engine tag of this node.
    pub fn tag(&self) -> String {
        node_image_tag(&self.id)
    }

    /// The nodes it needs built first: its parent, then those it copies from.
    pub fn needs(&self) -> impl Iterator<Item = &str> {
        let parent = match &self.from {
            NodeFrom::Node { id } => Some(id.as_str()),
            NodeFrom::Image { .. } => None,
        };
        parent
            .into_iter()
            .chain(self.copies_from.iter().map(String::as_str))
    }
}

/// `nodes` in dependency order: every node after those it needs. A need the map does not
/// hold is left out (the runtime reports it when building).
pub fn build_order(nodes: &std::collections::BTreeMap<String, ImageNode>) -> Vec<&ImageNode> {
    let mut order = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    // Depth first, iteratively: (node, whether its needs were pushed already).
    let mut stack: Vec<(&str, bool)> = nodes.keys().rev().map(|k| (k.as_str(), false)).collect();
    while let Some((id, expanded)) = stack.pop() {
        let Some(node) = nodes.get(id) else {
            continue;
        };
        if expanded {
            order.push(node);
            continue;
        }
        if !seen.insert(id) {
            continue;
        }
        stack.push((id, true));
        stack.extend(
            node.needs()
                .filter(|n| !seen.contains(n))
                .map(|n| (n, false)),
        );
    }
    order
}

/// The environment as one multi-stage Dockerfile again — each node a stage `node-<id>`,
/// parents first, then `dockerfile` (the environment's own) — for builders outside taskc
/// (`taskc export harbor`), which hold no `taskc/node:` images.
pub fn multi_stage(
    nodes: &std::collections::BTreeMap<String, ImageNode>,
    dockerfile: &str,
) -> String {
    let rename = |text: &str| {
        nodes.keys().fold(text.to_string(), |t, id| {
            t.replace(&node_image_tag(id), &format!("node-{id}"))
        })
    };
    let mut out = String::new();
    for node in build_order(nodes) {
        let text = rename(&node.dockerfile);
        let mut named = false;
        for line in text.split_inclusive('\n') {
            let is_from = line
                .split_whitespace()
                .next()
                .is_some_and(|w| w.eq_ignore_ascii_case("FROM"));
            if is_from && !named {
                out.push_str(line.trim_end());
                out.push_str(&format!(" AS node-{}\n", node.id));
                named = true;
            } else {
                out.push_str(line);
            }
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(&rename(dockerfile));
    out
}
