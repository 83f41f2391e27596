//! The Markdown summary of a [`Report`]: one section per model and mode (metrics,
//! breakdowns, unresolved categories, attribution), the joint/independent tables, skipped
//! prediction lines and one row per prediction.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Metrics, Report, RATE_METRICS};
use crate::grade::{PredictionGrade, TargetGrade};

/// Render `report` as Markdown.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# taskc scoring report\n");
    let _ = write!(
        s,
        "Schema `{}` · {} predictions",
        report.schema,
        report.rows.len()
    );
    if let Some(t) = &report.generated_at {
        let _ = write!(s, " · generated {t}");
    }
    s.push_str("\n\nFailures a prediction can cause (its patch does not apply, a timeout, out of memory, a crashed runner, too much output, tampering) count as unsolved and are never excluded. Invalid results (infrastructure errors, missing results) count as not solved in every rate and are also counted apart.\n");
    for sum in &report.summaries {
        let _ = writeln!(s, "\n## {}\n", cell(&sum.label()));
        metrics_table(&mut s, &sum.metrics);
        breakdown(&mut s, "By kind", "kind", &sum.by_kind);
        let by_targets: BTreeMap<String, Metrics> = sum
            .by_targets
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        breakdown(
            &mut s,
            "By number of target repositories",
            "targets",
            &by_targets,
        );
        breakdown(&mut s, "By language family", "family", &sum.by_family);
        let _ = writeln!(
            s,
            "\n### Unsolved (valid) predictions\n\n| unresolved | count |\n|---|---:|"
        );
        for (k, v) in &sum.metrics.unresolved {
            let _ = writeln!(s, "| {k} | {v} |");
        }
        let _ = writeln!(s, "\n| attribution | count |\n|---|---:|");
        for (k, v) in &sum.metrics.attribution {
            let _ = writeln!(s, "| {k} | {v} |");
        }
        let _ = writeln!(
            s,
            "\n### Run failures\n\n| failure | predictions |\n|---|---:|"
        );
        for (k, v) in &sum.metrics.failures {
            let _ = writeln!(s, "| {k} | {v} |");
        }
    }
    for p in &report.paired {
        let _ = writeln!(
            s,
            "\n## Joint vs independent: {} ({} tasks)\n",
            cell(&p.model),
            p.tasks
        );
        let _ = writeln!(
            s,
            "| | independent solved | independent not solved |\n|---|---:|---:|\n| **joint solved** | {} | {} |\n| **joint not solved** | {} | {} |",
            p.table.both, p.table.only_joint, p.table.only_independent, p.table.neither
        );
        let _ = writeln!(
            s,
            "\nPairs with an invalid side: {}.\n\nPer repository: both resolved {}, only joint {}, only independent {}, neither {}; recovery (failing jointly, resolved independently) {} ({}).",
            p.invalid_pairs,
            p.repos.both,
            p.repos.only_joint,
            p.repos.only_independent,
            p.repos.neither,
            p.recovery.percent_text(),
            p.recovery.count_text()
        );
        if !p.unpaired.is_empty() {
            let _ = writeln!(
                s,
                "\nGraded in one mode only: {}.",
                cell(&p.unpaired.join(", "))
            );
        }
    }
    if !report.skipped.is_empty() {
        let _ = writeln!(s, "\n## Skipped prediction lines\n");
        for e in &report.skipped {
            let _ = writeln!(s, "- {}", cell(&e.to_string()));
        }
    }
    if !report.duplicates.is_empty() {
        let _ = writeln!(s, "\n## Duplicate prediction lines\n");
        for d in &report.duplicates {
            let _ = writeln!(s, "- {}", cell(&d.warning()));
        }
    }
    let _ = writeln!(
        s,
        "\n## Predictions\n\n| task | model | mode | status | targets | category | attribution | flags |\n|---|---|---|---|---|---|---|---|"
    );
    for r in &report.rows {
        row(&mut s, r);
    }
    run_logs(&mut s, report);
    regrade(&mut s, report);
    s
}

/// Every run's log, one link per target of every prediction (relative to the report's
/// folder); nothing when no row has a stored log.
fn run_logs(s: &mut String, report: &Report) {
    if report.rows.iter().all(|r| r.run_logs.is_empty()) {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Run logs\n\nThe test log of the run that tested each target (paths relative to this report).\n\n| task | model | mode | target | log |\n|---|---|---|---|---|"
    );
    for r in &report.rows {
        for (target, path) in &r.run_logs {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | [{}]({}) |",
                cell(&r.task),
                cell(&r.model),
                super::mode_str(r.mode),
                cell(target),
                cell(path),
                href(path)
            );
        }
    }
}

/// What `score --regrade` reused, and what it could not.
fn regrade(s: &mut String, report: &Report) {
    if report.regrade.is_empty() {
        return;
    }
    let reused = report.regrade.iter().filter(|r| r.reused()).count();
    let _ = writeln!(
        s,
        "\n## Regrade\n\nGraded from stored results against the current locks; no run executed. {reused} of {} runs reused.\n",
        report.regrade.len()
    );
    for r in &report.regrade {
        let _ = writeln!(s, "- {}", cell(&r.line()));
    }
}

/// A path as a link target: every byte but `A-Z a-z 0-9 / . _ - ~` percent-encoded.
pub(crate) fn href(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn metrics_table(s: &mut String, m: &Metrics) {
    let _ = writeln!(
        s,
        "{} predictions: {} solved, {} unsolved, {} invalid.\n\n| metric | value | count |\n|---|---:|---:|",
        m.predictions, m.solved, m.unsolved, m.invalid
    );
    for (name, label) in RATE_METRICS {
        if let Some(r) = m.rate(name) {
            let _ = writeln!(s, "| {label} | {} | {} |", r.percent_text(), r.count_text());
        }
    }
}

fn breakdown(s: &mut String, title: &str, key: &str, groups: &BTreeMap<String, Metrics>) {
    let _ = writeln!(
        s,
        "\n### {title}\n\n| {key} | predictions | solved | invalid | case success | repository success |\n|---|---:|---:|---:|---:|---:|"
    );
    for (k, m) in groups {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            cell(k),
            m.predictions,
            m.solved,
            m.invalid,
            m.case_success.percent_text(),
            m.repo_success.percent_text()
        );
    }
}

fn row(s: &mut String, r: &PredictionGrade) {
    let targets: Vec<String> = r
        .targets
        .iter()
        .map(|(name, t)| format!("{name}: {}", target_text(t)))
        .collect();
    let mut status = r.status.as_str().to_string();
    let reasons: Vec<&str> = r
        .invalid
        .iter()
        .chain(&r.failures)
        .map(String::as_str)
        .collect();
    if !reasons.is_empty() {
        status = format!("{status} ({})", reasons.join("; "));
    }
    let flags: Vec<String> = r.flags.iter().map(|f| f.text()).collect();
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} | {} | {} | {} | {} |",
        cell(&r.task),
        cell(&r.model),
        super::mode_str(r.mode),
        cell(&status),
        cell(&targets.join("; ")),
        r.unresolved.map_or("", |u| u.as_str()),
        r.attribution.map_or("", |a| a.as_str()),
        cell(&flags.join("; ")),
    );
}

fn target_text(t: &TargetGrade) -> String {
    let mut s = format!(
        "{} (F2P {}/{}, P2P {}/{}",
        t.outcome.as_str(),
        t.f2p.passed,
        t.f2p.total,
        t.p2p.passed,
        t.p2p.total
    );
    if !t.missing.is_empty() {
        let _ = write!(s, ", {} missing", t.missing.len());
    }
    if !t.edited {
        s.push_str(", untouched");
    }
    s.push(')');
    s
}

/// Text safe inside a Markdown table cell, a list item or a heading: whatever a model name,
/// a git error or a test id holds (raw HTML, links, code spans, pipes, line breaks) is shown
/// as text.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '\\' | '`' | '[' | ']' | '*' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => out.push(' '),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}
