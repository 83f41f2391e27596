//! The environment image: the recipe's tera template rendered with its parameters.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::model::{Environment, ParamValue};
use crate::plan::{canonical_digest, short_id, BuildContext, EnvImage, ImageNode, LocalEnv, Param};

use super::manifest::RecipeManifest;
use super::{LowerError, LowerOptions};

fn to_param(v: &ParamValue) -> Param {
    match v {
        ParamValue::Str(s) => Param::Str(s.clone()),
        ParamValue::Int(i) => Param::Int(*i),
        ParamValue::Bool(b) => Param::Bool(*b),
        ParamValue::List(l) => Param::List(l.clone()),
        // A file or folder parameter is recorded by path in the plan; its bytes are hashed
        // into the image id (the file through the rendered Dockerfile, the folder through
        // `EnvImage::context`).
        ParamValue::File { path, .. } | ParamValue::Dir { path, .. } => Param::Str(path.clone()),
        // Named contexts are recorded in `EnvImage::contexts` (left out of `params`).
        ParamValue::Contexts(c) => Param::List(c.iter().map(|c| c.name.clone()).collect()),
    }
}

/// What a template sees for a parameter: a file parameter's text, a folder's path.
fn template_value(v: &ParamValue) -> Param {
    match v {
        ParamValue::File { text, .. } => Param::Str(text.clone()),
        other => to_param(other),
    }
}

/// Every stdlib template, parsed once per process (parsing dominates rendering).
fn templates() -> &'static Result<tera::Tera, tera::Error> {
    static TERA: OnceLock<Result<tera::Tera, tera::Error>> = OnceLock::new();
    TERA.get_or_init(|| {
        let mut t = tera::Tera::default();
        t.autoescape_on(Vec::new());
        t.register_filter("sh", super::shell_word::filter);
        let all: Vec<(String, String)> = crate::recipe::recipes()
            .iter()
            .map(|r| (r.name.clone(), r.template.clone()))
            .collect();
        t.add_raw_templates(all)?;
        Ok(t)
    })
}

fn render(name: &str, template: &str, ctx: &tera::Context) -> Result<String, tera::Error> {
    match templates() {
        Ok(t) if t.get_template_names().any(|n| n == name) => t.render(name, ctx),
        // A template that failed to parse: parse it again to report its own error.
        _ => {
            let mut t = tera::Tera::default();
            t.autoescape_on(Vec::new());
            t.register_filter("sh", super::shell_word::filter);
            t.add_raw_template(name, template)?;
            t.render(name, ctx)
        }
    }
}

/// Render the environment image (and its local variant) of `env`, as one image (a service's
/// image: its stages are not split into nodes).
pub(crate) fn env_image(
    env: &Environment,
    recipe: &RecipeManifest,
    opts: &LowerOptions,
    trees: &BTreeMap<String, String>,
) -> Result<(EnvImage, BTreeMap<String, ImageNode>), LowerError> {
    env_image_and_nodes(env, recipe, opts, false, trees)
}

/// Render the environment image of `env` and, for a multi-stage `env dockerfile` when
/// `split` is set, the image nodes its last stage is built on (`image_graph`). A Dockerfile
/// with named build contexts is always split: its contexts are nodes (or images) it names;
/// `trees` gives each repository's tree identity for `repo(…)` contexts.
pub(crate) fn env_image_and_nodes(
    env: &Environment,
    recipe: &RecipeManifest,
    opts: &LowerOptions,
    split: bool,
    trees: &BTreeMap<String, String>,
) -> Result<(EnvImage, BTreeMap<String, ImageNode>), LowerError> {
    let mut params: BTreeMap<String, Param> = recipe
        .defaults
        .iter()
        .map(|(k, v)| (k.clone(), to_param(v)))
        .collect();
    let mut values: BTreeMap<String, Param> = params.clone();
    let named_contexts = env.contexts();
    for (k, v) in &env.params {
        if matches!(v, ParamValue::Contexts(_)) {
            continue;
        }
        params.insert(k.clone(), to_param(v));
        values.insert(k.clone(), template_value(v));
    }
    // At most one folder parameter: the build context.
    let context = env.params.values().find_map(|v| match v {
        ParamValue::Dir { path, digest } => Some(BuildContext {
            path: path.clone(),
            digest: digest.clone(),
        }),
        _ => None,
    });
    let r = recipe.recipe;
    // One Dockerfile instruction per template line: a line break in a parameter (other than
    // code: the generic recipe's fragment) would smuggle in instructions. `check` reports
    // it first (E0705); this guards plans lowered from a hand-made `Task`.
    for (k, v) in &params {
        if r.param(k).is_some_and(|d| d.code) {
            continue;
        }
        let texts: Vec<&str> = match v {
            Param::Str(s) => vec![s.as_str()],
            Param::List(l) => l.iter().map(String::as_str).collect(),
            Param::Int(_) | Param::Bool(_) => Vec::new(),
        };
        let is_file = matches!(env.params.get(k), Some(ParamValue::File { .. }));
        if k != "dockerfile" && !is_file && texts.iter().any(|t| t.contains(['\n', '\r'])) {
            return Err(LowerError::Template {
                recipe: r.name.clone(),
                message: format!(
                    "parameter `{k}` contains a line break; give one value per list item"
                ),
            });
        }
    }
    // A closed choice's named image (`version "3.12"` → `python:3.12-bookworm`), else the
    // recipe's base image, which `[images] base` replaces; then what stands in for it.
    let named = r.base_image_for(&env.params);
    let requested = match &opts.base_image_override {
        Some(o) if named == r.base_image => o.clone(),
        _ => named.to_string(),
    };
    let (base_image, stands_in_for) = match opts.stand_ins.get(&requested) {
        Some(used) if *used != requested => (used.clone(), Some(requested)),
        _ => (requested, None),
    };

    let mut ctx = tera::Context::new();
    ctx.insert("base_image", &base_image);
    for (k, v) in &values {
        ctx.insert(k.replace('-', "_"), v);
    }
    let dockerfile = render(&r.name, &r.template, &ctx).map_err(|e| {
        // tera nests the useful message in its source chain.
        let mut msg = e.to_string();
        let mut src = std::error::Error::source(&e);
        while let Some(s) = src {
            msg = format!("{msg}: {s}");
            src = s.source();
        }
        LowerError::Template {
            recipe: r.name.clone(),
            message: msg,
        }
    })?;
    // A curator's Dockerfile names its own base images: each `FROM` a site's `[images.map]`
    // stands in for is rewritten to the stand-in (its content id is in `base_image_id`).
    // A `FROM` pinned by registry digest is built from `<name>@<digest>` (a stand-in wins:
    // the runtime pins no image the site stands in for).
    let mut from_digests = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    let mut parents = Vec::new();
    let mut contexts = BTreeMap::new();
    let (dockerfile, from_stand_ins) = if r.name == "dockerfile" {
        let context_names: Vec<String> = named_contexts
            .iter()
            .map(|c| c.name.to_ascii_lowercase())
            .collect();
        // `FROM <context>` is no image of the Dockerfile's own.
        let is_context = |image: &str| context_names.contains(&image.to_ascii_lowercase());
        let stand_ins: BTreeMap<String, String> = opts
            .stand_ins
            .iter()
            .filter(|(k, _)| !is_context(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let (_, mut from_stand_ins) = rewrite_from(&dockerfile, &stand_ins);
        let mut from_map = stand_ins.clone();
        for image in dockerfile_images(&dockerfile, named_contexts) {
            if let Some(s) = stand_ins.get(&image) {
                if *s != image {
                    from_stand_ins.insert(image.clone(), s.clone());
                }
                continue;
            }
            if let Some(digest) = opts.base_digests.get(&image) {
                from_map.insert(image.clone(), pinned(&image, digest));
                from_digests.insert(image, digest.clone());
            }
        }
        let lowered = super::contexts::lower(named_contexts, trees, &from_map)?;
        contexts = lowered.plan.clone();
        let graph = (split || !named_contexts.is_empty())
            .then(|| {
                super::image_graph::split(
                    &dockerfile,
                    &from_map,
                    &opts.image_ids,
                    context.as_ref(),
                    &lowered,
                )
            })
            .flatten();
        match graph {
            Some(g) => {
                nodes = g.nodes;
                parents = g.parents;
                (g.dockerfile, from_stand_ins)
            }
            None => (rewrite_from(&dockerfile, &from_map).0, from_stand_ins),
        }
    } else {
        (dockerfile, BTreeMap::new())
    };
    let digest = match (&context, &opts.base_image_id) {
        (None, None) => canonical_digest("taskc.env-image/1", &dockerfile),
        (None, Some(id)) => canonical_digest("taskc.env-image/2", &(&dockerfile, id)),
        (Some(c), id) => {
            canonical_digest("taskc.env-image/3", &(&dockerfile, id, &c.path, &c.digest))
        }
    };

    let setup = match params.get("local-setup") {
        Some(Param::List(s)) => s.clone(),
        _ => Vec::new(),
    };
    let local_digest = canonical_digest(
        "taskc.env-local/1",
        &(&r.name, &params, &r.local.requires, &r.local.env, &setup),
    );
    let image = EnvImage {
        id: short_id("img", &digest),
        digest,
        recipe: r.name.clone(),
        params,
        base_image,
        stands_in_for,
        from_stand_ins,
        from_digests,
        nodes: parents,
        base_image_id: opts.base_image_id.clone(),
        dockerfile,
        context,
        contexts,
        local: LocalEnv {
            id: short_id("env", &local_digest),
            digest: local_digest,
            requires: r.local.requires.clone(),
            env: r.local.env.clone(),
            setup,
        },
    };
    Ok((image, nodes))
}

/// `name` pinned to `digest` (`sha256:…`): `golang:1.26-bookworm@sha256:…` (the tag is kept
/// for the reader; the engine builds from the digest). A name already pinned is re-pinned.
pub fn pinned(name: &str, digest: &str) -> String {
    let bare = name.split_once('@').map_or(name, |(n, _)| n);
    format!("{bare}@{digest}")
}

/// The images `dockerfile`'s `FROM` lines build on, in order: each `FROM` that does not name
/// an earlier build stage and is not built from an `ARG` (`FROM ${BASE}`), once.
pub fn from_images(dockerfile: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_from(dockerfile, |image| {
        if !out.iter().any(|o| o == image) {
            out.push(image.to_string());
        }
        None
    });
    out
}

/// The images a curator's Dockerfile builds on or reads, in order: its `FROM` images
/// ([`from_images`]) less the named contexts it declares, then its image contexts
/// (`contexts { dep image("…") }`), each once — what the runtime resolves (stand-ins,
/// registry digests) before lowering.
pub fn dockerfile_images(dockerfile: &str, contexts: &[crate::model::NamedContext]) -> Vec<String> {
    let names: Vec<String> = contexts
        .iter()
        .map(|c| c.name.to_ascii_lowercase())
        .collect();
    let mut out: Vec<String> = from_images(dockerfile)
        .into_iter()
        .filter(|i| !names.contains(&i.to_ascii_lowercase()))
        .collect();
    for c in contexts {
        if let crate::model::ContextSource::Image(i) = &c.source {
            if !out.contains(i) {
                out.push(i.clone());
            }
        }
    }
    out
}

/// The images the environment's Dockerfile builds on or reads ([`dockerfile_images`]), for
/// an `env dockerfile` (or `image dockerfile`); empty for any other recipe.
pub fn environment_images(env: &Environment) -> Vec<String> {
    if env.recipe != "dockerfile" {
        return Vec::new();
    }
    match env.params.get("dockerfile") {
        Some(ParamValue::File { text, .. }) => dockerfile_images(text, env.contexts()),
        _ => Vec::new(),
    }
}

/// `dockerfile` with each `FROM` image `stand_ins` names replaced by its stand-in, and what
/// was replaced (named → used). Stage references, `ARG`-built images, options
/// (`--platform=…`) and `AS <stage>` are kept.
pub fn rewrite_from(
    dockerfile: &str,
    stand_ins: &BTreeMap<String, String>,
) -> (String, BTreeMap<String, String>) {
    let mut used = BTreeMap::new();
    let out = for_each_from(dockerfile, |image| {
        let s = stand_ins.get(image).filter(|s| *s != image)?;
        used.insert(image.to_string(), s.clone());
        Some(s.clone())
    });
    (out, used)
}

/// `dockerfile` with `f` asked about each `FROM` image that is not a build stage or built
/// from an `ARG`; where it answers, the image is replaced.
fn for_each_from(dockerfile: &str, mut f: impl FnMut(&str) -> Option<String>) -> String {
    let mut stages: Vec<String> = Vec::new();
    let mut out = String::with_capacity(dockerfile.len());
    for line in dockerfile.split_inclusive('\n') {
        let words: Vec<&str> = line.split_whitespace().collect();
        let is_from = words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("FROM"));
        let at = words
            .iter()
            .skip(1)
            .position(|w| !w.starts_with("--"))
            .map(|k| k + 1);
        let (true, Some(at)) = (is_from, at) else {
            out.push_str(line);
            continue;
        };
        let image = words[at];
        let stage = match (words.get(at + 1), words.get(at + 2)) {
            (Some(a), Some(n)) if a.eq_ignore_ascii_case("AS") => Some(n.to_ascii_lowercase()),
            _ => None,
        };
        let own = stages.contains(&image.to_ascii_lowercase()) || image.contains('$');
        match (own, (!own).then(|| f(image)).flatten()) {
            (false, Some(new)) => {
                let mut w: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                w[at] = new;
                out.push_str(&w.join(" "));
                out.push_str(if line.ends_with("\r\n") {
                    "\r\n"
                } else if line.ends_with('\n') {
                    "\n"
                } else {
                    ""
                });
            }
            _ => out.push_str(line),
        }
        stages.extend(stage);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{from_images, rewrite_from};

    #[test]
    fn from_lines_are_rewritten_through_the_image_map() {
        let df = "# x\nARG B=golang:1.26\nFROM golang:1.26-bookworm AS build\nRUN go build\nFROM ${B}\nFROM build\nFROM --platform=linux/amd64 ecosyncbench/deps/x:1\nCOPY --from=build /a /a\n";
        assert_eq!(
            from_images(df),
            vec![
                "golang:1.26-bookworm".to_string(),
                "ecosyncbench/deps/x:1".to_string()
            ]
        );
        let map: std::collections::BTreeMap<String, String> = [
            ("golang:1.26-bookworm", "local/go:1.26"),
            ("build", "nope"),
            ("ecosyncbench/deps/x:1", "local/x:1"),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        let (out, used) = rewrite_from(df, &map);
        assert_eq!(
            out,
            "# x\nARG B=golang:1.26\nFROM local/go:1.26 AS build\nRUN go build\nFROM ${B}\nFROM build\nFROM --platform=linux/amd64 local/x:1\nCOPY --from=build /a /a\n"
        );
        assert_eq!(used.len(), 2);
        assert_eq!(used["golang:1.26-bookworm"], "local/go:1.26");
        let (same, none) = rewrite_from(df, &Default::default());
        assert_eq!(same, df);
        assert!(none.is_empty());
    }
}
