//! The lock's TOML layout, written by hand so it reads well in a diff: one line per input,
//! inline `dropped` entries, one compact `repos` line per truth-table row.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Lock, TruthCell};

/// A TOML string literal.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A key: bare when it can be, quoted otherwise.
fn key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        k.to_string()
    } else {
        q(k)
    }
}

/// An array of strings, one per line when long.
fn list(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".to_string();
    }
    let one_line = format!(
        "[{}]",
        items.iter().map(|i| q(i)).collect::<Vec<_>>().join(", ")
    );
    if one_line.len() <= 80 {
        return one_line;
    }
    let mut out = "[\n".to_string();
    for i in items {
        let _ = writeln!(out, "  {},", q(i));
    }
    out.push(']');
    out
}

fn cells(repos: &BTreeMap<String, TruthCell>) -> String {
    let parts: Vec<String> = repos
        .iter()
        .map(|(k, c)| {
            format!(
                "{} = {{ passed = {}, failed = {}{}{} }}",
                key(k),
                c.passed,
                c.failed,
                if c.targeted { ", targeted = true" } else { "" },
                if c.not_run { ", not_run = true" } else { "" }
            )
        })
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

fn table(out: &mut String, header: &str, map: &BTreeMap<String, String>) {
    let _ = writeln!(out, "\n[{header}]");
    for (k, v) in map {
        let _ = writeln!(out, "{} = {}", key(k), q(v));
    }
}

pub(super) fn lock(lock: &Lock) -> String {
    let mut out = String::new();
    out.push_str("# Written by `taskc verify`; do not edit. Re-run `taskc verify` to update.\n");
    let _ = writeln!(out, "schema = {}", q(&lock.schema));
    let _ = writeln!(out, "task = {}", q(&lock.task));

    let i = &lock.inputs;
    out.push_str("\n[inputs]\n");
    for (k, v) in [
        ("spec", &i.spec),
        ("prompt", &i.prompt),
        ("recipe", &i.recipe),
        ("plan", &i.plan),
    ] {
        let _ = writeln!(out, "{k} = {}", q(v));
    }
    table(&mut out, "inputs.gold", &i.gold);
    table(&mut out, "inputs.tests", &i.tests);
    table(&mut out, "inputs.sources", &i.sources);
    if !lock.base_images.is_empty() {
        table(&mut out, "base-images", &lock.base_images);
    }

    for (name, r) in &lock.repos {
        let _ = writeln!(out, "\n[repos.{}]", key(name));
        let _ = writeln!(out, "f2p = {}", list(&r.f2p));
        let _ = writeln!(out, "p2p = {}", list(&r.p2p));
        if r.dropped.is_empty() {
            out.push_str("dropped = []\n");
        } else {
            out.push_str("dropped = [\n");
            for d in &r.dropped {
                let _ = writeln!(
                    out,
                    "  {{ test = {}, rule = {} }},",
                    q(&d.test),
                    q(d.rule.as_str())
                );
            }
            out.push_str("]\n");
        }
        let _ = writeln!(out, "skipped = {}", list(&r.skipped));
        if r.skipped_unnamed > 0 {
            let _ = writeln!(out, "skipped_unnamed = {}", r.skipped_unnamed);
        }
    }

    for row in &lock.truth {
        out.push_str("\n[[truth]]\n");
        let _ = writeln!(out, "gold = {}", list(&row.gold));
        let _ = writeln!(out, "expected = {}", q(row.expected.as_str()));
        let _ = writeln!(out, "pass = {}", row.pass);
        let _ = writeln!(out, "ok = {}", row.ok);
        let _ = writeln!(out, "repos = {}", cells(&row.repos));
    }

    let p = &lock.provenance;
    out.push_str("\n[provenance]\n");
    let _ = writeln!(out, "backend = {}", q(&p.backend));
    let _ = writeln!(out, "taskc = {}", q(&p.taskc));
    table(&mut out, "provenance.images", &p.images);
    table(&mut out, "provenance.tools", &p.tools);
    out
}
