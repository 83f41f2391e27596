//! Named build contexts (`contexts { … }` of `env dockerfile` / `image dockerfile`) lowered:
//! a folder or a repository's tree at base becomes an image node of its own (`FROM scratch`,
//! the tree copied to `/`), content-addressed by the tree alone, which the Dockerfile's
//! `COPY --from=<name>` / `FROM <name>` then name by tag; an image context is the image as
//! built (its `[images.map]` stand-in, or pinned by digest), as a `FROM` image is. So every
//! context enters the id of every image that reads it, and two images (or tasks) reading
//! one tree share its node.

use std::collections::BTreeMap;

use crate::model::{ContextSource, NamedContext};
use crate::plan::{
    canonical_digest, short_id, ContextTree, ImageNode, NodeFrom, PlanContext, CONTEXT_TREE,
};

use super::LowerError;

/// What a context name stands for in the Dockerfile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CtxRef {
    /// An image node (`taskc/node:<id>`).
    Node(String),
    /// An image: as the spec names it, and as the build reads it.
    Image { named: String, used: String },
}

/// The contexts lowered: by lowercased name what the Dockerfile's references become, the
/// context nodes by id, and the plan's record by name as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lowered {
    pub refs: BTreeMap<String, CtxRef>,
    pub nodes: BTreeMap<String, ImageNode>,
    pub plan: BTreeMap<String, PlanContext>,
}

/// The Dockerfile of every context node: the tree, sent under `tree/`, copied to `/`.
fn node_dockerfile() -> String {
    format!("FROM scratch\nCOPY {CONTEXT_TREE}/ /\n")
}

/// Lower `contexts`; `trees` gives each repository's tree identity (`tree_digest`),
/// `from_map` the image each named image is built from instead (stand-in, digest pin).
pub(crate) fn lower(
    contexts: &[NamedContext],
    trees: &BTreeMap<String, String>,
    from_map: &BTreeMap<String, String>,
) -> Result<Lowered, LowerError> {
    let mut out = Lowered::default();
    for c in contexts {
        let (tree, stage) = match &c.source {
            ContextSource::Image(named) => {
                let used = from_map
                    .get(named)
                    .cloned()
                    .unwrap_or_else(|| named.clone());
                out.refs.insert(
                    c.name.to_ascii_lowercase(),
                    CtxRef::Image {
                        named: named.clone(),
                        used: used.clone(),
                    },
                );
                out.plan.insert(
                    c.name.clone(),
                    PlanContext::Image {
                        named: named.clone(),
                        used,
                    },
                );
                continue;
            }
            ContextSource::Dir { path, digest } => (
                ContextTree::Dir {
                    path: path.clone(),
                    digest: digest.clone(),
                },
                format!("context {}", c.name),
            ),
            ContextSource::Repo(name) => {
                let Some(tree) = trees.get(name) else {
                    return Err(LowerError::ContextRepo {
                        context: c.name.clone(),
                        repo: name.clone(),
                    });
                };
                (
                    ContextTree::Repo {
                        name: name.clone(),
                        tree: tree.clone(),
                    },
                    format!("context {}", c.name),
                )
            }
        };
        // The id hashes the tree's content only (not the folder's path nor the context's
        // name): two tasks reading one tree share the node.
        let identity = match &tree {
            ContextTree::Dir { digest, .. } => ("dir", digest),
            ContextTree::Repo { tree, .. } => ("repo", tree),
        };
        let dockerfile = node_dockerfile();
        let digest = canonical_digest("taskc.context-node/1", &(&dockerfile, identity));
        let id = short_id("img", &digest);
        out.refs
            .insert(c.name.to_ascii_lowercase(), CtxRef::Node(id.clone()));
        out.plan.insert(
            c.name.clone(),
            match &tree {
                ContextTree::Dir { path, digest } => PlanContext::Dir {
                    path: path.clone(),
                    digest: digest.clone(),
                    node: id.clone(),
                },
                ContextTree::Repo { name, tree } => PlanContext::Repo {
                    repo: name.clone(),
                    tree: tree.clone(),
                    node: id.clone(),
                },
            },
        );
        out.nodes.insert(
            id.clone(),
            ImageNode {
                id,
                digest,
                stage,
                from: NodeFrom::Image {
                    named: "scratch".into(),
                    used: "scratch".into(),
                },
                copies_from: Vec::new(),
                dockerfile,
                context: None,
                tree: Some(tree),
            },
        );
    }
    Ok(out)
}
