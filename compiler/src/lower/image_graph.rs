//! A multi-stage `env dockerfile` lowered to a graph of image nodes (`plan::ImageNode`):
//! every stage the last one needs — as its `FROM` or through `--from=` — becomes an image of
//! its own, content-addressed by its own text; the last stage is the environment image,
//! `FROM` its parent's node. Docker semantics are kept: the global `ARG`s (before the first
//! `FROM`) are repeated in every node, a stage built `FROM` an earlier one inherits its
//! filesystem and configuration exactly as an image built `FROM` that image does, and
//! `COPY --from=<stage>` reads the node image (`--from` accepts an image name).

use std::collections::BTreeMap;

use crate::plan::{canonical_digest, node_image_tag, short_id, BuildContext, ImageNode, NodeFrom};

use super::contexts::{CtxRef, Lowered as Contexts};

/// The environment's Dockerfile split into nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Graph {
    /// The last stage, `FROM` its parent node (or its base image as built).
    pub dockerfile: String,
    /// The nodes the last stage needs, directly or not, by id.
    pub nodes: BTreeMap<String, ImageNode>,
    /// The nodes the last stage names itself (`FROM`, `--from=`), sorted.
    pub parents: Vec<String>,
    /// The images of image contexts the last stage copies from (as built), sorted.
    pub images_read: Vec<String>,
}

/// One `FROM … [AS name]` and the lines after it.
struct Stage<'a> {
    /// The `FROM` line's words before the image (`FROM`, `--platform=…`).
    head: Vec<&'a str>,
    image: &'a str,
    /// The stage's name, lowercased (stage names are case-insensitive).
    name: Option<String>,
    body: Vec<&'a str>,
}

fn is_from(line: &str) -> bool {
    line.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("FROM"))
}

fn parse(dockerfile: &str) -> (Vec<&str>, Vec<Stage<'_>>) {
    let mut preamble = Vec::new();
    let mut stages: Vec<Stage<'_>> = Vec::new();
    for line in dockerfile.split_inclusive('\n') {
        if is_from(line) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = words
                .iter()
                .skip(1)
                .position(|w| !w.starts_with("--"))
                .map_or(words.len(), |k| k + 1);
            let Some(image) = words.get(at) else {
                // A `FROM` without an image: kept as text, the builder reports it.
                match stages.last_mut() {
                    Some(s) => s.body.push(line),
                    None => preamble.push(line),
                }
                continue;
            };
            let name = match (words.get(at + 1), words.get(at + 2)) {
                (Some(a), Some(n)) if a.eq_ignore_ascii_case("AS") => Some(n.to_ascii_lowercase()),
                _ => None,
            };
            stages.push(Stage {
                head: words[..at].to_vec(),
                image,
                name,
                body: Vec::new(),
            });
        } else {
            match stages.last_mut() {
                Some(s) => s.body.push(line),
                None => preamble.push(line),
            }
        }
    }
    (preamble, stages)
}

/// The earlier stage (before `before`) that `reference` names: its name, or its index.
fn stage_ref(stages: &[Stage<'_>], before: usize, reference: &str) -> Option<usize> {
    let lower = reference.to_ascii_lowercase();
    if let Ok(i) = lower.parse::<usize>() {
        return (i < before).then_some(i);
    }
    // The last stage of that name before `before` (a later one shadows an earlier one).
    (0..before)
        .rev()
        .find(|&j| stages[j].name.as_deref() == Some(lower.as_str()))
}

/// The `--from=X` values of `line` with their byte ranges.
fn from_flags(line: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let mut out = Vec::new();
    for (at, _) in line.match_indices("--from=") {
        let preceded = at == 0 || line[..at].ends_with(char::is_whitespace);
        if !preceded {
            continue;
        }
        let start = at + "--from=".len();
        let end = line[start..]
            .find(char::is_whitespace)
            .map_or(line.len(), |k| start + k);
        out.push((start..end, &line[start..end]));
    }
    out
}

/// Whether a stage's instructions read the build context (`COPY`/`ADD` without `--from`).
fn reads_context(body: &[&str]) -> bool {
    body.iter().any(|line| {
        let first = line.split_whitespace().next().unwrap_or("");
        (first.eq_ignore_ascii_case("COPY") || first.eq_ignore_ascii_case("ADD"))
            && from_flags(line).is_empty()
    })
}

/// `dockerfile` split into nodes, or `None` when it has fewer than two stages the last one
/// needs (it then stays one image). `from_map` names, per base image as the Dockerfile names
/// it, the image built `FROM` instead (a stand-in, or the name pinned by digest);
/// `image_ids` the engine's content ids of the images built `FROM`, which enter the nodes
/// built on them.
///
/// With named build contexts (`contexts`), a `FROM <name>` / `--from=<name>` that names no
/// earlier stage names the context: its node (added to the graph) or its image as built;
/// the graph is then made even for one stage, so the contexts' nodes are built first.
pub(crate) fn split(
    dockerfile: &str,
    from_map: &BTreeMap<String, String>,
    image_ids: &BTreeMap<String, String>,
    context: Option<&BuildContext>,
    contexts: &Contexts,
) -> Option<Graph> {
    let (preamble, stages) = parse(dockerfile);
    let last = stages.len().checked_sub(1)?;
    // What each stage needs: its parent stage and the stages it copies from.
    let mut needs: Vec<Vec<usize>> = Vec::with_capacity(stages.len());
    for (i, s) in stages.iter().enumerate() {
        let mut n = Vec::new();
        n.extend(stage_ref(&stages, i, s.image));
        for line in &s.body {
            for (_, r) in from_flags(line) {
                n.extend(stage_ref(&stages, i, r));
            }
        }
        needs.push(n);
    }
    // The stages the last one needs, directly or not.
    let mut wanted = vec![false; stages.len()];
    let mut stack = needs[last].clone();
    while let Some(j) = stack.pop() {
        if !wanted[j] {
            wanted[j] = true;
            stack.extend(needs[j].iter().copied());
        }
    }
    if !wanted.iter().any(|w| *w) && contexts.refs.is_empty() {
        return None;
    }
    let preamble: String = preamble.concat();
    let mut ids: Vec<Option<String>> = vec![None; stages.len()];
    let mut nodes = BTreeMap::new();
    // Stages only need earlier ones, so index order is a dependency order.
    for (i, s) in stages.iter().enumerate() {
        if !wanted[i] {
            continue;
        }
        let st = stage_text(&preamble, &stages, i, &ids, from_map, contexts);
        let (text, from, copies) = (st.text, st.from, st.copies);
        let ctx = context.filter(|_| reads_context(&s.body));
        let base_id = match &from {
            NodeFrom::Image { used, .. } => image_ids.get(used),
            NodeFrom::Node { .. } => None,
        };
        let ctx_part = ctx.map(|c| (&c.path, &c.digest));
        let digest = if st.images_read.is_empty() {
            canonical_digest("taskc.image-node/1", &(&text, base_id, ctx_part))
        } else {
            // Image contexts it copies from enter by their content ids where resolved.
            let read: Vec<(&String, Option<&String>)> = st
                .images_read
                .iter()
                .map(|u| (u, image_ids.get(u)))
                .collect();
            canonical_digest("taskc.image-node/2", &(&text, base_id, ctx_part, read))
        };
        let id = short_id("img", &digest);
        ids[i] = Some(id.clone());
        nodes.insert(
            id.clone(),
            ImageNode {
                id,
                digest,
                stage: s.name.clone().unwrap_or_else(|| i.to_string()),
                from,
                copies_from: copies,
                dockerfile: text,
                context: ctx.cloned(),
                tree: None,
            },
        );
    }
    let st = stage_text(&preamble, &stages, last, &ids, from_map, contexts);
    let mut parents = st.copies;
    if let NodeFrom::Node { id } = st.from {
        parents.push(id);
    }
    parents.sort();
    parents.dedup();
    // The context nodes some node (or the last stage) reads.
    let mut read: Vec<String> = parents.clone();
    read.extend(nodes.values().flat_map(|n| n.needs().map(str::to_string)));
    for id in read {
        if let Some(n) = contexts.nodes.get(&id) {
            nodes.insert(id, n.clone());
        }
    }
    Some(Graph {
        dockerfile: st.text,
        nodes,
        parents,
        images_read: st.images_read,
    })
}

/// Stage `i` as a Dockerfile of its own (`stage_text`).
struct StageText {
    text: String,
    from: NodeFrom,
    /// The nodes it copies from, sorted.
    copies: Vec<String>,
    /// The images (as built) of image contexts it copies from, sorted.
    images_read: Vec<String>,
}

/// Stage `i` as a Dockerfile of its own, where it starts, and what it copies from.
fn stage_text(
    preamble: &str,
    stages: &[Stage<'_>],
    i: usize,
    ids: &[Option<String>],
    from_map: &BTreeMap<String, String>,
    contexts: &Contexts,
) -> StageText {
    let s = &stages[i];
    let node_of = |j: usize| ids.get(j).cloned().flatten();
    // A reference that names no earlier stage may name a context.
    let context_of = |r: &str| contexts.refs.get(&r.to_ascii_lowercase());
    let from = match stage_ref(stages, i, s.image).and_then(node_of) {
        Some(id) => NodeFrom::Node { id },
        None => match context_of(s.image) {
            Some(CtxRef::Node(id)) => NodeFrom::Node { id: id.clone() },
            Some(CtxRef::Image { named, used }) => NodeFrom::Image {
                named: named.clone(),
                used: used.clone(),
            },
            None => NodeFrom::Image {
                named: s.image.to_string(),
                used: from_map
                    .get(s.image)
                    .cloned()
                    .unwrap_or_else(|| s.image.to_string()),
            },
        },
    };
    let used = match &from {
        NodeFrom::Node { id } => node_image_tag(id),
        NodeFrom::Image { used, .. } => used.clone(),
    };
    let mut text = preamble.to_string();
    text.push_str(&s.head.join(" "));
    text.push(' ');
    text.push_str(&used);
    text.push('\n');
    let mut copies = Vec::new();
    let mut images_read = Vec::new();
    for line in &s.body {
        let mut out = String::with_capacity(line.len());
        let mut at = 0;
        for (range, r) in from_flags(line) {
            let with = match stage_ref(stages, i, r).and_then(node_of) {
                Some(id) => {
                    copies.push(id.clone());
                    node_image_tag(&id)
                }
                None => match context_of(r) {
                    Some(CtxRef::Node(id)) => {
                        copies.push(id.clone());
                        node_image_tag(id)
                    }
                    Some(CtxRef::Image { used, .. }) => {
                        images_read.push(used.clone());
                        used.clone()
                    }
                    None => continue,
                },
            };
            out.push_str(&line[at..range.start]);
            out.push_str(&with);
            at = range.end;
        }
        out.push_str(&line[at..]);
        text.push_str(&out);
    }
    copies.sort();
    copies.dedup();
    images_read.sort();
    images_read.dedup();
    StageText {
        text,
        from,
        copies,
        images_read,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DF: &str = "# syntax=docker/dockerfile:1\nARG GO=1.26\nFROM golang:1.26-bookworm AS base--go\nRUN apt-get install -y git\nFROM base--go AS deps--case\nCOPY go.mod /src/\nRUN go mod download\nFROM alpine AS unused\nFROM deps--case\nCOPY --from=base--go /usr/bin/git /usr/bin/git\nRUN true\n";

    #[test]
    fn stages_the_last_one_needs_become_nodes() {
        let Some(g) = split(
            DF,
            &BTreeMap::new(),
            &BTreeMap::new(),
            None,
            &Contexts::default(),
        ) else {
            panic!("two stages are needed");
        };
        assert_eq!(g.nodes.len(), 2, "{:#?}", g.nodes);
        let base = g.nodes.values().find(|n| n.stage == "base--go");
        let deps = g.nodes.values().find(|n| n.stage == "deps--case");
        let (Some(base), Some(deps)) = (base, deps) else {
            panic!("{:#?}", g.nodes);
        };
        assert_eq!(
            base.dockerfile,
            "# syntax=docker/dockerfile:1\nARG GO=1.26\nFROM golang:1.26-bookworm\nRUN apt-get install -y git\n"
        );
        assert_eq!(
            deps.from,
            NodeFrom::Node {
                id: base.id.clone()
            }
        );
        assert!(deps
            .dockerfile
            .contains(&format!("FROM taskc/node:{}\n", base.id)));
        assert!(g
            .dockerfile
            .contains(&format!("COPY --from=taskc/node:{} /usr/bin/git", base.id)));
        assert_eq!(g.parents.len(), 2);
        assert!(!g.dockerfile.contains("alpine"));
    }

    #[test]
    fn a_node_is_the_same_whatever_its_stage_is_called_and_pins_enter_it() {
        let a = split(
            DF,
            &BTreeMap::new(),
            &BTreeMap::new(),
            None,
            &Contexts::default(),
        );
        let renamed = DF.replace("base--go", "b");
        let b = split(
            &renamed,
            &BTreeMap::new(),
            &BTreeMap::new(),
            None,
            &Contexts::default(),
        );
        let (Some(a), Some(b)) = (a, b) else {
            panic!("split");
        };
        let ids = |g: &Graph| g.nodes.keys().cloned().collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        let pin: BTreeMap<String, String> = [(
            "golang:1.26-bookworm".to_string(),
            "golang:1.26-bookworm@sha256:00".to_string(),
        )]
        .into_iter()
        .collect();
        let Some(c) = split(DF, &pin, &BTreeMap::new(), None, &Contexts::default()) else {
            panic!("split");
        };
        assert!(ids(&c).iter().all(|id| !a.nodes.contains_key(id)));
    }

    #[test]
    fn one_stage_stays_one_image() {
        let df = "FROM golang:1.26\nRUN true\n";
        assert_eq!(
            split(
                df,
                &BTreeMap::new(),
                &BTreeMap::new(),
                None,
                &Contexts::default()
            ),
            None
        );
        let copy_image = "FROM golang:1.26\nCOPY --from=task_ctx /a /a\n";
        assert_eq!(
            split(
                copy_image,
                &BTreeMap::new(),
                &BTreeMap::new(),
                None,
                &Contexts::default()
            ),
            None
        );
    }
}
