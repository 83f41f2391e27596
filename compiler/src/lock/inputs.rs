//! The inputs a lock records, computed from a checked task.

use serde_json::{json, Value};

use crate::lower::{lower_verify, recipe_digest, tree_digest, LowerError, LowerOptions};
use crate::model::{RelaxAction, Source, Task};
use crate::plan::{canonical_digest, sha256_hex};

use super::Inputs;

/// Digest of the spec's meaning: every field, file contents by digest; not its layout,
/// comments or the path it was read from.
pub fn spec_digest(task: &Task) -> String {
    let repos: Vec<Value> = task
        .repos
        .iter()
        .map(|r| {
            let source = match &r.source {
                Source::Dir { path, digest } => json!({"dir": path, "digest": digest}),
                Source::Git { url } => json!({"git": url}),
                Source::Bundle { path, digest } => json!({"bundle": path, "digest": digest}),
            };
            let test = r.test.as_ref().map(|t| {
                let mut v = json!({
                    "patch": [&t.patch.path, &t.patch.digest],
                    "run": t.run, "parser": t.parser, "timeout": t.timeout_secs,
                    "f2p": t.expect.f2p, "p2p": t.expect.p2p,
                });
                // Only when given, so locks written before `select` stay fresh.
                if let (Some(sel), Some(o)) = (&t.select, v.as_object_mut()) {
                    o.insert("select".into(), json!(sel));
                }
                v
            });
            let relax: Vec<Value> = r
                .relaxations
                .iter()
                .map(|x| {
                    let action = match &x.action {
                        RelaxAction::Drop { test } => json!({"drop": test}),
                        RelaxAction::Edit {
                            file,
                            replace,
                            with,
                        } => json!({"edit": file, "replace": replace, "with": with}),
                    };
                    json!({"rule": x.rule.as_str(), "because": x.reason, "action": action})
                })
                .collect();
            json!({
                "name": r.name, "role": r.role.as_str(), "source": source, "base": r.base,
                "gold": r.gold.as_ref().map(|g| [&g.path, &g.digest]),
                "setup": r.setup, "uses": r.uses, "test": test, "relax": relax,
            })
        })
        .collect();
    let params: Value = task
        .env
        .params
        .iter()
        .map(|(k, v)| {
            let v = match v {
                crate::model::ParamValue::Str(s) => json!(s),
                crate::model::ParamValue::Int(i) => json!(i),
                crate::model::ParamValue::Bool(b) => json!(b),
                crate::model::ParamValue::List(l) => json!(l),
                crate::model::ParamValue::File { path, digest, .. }
                | crate::model::ParamValue::Dir { path, digest } => json!([path, digest]),
                crate::model::ParamValue::Contexts(c) => c
                    .iter()
                    .map(|c| {
                        let source = match &c.source {
                            crate::model::ContextSource::Dir { path, digest } => {
                                json!(["dir", path, digest])
                            }
                            crate::model::ContextSource::Image(i) => json!(["image", i]),
                            crate::model::ContextSource::Repo(r) => json!(["repo", r]),
                        };
                        (c.name.clone(), source)
                    })
                    .collect::<serde_json::Map<String, Value>>()
                    .into(),
            };
            (k.clone(), v)
        })
        .collect::<serde_json::Map<String, Value>>()
        .into();
    let doc = json!({
        "id": task.id, "title": task.title, "kind": task.kind.as_str(),
        "ecosystem": task.ecosystem, "languages": task.languages, "links": task.links,
        "prompt": [&task.prompt.file, sha256_hex(task.prompt.text.as_bytes())],
        "verify": task.verify.as_str(),
        "env": {"recipe": task.env.recipe, "params": params},
        "repos": repos,
    });
    canonical_digest("taskc.spec/1", &doc)
}

/// Every input of `task`'s verification. `opts.exhaustive` and `opts.base_image_id` are
/// ignored: the lock names the ordinary verification plan, the same on every machine (a
/// base image's content id differs between machines that bootstrapped it).
pub fn lock_inputs(task: &Task, opts: &LowerOptions) -> Result<Inputs, LowerError> {
    let plain = LowerOptions {
        exhaustive: false,
        base_image_id: None,
        base_digests: Default::default(),
        image_ids: Default::default(),
        ..opts.clone()
    };
    let plan = lower_verify(task, &plain)?;
    let mut inputs = Inputs {
        spec: spec_digest(task),
        prompt: sha256_hex(task.prompt.text.as_bytes()),
        recipe: recipe_digest(&task.env.recipe)?,
        plan: plan.id,
        ..Inputs::default()
    };
    for r in &task.repos {
        inputs.sources.insert(r.name.clone(), tree_digest(r));
        if let Some(g) = &r.gold {
            inputs.gold.insert(r.name.clone(), g.digest.clone());
        }
        if let Some(t) = &r.test {
            inputs.tests.insert(r.name.clone(), t.patch.digest.clone());
        }
    }
    Ok(inputs)
}
