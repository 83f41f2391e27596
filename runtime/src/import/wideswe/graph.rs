//! The image a WideSWE profile runs in, rebuilt from WideSWE's own recipes: a deps image
//! (`ecosyncbench/deps/<name>`) names its base image in `FROM`, a base image
//! (`ecosyncbench/base/<name>`) names a public image (`golang:1.26-bookworm`). The importer
//! reads that chain from the checkout's `benchmark/images/` and writes it as one multi-stage
//! Dockerfile, parents first, each recipe a named stage `FROM` the stage before it: the same
//! graph, built in order, the public image at its root named as the recipe names it (or stood
//! in for with `--base-image`).

use std::path::Path;

use super::root::recipe_candidates;

/// One recipe of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    /// The image it builds, as the parent's `FROM` (or the profile) names it.
    pub image: String,
    /// Its Dockerfile, relative to the checkout root.
    pub recipe: String,
    pub text: String,
    /// Sources its `COPY`/`ADD` take from the build context (none are shipped).
    pub copies: Vec<String>,
}

/// The chain of `image`, parents first, and the public image at its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    pub stages: Vec<Stage>,
    pub upstream: String,
    /// The root is an `ecosyncbench/` image the checkout has no recipe for: it is named as
    /// the case names it, to be stood in for by `[images.map]` (or `--base-image`).
    pub unbuilt: bool,
    /// The recipe the case's compose file names for the root, absent from the checkout.
    pub missing_recipe: Option<String>,
}

/// The `FROM` image of `text` with `ARG` defaults declared before it substituted, and the
/// byte range of the `FROM` line.
fn from_of(text: &str) -> Option<(String, std::ops::Range<usize>)> {
    from_with(text, &[])
}

/// The image the first `FROM` of `text` names, its `ARG` defaults substituted
/// (`ARG ECOSYNC_BASE_IMAGE=ecosyncbench/base/python:3.12-uv` / `FROM ${ECOSYNC_BASE_IMAGE}`).
pub(crate) fn from_image(text: &str) -> Option<String> {
    from_of(text).map(|(image, _)| image)
}

/// [`from_of`] with build arguments (`overrides`) taking the place of `ARG` defaults.
fn from_with(
    text: &str,
    overrides: &[(String, String)],
) -> Option<(String, std::ops::Range<usize>)> {
    let mut args: Vec<(String, String)> = overrides.to_vec();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().map(|w| w.to_ascii_uppercase()).as_deref() {
            Some("ARG") => {
                if let Some((k, v)) = words.get(1).and_then(|a| a.split_once('=')) {
                    if !args.iter().any(|(a, _)| a == k) {
                        args.push((k.to_string(), v.trim_matches('"').to_string()));
                    }
                }
            }
            Some("FROM") => {
                let image = words.iter().skip(1).find(|w| !w.starts_with("--"))?;
                let mut image = image.to_string();
                for (k, v) in &args {
                    image = image
                        .replace(&format!("${{{k}}}"), v)
                        .replace(&format!("${k}"), v);
                }
                return Some((image, start..pos));
            }
            _ => {}
        }
    }
    None
}

/// Context sources of the `COPY`/`ADD` lines of `text` (not `--from=` another stage).
fn copies(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        let up = first.to_ascii_uppercase();
        if (up == "COPY" || up == "ADD") && !words.iter().any(|w| w.starts_with("--from=")) {
            let srcs: Vec<&str> = words
                .iter()
                .skip(1)
                .filter(|w| !w.starts_with("--"))
                .copied()
                .collect();
            if let Some((_, sources)) = srcs.split_last() {
                out.extend(sources.iter().map(|s| s.to_string()));
            }
        }
    }
    out
}

/// The sources a recipe's `COPY`/`ADD` lines take from its build context (not `--from=`).
pub(crate) fn context_copies(text: &str) -> Vec<String> {
    copies(text)
}

/// Read the chain of `image` under `root`; `Err` names the image with no recipe.
pub fn resolve(root: &Path, image: &str) -> Result<Graph, String> {
    chain(root, Vec::new(), image.to_string())
}

/// The chain of `image` built from the recipe `recipe` (relative to `root`) with build
/// arguments `args`, as a compose service of the case names it; `Err` names what is missing.
pub fn resolve_recipe(
    root: &Path,
    image: &str,
    recipe: &str,
    args: &[(String, String)],
) -> Result<Graph, String> {
    let Ok(text) = std::fs::read_to_string(root.join(recipe)) else {
        // The recipe is not in the checkout: the image is named as the case names it, for
        // `[images.map]`, as an image found by name without a recipe is.
        return Ok(Graph {
            stages: Vec::new(),
            upstream: image.to_string(),
            unbuilt: true,
            missing_recipe: Some(recipe.to_string()),
        });
    };
    let (parent, _) = from_with(&text, args).ok_or_else(|| image.to_string())?;
    // The build arguments become the defaults of the recipe's own `ARG`s.
    let mut pinned = String::new();
    for line in text.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        let is_arg = words.first().is_some_and(|w| w.eq_ignore_ascii_case("ARG"));
        let key = words.get(1).map(|a| a.split('=').next().unwrap_or(a));
        match (is_arg, key.and_then(|k| args.iter().find(|(a, _)| a == k))) {
            (true, Some((k, v))) => pinned.push_str(&format!("ARG {k}={}\n", quote(v))),
            _ => pinned.push_str(line),
        }
    }
    let first = Stage {
        image: image.to_string(),
        recipe: recipe.to_string(),
        copies: copies(&pinned),
        text: pinned,
    };
    chain(root, vec![first], parent)
}

/// A build argument's value as one Dockerfile word.
fn quote(v: &str) -> String {
    if v.chars().any(|c| c.is_whitespace() || c == '"') {
        format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        v.to_string()
    }
}

fn chain(root: &Path, mut stages: Vec<Stage>, image: String) -> Result<Graph, String> {
    let mut current = image;
    for _ in 0..16 {
        if !current.starts_with("ecosyncbench/") {
            stages.reverse();
            return Ok(Graph {
                stages,
                upstream: current,
                unbuilt: false,
                missing_recipe: None,
            });
        }
        let found = recipe_candidates(&current).into_iter().find_map(|rel| {
            std::fs::read_to_string(root.join(&rel))
                .ok()
                .map(|t| (rel, t))
        });
        let Some((recipe, text)) = found else {
            // No recipe: the chain stops at the image as the case names it.
            stages.reverse();
            return Ok(Graph {
                stages,
                upstream: current,
                unbuilt: true,
                missing_recipe: None,
            });
        };
        let Some((parent, _)) = from_of(&text) else {
            return Err(current);
        };
        stages.push(Stage {
            image: current.clone(),
            recipe,
            copies: copies(&text),
            text,
        });
        current = parent;
    }
    Err(current)
}

/// One recipe's text as stages of the chain's Dockerfile: every `FROM` of its parent image
/// (an `ARG`-built `FROM ${BASE}` resolved with the recipe's `ARG` defaults) builds on
/// `parent`; its own build stages (`AS warm`, `COPY --from=warm`) are renamed `<name>--warm`
/// so two recipes' stages never collide; its last `FROM` is the stage `name`, the image the
/// next recipe builds on. The `ARG`s before its first `FROM` only fed `FROM` lines, which are
/// now written out; a global `ARG` a later instruction reads is kept after each `FROM`
/// (`ARG NAME` re-declares it in the stage, as Docker requires).
fn restage(text: &str, parent: &str, name: &str) -> String {
    let Some((parent_image, first)) = from_of(text) else {
        return text.to_string();
    };
    // Global ARGs (before the first FROM) and their defaults.
    let mut globals: Vec<(String, String)> = Vec::new();
    for line in text[..first.start].lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first().is_some_and(|w| w.eq_ignore_ascii_case("ARG")) {
            if let Some(a) = words.get(1) {
                let (k, v) = a.split_once('=').unwrap_or((a, ""));
                globals.push((k.to_string(), v.trim_matches('"').to_string()));
            }
        }
    }
    let resolve = |image: &str| {
        let mut image = image.to_string();
        for (k, v) in &globals {
            image = image
                .replace(&format!("${{{k}}}"), v)
                .replace(&format!("${k}"), v);
        }
        image
    };
    // The recipe's own stage names, and which FROM is the last.
    let mut own: Vec<String> = Vec::new();
    let mut froms = 0usize;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("FROM"))
        {
            froms += 1;
            let at = words
                .iter()
                .skip(1)
                .position(|w| !w.starts_with("--"))
                .map(|k| k + 1);
            if let Some(n) = at.and_then(|k| {
                words
                    .get(k + 1)
                    .filter(|a| a.eq_ignore_ascii_case("AS"))
                    .and(words.get(k + 2))
            }) {
                own.push(n.to_ascii_lowercase());
            }
        }
    }
    let renamed = |stage: &str| format!("{name}--{}", stage.to_ascii_lowercase());
    let mut out = String::new();
    let mut seen = 0usize;
    for line in text[first.start..].split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first_word) = words.first() else {
            out.push_str(line);
            continue;
        };
        if first_word.eq_ignore_ascii_case("FROM") {
            seen += 1;
            let at = words
                .iter()
                .skip(1)
                .position(|w| !w.starts_with("--"))
                .map_or(1, |k| k + 1);
            let options: Vec<&str> = words[1..at].to_vec();
            let image = words.get(at).copied().unwrap_or("");
            let base = if resolve(image) == parent_image {
                parent.to_string()
            } else if own.contains(&image.to_ascii_lowercase()) {
                renamed(image)
            } else {
                resolve(image)
            };
            let stage = if seen == froms {
                name.to_string()
            } else {
                match (words.get(at + 1), words.get(at + 2)) {
                    (Some(a), Some(n)) if a.eq_ignore_ascii_case("AS") => renamed(n),
                    _ => format!("{name}--{seen}"),
                }
            };
            let mut w: Vec<String> = vec!["FROM".into()];
            w.extend(options.iter().map(|o| o.to_string()));
            w.push(base);
            w.push("AS".into());
            w.push(stage);
            out.push_str(&w.join(" "));
            out.push('\n');
            // Global ARGs re-declared in the stage, so the instructions below still see them.
            for (k, _) in &globals {
                let used = text[first.end..].contains(&format!("${k}"))
                    || text[first.end..].contains(&format!("${{{k}}}"));
                if used {
                    out.push_str(&format!("ARG {k}\n"));
                }
            }
            continue;
        }
        // `COPY --from=<own stage>` / `RUN --mount=…,from=<own stage>`.
        let mut l = line.to_string();
        for st in &own {
            for (a, b) in [
                (format!("--from={st} "), format!("--from={} ", renamed(st))),
                (format!("from={st},"), format!("from={},", renamed(st))),
                (format!("from={st} "), format!("from={} ", renamed(st))),
            ] {
                l = l.replace(&a, &b);
            }
        }
        out.push_str(&l);
    }
    // Global ARG defaults stay defaults: re-declare them with their values before the chain.
    let mut head = String::new();
    for line in text[..first.start].lines() {
        let is_arg = line.trim_start().to_ascii_uppercase().starts_with("ARG ");
        if !is_arg {
            head.push_str(line);
            head.push('\n');
        }
    }
    let mut with_defaults = String::new();
    for line in out.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() == 2 && words[0] == "ARG" {
            if let Some((_, v)) = globals.iter().find(|(k, _)| k == words[1]) {
                if !v.is_empty() {
                    with_defaults.push_str(&format!("ARG {}={}\n", words[1], quote(v)));
                    continue;
                }
            }
        }
        with_defaults.push_str(line);
    }
    head + &with_defaults
}

/// A stage name for `image` (`ecosyncbench/base/go:1.26-bookworm` → `ecosyncbench-base-go-1-26-bookworm`).
fn stage_name(image: &str) -> String {
    image
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

impl Graph {
    /// The chain as one multi-stage Dockerfile, and its stages in build order. `base` stands
    /// in for the public image at the root.
    pub fn dockerfile(&self, base: Option<&str>) -> (String, Vec<Stage>) {
        let mut out = String::from(
            "# WideSWE's image recipes, parents first (written by `taskc import wideswe`).\n",
        );
        let mut parent = base.unwrap_or(&self.upstream).to_string();
        for st in &self.stages {
            let name = stage_name(&st.image);
            out.push_str(&format!("\n# {} from {}\n", st.image, st.recipe));
            out.push_str(&restage(&st.text, &parent, &name));
            if !out.ends_with('\n') {
                out.push('\n');
            }
            parent = name;
        }
        if self.stages.is_empty() {
            out.push_str(&format!("\nFROM {parent}\n"));
        }
        (out, self.stages.clone())
    }
}

impl Graph {
    /// The case's own Dockerfile `child` (whose `FROM` names this chain's last image) over
    /// the chain: the parents' stages first, then `child` `FROM` the last of them. `None`
    /// when there is no recipe to put under it.
    pub fn under(&self, child: &str, base: Option<&str>) -> Option<String> {
        let last = self.stages.last()?;
        let (_, range) = from_of(child)?;
        let (mut out, _) = self.dockerfile(base);
        out.push_str("\n# the case's own Dockerfile\n");
        let before: String = child[..range.start]
            .lines()
            .filter(|l| !l.trim_start().to_ascii_uppercase().starts_with("ARG "))
            .filter(|l| !l.trim_start().starts_with("# syntax="))
            .map(|l| format!("{l}\n"))
            .collect();
        out.push_str(&before);
        out.push_str(&format!("FROM {}\n", stage_name(&last.image)));
        out.push_str(&child[range.end..]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_with_arg_defaults_and_copies() {
        let t = "ARG B=ecosyncbench/base/go:1.26-bookworm\nFROM ${B}\nCOPY ${P}/go.mod ./go.mod\nCOPY --from=x /a /b\n";
        let (img, r) = from_of(t).unwrap();
        assert_eq!(img, "ecosyncbench/base/go:1.26-bookworm");
        assert_eq!(&t[r], "FROM ${B}\n");
        assert_eq!(copies(t), vec!["${P}/go.mod"]);
    }

    #[test]
    fn chain_as_stages() {
        let g = Graph {
            stages: vec![
                Stage {
                    image: "ecosyncbench/base/go:1".into(),
                    recipe: "benchmark/images/base/go-1/Dockerfile".into(),
                    text: "ARG U=golang:1\nFROM ${U}\nENV A=1\n".into(),
                    copies: vec![],
                },
                Stage {
                    image: "ecosyncbench/deps/x:2".into(),
                    recipe: "benchmark/images/deps/x/Dockerfile".into(),
                    text: "ARG B=ecosyncbench/base/go:1\nFROM ${B}\nRUN true\n".into(),
                    copies: vec![],
                },
            ],
            upstream: "golang:1".into(),
            unbuilt: false,
            missing_recipe: None,
        };
        let (text, _) = g.dockerfile(Some("local/go:1"));
        assert!(text.contains("FROM local/go:1 AS ecosyncbench-base-go-1\nENV A=1\n"));
        assert!(text.contains("FROM ecosyncbench-base-go-1 AS ecosyncbench-deps-x-2\nRUN true\n"));
        assert!(!text.contains("ARG U="));
    }

    #[test]
    fn a_multi_stage_recipe_keeps_its_stages() {
        // Shaped like WideSWE's deps/home-assistant-python: a `warm` stage and a final one,
        // both `FROM ${BASE}`, the final copying from `warm`.
        let recipe = "# syntax=docker/dockerfile:1.6\nARG BASE=ecosyncbench/base/python:3.14-slim\nFROM ${BASE} AS warm\nARG REQS=\"a.txt b.txt\"\nRUN pip install $REQS\nFROM ${BASE}\nARG BASE\nLABEL base=$BASE\nCOPY --from=warm /opt/venv /opt/venv\n";
        let out = restage(recipe, "ecosyncbench-base-python-3-14-slim", "deps-ha");
        assert!(
            out.contains("FROM ecosyncbench-base-python-3-14-slim AS deps-ha--warm\n"),
            "{out}"
        );
        assert!(
            out.contains("FROM ecosyncbench-base-python-3-14-slim AS deps-ha\n"),
            "{out}"
        );
        assert!(out.contains("COPY --from=deps-ha--warm /opt/venv"), "{out}");
        assert!(
            out.contains("ARG BASE=ecosyncbench/base/python:3.14-slim\nLABEL"),
            "{out}"
        );
        assert!(!out.contains("${BASE} AS"), "{out}");
        // A one-stage recipe is the stage `name`, its FROM on the parent.
        let one = restage(
            "ARG U=golang:1\nFROM ${U}\nENV A=1\n",
            "local/go:1",
            "base-go",
        );
        assert_eq!(one, "FROM local/go:1 AS base-go\nENV A=1\n");
    }
}
