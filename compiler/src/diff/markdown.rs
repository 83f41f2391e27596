//! The Markdown rendering of a [`TaskDiff`], for pull-request comments.

use std::fmt::Write;

use super::TaskDiff;

fn opt(v: &Option<String>) -> String {
    match v {
        Some(v) => format!("`{}`", v.replace('`', "'")),
        None => "(none)".to_string(),
    }
}

fn set(v: &[String]) -> String {
    if v.is_empty() {
        "∅".to_string()
    } else {
        format!("{{{}}}", v.join(", "))
    }
}

pub(super) fn render(d: &TaskDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### taskc diff: `{}`\n", d.task);
    if d.is_empty() {
        out.push_str("No semantic change; every image and run stays valid.\n");
        return out;
    }
    if !d.fields.is_empty() {
        out.push_str("**Task**\n\n");
        for f in &d.fields {
            let _ = writeln!(out, "- `{}`: {} → {}", f.field, opt(&f.old), opt(&f.new));
        }
        out.push('\n');
    }
    let repos = !(d.repos_added.is_empty()
        && d.repos_removed.is_empty()
        && d.bases_moved.is_empty()
        && d.repo_fields.is_empty());
    if repos {
        out.push_str("**Repositories**\n\n");
        for r in &d.repos_added {
            let _ = writeln!(out, "- added {} `{}`", r.role, r.name);
        }
        for r in &d.repos_removed {
            let _ = writeln!(out, "- removed {} `{}`", r.role, r.name);
        }
        for b in &d.bases_moved {
            let sha = |v: &Option<String>| opt(&v.as_ref().map(|s| s.chars().take(12).collect()));
            let _ = writeln!(
                out,
                "- `{}`: base commit moved {} → {}",
                b.repo,
                sha(&b.old),
                sha(&b.new)
            );
        }
        for c in &d.repo_fields {
            let f = &c.change;
            let _ = writeln!(
                out,
                "- `{}`: `{}` {} → {}",
                c.repo,
                f.field,
                opt(&f.old),
                opt(&f.new)
            );
        }
        out.push('\n');
    }
    if !(d.relaxations_added.is_empty() && d.relaxations_removed.is_empty()) {
        out.push_str("**Relaxations**\n\n");
        for (sign, list) in [
            ("added", &d.relaxations_added),
            ("removed", &d.relaxations_removed),
        ] {
            for r in list {
                let _ = write!(
                    out,
                    "- {sign} on `{}`: {} `{}` under rule `{}` — “{}”",
                    r.repo, r.action, r.target, r.rule, r.because
                );
                if let (Some(a), Some(b)) = (&r.replace, &r.with) {
                    let _ = write!(
                        out,
                        " (replace {} with {})",
                        opt(&Some(a.clone())),
                        opt(&Some(b.clone()))
                    );
                }
                out.push('\n');
            }
        }
        out.push('\n');
    }
    if !(d.expects_added.is_empty() && d.expects_removed.is_empty()) {
        out.push_str("**Expectations**\n\n");
        for (sign, list) in [("added", &d.expects_added), ("removed", &d.expects_removed)] {
            for e in list {
                let _ = writeln!(
                    out,
                    "- {sign} on `{}`: `expect {} \"{}\"`",
                    e.repo, e.kind, e.test
                );
            }
        }
        out.push('\n');
    }
    let inv = &d.invalidated;
    out.push_str("**Invalidated**\n\n");
    if inv.images.is_empty() && inv.runs.is_empty() && inv.runs_dropped == 0 {
        out.push_str("- nothing: every image and verification run stays valid\n");
    }
    for i in &inv.images {
        let _ = writeln!(
            out,
            "- {} image `{}` → `{}`: rebuild",
            i.image, i.old, i.new
        );
    }
    if !inv.runs.is_empty() {
        let mut repos: Vec<&str> = Vec::new();
        for r in &inv.runs {
            for u in &r.under_test {
                if !repos.contains(&u.as_str()) {
                    repos.push(u);
                }
            }
        }
        let names: Vec<String> = repos.iter().map(|r| format!("`{r}`")).collect();
        let _ = writeln!(
            out,
            "- the verification of {} must be re-run",
            names.join(", ")
        );
        let _ = writeln!(
            out,
            "- {} of {} verification runs must be re-run ({} results reused, {} old runs obsolete):",
            inv.runs.len(),
            inv.runs.len() + inv.runs_kept,
            inv.runs_kept,
            inv.runs_dropped
        );
        for r in &inv.runs {
            let _ = writeln!(
                out,
                "  - `{}`: tests of {} with gold {}",
                r.id,
                r.under_test.join(", "),
                set(&r.gold_applied)
            );
        }
    } else if inv.runs_dropped > 0 {
        let _ = writeln!(out, "- {} verification runs dropped", inv.runs_dropped);
    }
    if inv.old_plan != inv.new_plan {
        let _ = writeln!(out, "- plan `{}` → `{}`", inv.old_plan, inv.new_plan);
    }
    out
}
