//! Comparing two tasks field by field.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{
    ParamValue, ReadyCheck, RelaxAction, Repo, Service, ServiceImage, ServiceScope, Source, Task,
};
use crate::plan::Plan;

use super::*;

fn change(field: &str, old: Option<String>, new: Option<String>) -> Option<FieldChange> {
    (old != new).then(|| FieldChange {
        field: field.to_string(),
        old,
        new,
    })
}

fn param(v: &ParamValue) -> String {
    match v {
        ParamValue::Str(s) => format!("{s:?}"),
        ParamValue::Int(i) => i.to_string(),
        ParamValue::Bool(b) => b.to_string(),
        ParamValue::List(l) => format!("{l:?}"),
        ParamValue::File { path, digest, .. } => format!("file({path:?}) {}", short(digest)),
        ParamValue::Dir { path, digest } => format!("dir({path:?}) tree {}", short(digest)),
        ParamValue::Contexts(c) => {
            let each: Vec<String> = c
                .iter()
                .map(|c| match &c.source {
                    crate::model::ContextSource::Dir { path, digest } => {
                        format!("{} dir({path:?}) tree {}", c.name, short(digest))
                    }
                    crate::model::ContextSource::Image(i) => format!("{} image({i:?})", c.name),
                    crate::model::ContextSource::Repo(r) => format!("{} repo({r})", c.name),
                })
                .collect();
            format!("{{ {} }}", each.join("; "))
        }
    }
}

fn short(d: &str) -> String {
    d.chars().take(12).collect()
}

fn source(s: &Source) -> String {
    match s {
        Source::Dir { path, digest } => format!("dir({path:?}) tree {}", short(digest)),
        Source::Git { url } => format!("git({url:?})"),
        Source::Bundle { path, digest } => format!("bundle({path:?}) {}", short(digest)),
    }
}

fn relaxations(r: &Repo) -> Vec<RelaxRef> {
    r.relaxations
        .iter()
        .map(|x| {
            let (action, target, replace, with) = match &x.action {
                RelaxAction::Drop { test } => ("drop", test.clone(), None, None),
                RelaxAction::Edit {
                    file,
                    replace,
                    with,
                } => (
                    "edit",
                    file.clone(),
                    Some(replace.clone()),
                    Some(with.clone()),
                ),
            };
            RelaxRef {
                repo: r.name.clone(),
                action: action.to_string(),
                target,
                rule: x.rule.as_str().to_string(),
                because: x.reason.clone(),
                replace,
                with,
            }
        })
        .collect()
}

fn expects(r: &Repo) -> Vec<ExpectRef> {
    let Some(t) = &r.test else { return Vec::new() };
    let mk = |kind: &str, test: &String| ExpectRef {
        repo: r.name.clone(),
        kind: kind.to_string(),
        test: test.clone(),
    };
    t.expect
        .f2p
        .iter()
        .map(|x| mk("f2p", x))
        .chain(t.expect.p2p.iter().map(|x| mk("p2p", x)))
        .collect()
}

/// `a` minus `b`, keeping `a`'s order.
fn minus<T: Ord + Clone>(a: &[T], b: &[T]) -> Vec<T> {
    let b: BTreeSet<&T> = b.iter().collect();
    a.iter().filter(|x| !b.contains(x)).cloned().collect()
}

fn repo_fields(o: &Repo, n: &Repo) -> Vec<FieldChange> {
    let patch = |p: &Option<crate::model::PatchFile>| {
        p.as_ref()
            .map(|p| format!("{} ({})", p.path, short(&p.digest)))
    };
    let test = n.test.as_ref();
    let otest = o.test.as_ref();
    [
        change(
            "role",
            Some(o.role.as_str().into()),
            Some(n.role.as_str().into()),
        ),
        change("source", Some(source(&o.source)), Some(source(&n.source))),
        change("gold", patch(&o.gold), patch(&n.gold)),
        change(
            "setup",
            Some(format!("{:?}", o.setup)),
            Some(format!("{:?}", n.setup)),
        ),
        change(
            "uses",
            Some(format!("{:?}", o.uses)),
            Some(format!("{:?}", n.uses)),
        ),
        change(
            "services",
            Some(format!("{:?}", o.services)),
            Some(format!("{:?}", n.services)),
        ),
        change(
            "test.patch",
            otest.map(|t| format!("{} ({})", t.patch.path, short(&t.patch.digest))),
            test.map(|t| format!("{} ({})", t.patch.path, short(&t.patch.digest))),
        ),
        change(
            "test.run",
            otest.map(|t| t.run.clone()),
            test.map(|t| t.run.clone()),
        ),
        change(
            "test.parser",
            otest.map(|t| t.parser.to_string()),
            test.map(|t| t.parser.to_string()),
        ),
        change(
            "test.select",
            otest.and_then(|t| t.select.clone()),
            test.and_then(|t| t.select.clone()),
        ),
        change(
            "test.timeout",
            otest.map(|t| format!("{}s", t.timeout_secs)),
            test.map(|t| format!("{}s", t.timeout_secs)),
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

pub(super) fn diff(old: &Task, new: &Task) -> TaskDiff {
    let mut d = TaskDiff {
        task: new.id.clone(),
        ..TaskDiff::default()
    };
    let prompt = |t: &Task| {
        let digest = crate::plan::sha256_hex(t.prompt.text.as_bytes());
        Some(match &t.prompt.file {
            Some(f) => format!("file({f:?}) ({})", short(&digest)),
            None => format!("inline ({})", short(&digest)),
        })
    };
    let list = |l: &Vec<String>| Some(format!("{l:?}"));
    d.fields.extend(
        [
            change("id", Some(old.id.clone()), Some(new.id.clone())),
            change("title", old.title.clone(), new.title.clone()),
            change(
                "kind",
                Some(old.kind.as_str().into()),
                Some(new.kind.as_str().into()),
            ),
            change("ecosystem", old.ecosystem.clone(), new.ecosystem.clone()),
            change("languages", list(&old.languages), list(&new.languages)),
            change("links", list(&old.links), list(&new.links)),
            change("prompt", prompt(old), prompt(new)),
            change(
                "verify",
                Some(old.verify.as_str().into()),
                Some(new.verify.as_str().into()),
            ),
            change(
                "env",
                Some(old.env.recipe.clone()),
                Some(new.env.recipe.clone()),
            ),
        ]
        .into_iter()
        .flatten(),
    );
    let keys: BTreeSet<&String> = old.env.params.keys().chain(new.env.params.keys()).collect();
    for k in keys {
        let f = format!("env.{k}");
        d.fields.extend(change(
            &f,
            old.env.params.get(k).map(param),
            new.env.params.get(k).map(param),
        ));
    }

    d.fields.extend(service_fields(old, new));

    let olds: BTreeMap<&str, &Repo> = old.repos.iter().map(|r| (r.name.as_str(), r)).collect();
    let news: BTreeMap<&str, &Repo> = new.repos.iter().map(|r| (r.name.as_str(), r)).collect();
    let rref = |r: &Repo| RepoRef {
        name: r.name.clone(),
        role: r.role.as_str().to_string(),
    };
    for r in &new.repos {
        match olds.get(r.name.as_str()) {
            None => d.repos_added.push(rref(r)),
            Some(o) => {
                for change in repo_fields(o, r) {
                    d.repo_fields.push(RepoFieldChange {
                        repo: r.name.clone(),
                        change,
                    });
                }
                if o.base != r.base {
                    d.bases_moved.push(BaseMove {
                        repo: r.name.clone(),
                        old: o.base.clone(),
                        new: r.base.clone(),
                    });
                }
            }
        }
    }
    for r in &old.repos {
        if !news.contains_key(r.name.as_str()) {
            d.repos_removed.push(rref(r));
        }
    }
    let all_relax = |t: &Task| t.repos.iter().flat_map(relaxations).collect::<Vec<_>>();
    let all_expect = |t: &Task| t.repos.iter().flat_map(expects).collect::<Vec<_>>();
    let (ro, rn) = (all_relax(old), all_relax(new));
    d.relaxations_added = minus(&rn, &ro);
    d.relaxations_removed = minus(&ro, &rn);
    let (eo, en) = (all_expect(old), all_expect(new));
    d.expects_added = minus(&en, &eo);
    d.expects_removed = minus(&eo, &en);
    d
}

/// A service as a reviewer reads it, one line per aspect (`service db.image`, …); a
/// service added or removed is one `service <name>` line.
fn service_lines(s: &Service) -> BTreeMap<String, String> {
    let image = match &s.image {
        ServiceImage::Recipe(env) => {
            let params: Vec<String> = env
                .params
                .iter()
                .map(|(k, v)| format!("{k} {}", param(v)))
                .collect();
            format!("{} {{ {} }}", env.recipe, params.join("; "))
        }
        ServiceImage::Named(name) => format!("{name:?}"),
    };
    let ready = match &s.ready {
        ReadyCheck::Command(c) => format!("{c:?}"),
        ReadyCheck::Tcp(p) => format!("tcp port {p}"),
        ReadyCheck::Started => "started".into(),
    };
    let scope = match &s.scope {
        ServiceScope::Task => "task".to_string(),
        ServiceScope::Repo(r) => format!("repo {r}"),
    };
    let mut out = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        out.insert(format!("service {}.{k}", s.name), v);
    };
    put("declared in", scope);
    put("image", image);
    put("hostname", s.hostname.clone());
    put("environment", format!("{:?}", s.environment));
    put("command", format!("{:?}", s.command));
    put("ready", format!("{ready} within {}s", s.ready_timeout_secs));
    put("ports", format!("{:?}", s.ports));
    put(
        "limits",
        format!(
            "memory {:?} bytes, cpus {:?}/1000",
            s.limits.memory_bytes, s.limits.cpus_milli
        ),
    );
    out
}

fn service_fields(old: &Task, new: &Task) -> Vec<FieldChange> {
    let mut out = Vec::new();
    for s in &new.services {
        match old.service(&s.name) {
            None => out.extend(change(
                &format!("service {}", s.name),
                None,
                Some("added".into()),
            )),
            Some(o) => {
                let (lo, ln) = (service_lines(o), service_lines(s));
                for (k, v) in &ln {
                    out.extend(change(k, lo.get(k).cloned(), Some(v.clone())));
                }
            }
        }
    }
    for s in &old.services {
        if new.service(&s.name).is_none() {
            out.extend(change(
                &format!("service {}", s.name),
                Some("declared".into()),
                None,
            ));
        }
    }
    out
}

pub(super) fn invalidated(old: &Plan, new: &Plan) -> Invalidated {
    let mut images = Vec::new();
    // A service image by the name of the service(s) that run it.
    let service_images = |p: &Plan| -> BTreeMap<String, String> {
        p.runs()
            .flat_map(|r| r.services.iter())
            .map(|s| (format!("service {}", s.name), s.image.clone()))
            .collect()
    };
    let (so, sn) = (service_images(old), service_images(new));
    for (name, id) in &sn {
        if so.get(name).is_some_and(|o| o != id) {
            images.push(ImageChange {
                image: name.clone(),
                old: so.get(name).cloned().unwrap_or_default(),
                new: id.clone(),
            });
        }
    }
    let pairs = [
        (
            "environment",
            &old.images.environment.id,
            &new.images.environment.id,
        ),
        ("task", &old.images.task.id, &new.images.task.id),
    ];
    for (image, o, n) in pairs {
        if o != n {
            images.push(ImageChange {
                image: image.to_string(),
                old: o.clone(),
                new: n.clone(),
            });
        }
    }
    let old_ids: BTreeSet<&str> = old.runs().map(|r| r.id.as_str()).collect();
    let new_ids: BTreeSet<&str> = new.runs().map(|r| r.id.as_str()).collect();
    let runs: Vec<RunRef> = new
        .runs()
        .filter(|r| !old_ids.contains(r.id.as_str()))
        .map(|r| RunRef {
            id: r.id.clone(),
            under_test: vec![r.under_test.clone()],
            gold_applied: r.gold_applied.clone(),
        })
        .collect();
    Invalidated {
        old_plan: old.id.clone(),
        new_plan: new.id.clone(),
        runs_kept: new_ids.len() - runs.len(),
        runs_dropped: old_ids.difference(&new_ids).count(),
        images,
        runs,
    }
}
