//! `uses` edges between repositories: unknown names, self-use, and cycles (each reported
//! once, printed `a → b → c → a`, every edge labelled).

use std::collections::BTreeSet;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::span::Span;

use super::repo::RepoDraft;
use super::{suggest, Cx};

pub(crate) fn check_uses(cx: &mut Cx<'_>, repos: &[RepoDraft]) {
    let names: Vec<&str> = repos.iter().map(|r| r.name.as_str()).collect();
    // edges[i] = (j, span of the use), first use of each target only.
    let mut edges: Vec<Vec<(usize, Span)>> = vec![Vec::new(); repos.len()];
    for (i, r) in repos.iter().enumerate() {
        for (used, span) in &r.uses {
            if *used == r.name {
                cx.emit(
                    Diagnostic::new(
                        Code::SelfUse,
                        format!("repository `{used}` uses itself"),
                        cx.label(*span, "self-use"),
                    )
                    .with_help("`uses` names the other repositories whose working tree this one's tests see; remove it"),
                );
                continue;
            }
            match names.iter().position(|n| n == used) {
                Some(j) => {
                    if !edges[i].iter().any(|(k, _)| *k == j) {
                        edges[i].push((j, *span));
                    }
                }
                None => {
                    cx.emit(
                        Diagnostic::new(
                            Code::UnknownRepository,
                            format!(
                                "`{}` uses `{used}`, which is not a repository of this task",
                                r.name
                            ),
                            cx.label(*span, "unknown repository"),
                        )
                        .with_help(format!(
                            "{}repositories: {}",
                            suggest::did_you_mean(used, names.iter().copied()),
                            suggest::list(names.iter().copied())
                        )),
                    );
                }
            }
        }
    }
    for cycle in find_cycles(&edges) {
        let mut path: Vec<&str> = cycle.iter().map(|(i, _)| names[*i]).collect();
        path.push(names[cycle[0].0]);
        let mut d = Diagnostic::new(
            Code::UsesCycle,
            format!("`uses` edges form a cycle: {}", path.join(" → ")),
            cx.label(cycle[0].1, format!("`{}` uses `{}`", path[0], path[1])),
        )
        .with_help("`uses` must be acyclic (it orders builds and decides which gold patches a test run sees); remove one of these edges");
        for (k, (_, span)) in cycle.iter().enumerate().skip(1) {
            d = d.with_label(cx.label(*span, format!("`{}` uses `{}`", path[k], path[k + 1])));
        }
        cx.emit(d);
    }
}

/// Cycles found by an iterative depth-first search: one per back edge, each rotated to
/// start at its smallest node and reported once. Each entry is (node, span of its edge to
/// the next node).
fn find_cycles(edges: &[Vec<(usize, Span)>]) -> Vec<Vec<(usize, Span)>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Color {
        White,
        Gray,
        Black,
    }
    let n = edges.len();
    let mut color = vec![Color::White; n];
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    let mut cycles = Vec::new();
    for root in 0..n {
        if color[root] != Color::White {
            continue;
        }
        // Stack of (node, next edge index); `path` holds the edge taken from each node.
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        let mut path: Vec<(usize, Span)> = Vec::new();
        color[root] = Color::Gray;
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if *next < edges[u].len() {
                let (v, span) = edges[u][*next];
                *next += 1;
                match color[v] {
                    Color::White => {
                        path.push((u, span));
                        color[v] = Color::Gray;
                        stack.push((v, 0));
                    }
                    Color::Gray => {
                        let start = path.iter().position(|(x, _)| *x == v).unwrap_or(path.len());
                        let mut cycle: Vec<(usize, Span)> = path[start..].to_vec();
                        cycle.push((u, span));
                        let min = cycle
                            .iter()
                            .enumerate()
                            .min_by_key(|(_, (x, _))| *x)
                            .map(|(k, _)| k)
                            .unwrap_or(0);
                        cycle.rotate_left(min);
                        if seen.insert(cycle.iter().map(|(x, _)| *x).collect()) {
                            cycles.push(cycle);
                        }
                    }
                    Color::Black => {}
                }
            } else {
                color[u] = Color::Black;
                stack.pop();
                path.pop();
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cyc(edges: &[&[usize]]) -> Vec<Vec<usize>> {
        let e: Vec<Vec<(usize, Span)>> = edges
            .iter()
            .map(|es| es.iter().map(|j| (*j, Span::default())).collect())
            .collect();
        find_cycles(&e)
            .into_iter()
            .map(|c| c.into_iter().map(|(x, _)| x).collect())
            .collect()
    }

    #[test]
    fn finds_each_cycle_once() {
        assert_eq!(cyc(&[&[1], &[2], &[0]]), vec![vec![0, 1, 2]]);
        assert_eq!(cyc(&[&[1], &[2], &[]]), Vec::<Vec<usize>>::new());
        assert_eq!(cyc(&[&[1], &[0], &[1]]), vec![vec![0, 1]]);
        assert_eq!(cyc(&[&[1, 2], &[0], &[0]]), vec![vec![0, 1], vec![0, 2]]);
    }

    #[test]
    fn long_chains_do_not_overflow() {
        let n = 100_000;
        let e: Vec<Vec<(usize, Span)>> = (0..n)
            .map(|i| vec![((i + 1) % n, Span::default())])
            .collect();
        assert_eq!(find_cycles(&e).len(), 1);
    }
}
