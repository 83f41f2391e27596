//! The self-contained HTML report: one file, inline CSS and inline SVG charts (task vs
//! repository success, per-kind success, the task × repository outcome matrix), the paired
//! joint/independent table and every prediction. No scripts, no external assets.
//!
//! Every rate is printed in an element carrying `data-summary="<model> · <mode>"` and
//! `data-metric="<name>"` whose text is the JSON report's `percent` (or `n/a`), so a test
//! can check the page against the JSON.

use serde::Serialize;

use super::svg::{self, BarGroup, Cell};
use super::{Metrics, Report, RATE_METRICS};
use crate::grade::{PredictionGrade, TargetOutcome};

const TEMPLATE: &str = include_str!("../../templates/report.html.tera");

/// Why the HTML report could not be rendered (a bug in the template, not in the input).
#[derive(Debug, thiserror::Error)]
#[error("cannot render the HTML report: {0}")]
pub struct HtmlError(String);

#[derive(Serialize)]
struct View {
    schema: String,
    generated_at: Option<String>,
    predictions: usize,
    summaries: Vec<SummaryView>,
    success_svg: String,
    kind_svg: String,
    matrix_svg: String,
    paired: Vec<PairedView>,
    skipped: Vec<String>,
    duplicates: Vec<String>,
    rows: Vec<RowView>,
    /// Models ranked by task success, with submitted/total (see `leaderboard`).
    ranking: Vec<super::leaderboard::Rank>,
    /// Every target that did not pass: its failing tests and the run's log.
    failing: Vec<FailingView>,
    /// Every target of every prediction: the link to its run's test log.
    run_logs: Vec<RunLogView>,
    /// `score --regrade`: one line per prediction and run.
    regrade: Vec<String>,
}

/// The log of the run that tested one target of one prediction.
#[derive(Serialize)]
struct RunLogView {
    task: String,
    model: String,
    mode: String,
    target: String,
    /// As `report.json` gives it: relative to the report's folder.
    path: String,
    /// `path` percent-encoded.
    href: String,
}

/// A target of one prediction that did not pass.
#[derive(Serialize)]
struct FailingView {
    task: String,
    model: String,
    mode: String,
    target: String,
    outcome: String,
    /// Failing F2P/P2P tests, then the oracle tests the run did not report.
    tests: Vec<String>,
    /// Why the run failed (`patch-does-not-apply`, …), if it did.
    failure: String,
    /// Path of the run's log, or empty when unknown.
    log: String,
    /// The link to the log, relative to the report (empty when unknown).
    href: String,
}

#[derive(Serialize)]
struct SummaryView {
    label: String,
    predictions: usize,
    solved: usize,
    unsolved: usize,
    invalid: usize,
    rates: Vec<RateView>,
    groups: Vec<GroupTable>,
    categories: Vec<CategoryView>,
    /// Predictions per run-failure kind.
    failures: Vec<CategoryView>,
}

#[derive(Serialize)]
struct CategoryView {
    name: String,
    count: usize,
}

#[derive(Serialize)]
struct RateView {
    name: String,
    label: String,
    value: String,
    count: String,
}

#[derive(Serialize)]
struct GroupTable {
    title: String,
    key: String,
    rows: Vec<GroupRow>,
}

#[derive(Serialize)]
struct GroupRow {
    name: String,
    predictions: usize,
    solved: usize,
    invalid: usize,
    case_success: String,
    repo_success: String,
}

#[derive(Serialize)]
struct PairedView {
    model: String,
    tasks: usize,
    both: usize,
    only_joint: usize,
    only_independent: usize,
    neither: usize,
    invalid_pairs: usize,
    repos_both: usize,
    repos_only_joint: usize,
    repos_only_independent: usize,
    repos_neither: usize,
    recovery: String,
    recovery_count: String,
    unpaired: String,
}

#[derive(Serialize)]
struct RowView {
    task: String,
    model: String,
    mode: String,
    status: String,
    targets: Vec<TargetView>,
    category: String,
    attribution: String,
    invalid: String,
    /// Failures the prediction caused (patch does not apply, timeout, tampered…).
    failures: String,
    /// Static flags: files that could rig a run, with the rule (`grade::flags`).
    flags: Vec<String>,
}

#[derive(Serialize)]
struct TargetView {
    name: String,
    outcome: String,
    detail: String,
}

/// Render `report` as one self-contained HTML page.
pub fn render(report: &Report) -> Result<String, HtmlError> {
    let view = view(report);
    let ctx = tera::Context::from_serialize(&view).map_err(|e| HtmlError(e.to_string()))?;
    tera::Tera::one_off(TEMPLATE, &ctx, true).map_err(|e| HtmlError(error_chain(&e)))
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        s.push_str(": ");
        s.push_str(&x.to_string());
        src = x.source();
    }
    s
}

fn view(report: &Report) -> View {
    let groups: Vec<BarGroup> = report
        .summaries
        .iter()
        .map(|s| BarGroup {
            label: s.label(),
            bars: vec![
                ("task success".into(), s.metrics.case_success.percent),
                ("repository success".into(), s.metrics.repo_success.percent),
            ],
        })
        .collect();
    let success_svg = svg::bars(
        "Task vs repository success",
        &["task success", "repository success"],
        &groups,
    );
    let mut kinds: Vec<&String> = report
        .summaries
        .iter()
        .flat_map(|s| s.by_kind.keys())
        .collect();
    kinds.sort();
    kinds.dedup();
    let kind_names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    let kind_groups: Vec<BarGroup> = report
        .summaries
        .iter()
        .map(|s| BarGroup {
            label: s.label(),
            bars: kinds
                .iter()
                .map(|k| {
                    (
                        k.to_string(),
                        s.by_kind.get(*k).and_then(|m| m.case_success.percent),
                    )
                })
                .collect(),
        })
        .collect();
    let kind_svg = svg::bars("Task success by kind", &kind_names, &kind_groups);
    let cols = report.target_names();
    let row_labels: Vec<String> = report.rows.iter().map(row_label).collect();
    let cells: Vec<Vec<Cell>> = report
        .rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|c| match r.targets.get(c).map(|t| t.outcome) {
                    Some(TargetOutcome::Pass) => Cell::Pass,
                    Some(TargetOutcome::Fail) => Cell::Fail,
                    Some(TargetOutcome::Invalid) => Cell::Invalid,
                    None => Cell::NotATarget,
                })
                .collect()
        })
        .collect();
    let matrix_svg = svg::matrix("Task × repository outcomes", &row_labels, &cols, &cells);
    View {
        schema: report.schema.clone(),
        generated_at: report.generated_at.clone(),
        predictions: report.rows.len(),
        summaries: report
            .summaries
            .iter()
            .map(|s| {
                let by_targets = s
                    .by_targets
                    .iter()
                    .map(|(k, m)| group_row(&k.to_string(), m))
                    .collect();
                SummaryView {
                    label: s.label(),
                    predictions: s.metrics.predictions,
                    solved: s.metrics.solved,
                    unsolved: s.metrics.unsolved,
                    invalid: s.metrics.invalid,
                    rates: RATE_METRICS
                        .iter()
                        .filter_map(|(name, label)| {
                            let r = s.metrics.rate(name)?;
                            Some(RateView {
                                name: name.to_string(),
                                label: label.to_string(),
                                value: r.value_text(),
                                count: r.count_text(),
                            })
                        })
                        .collect(),
                    groups: vec![
                        table("By kind", "kind", &s.by_kind),
                        GroupTable {
                            title: "By number of target repositories".into(),
                            key: "targets".into(),
                            rows: by_targets,
                        },
                        table("By language family", "family", &s.by_family),
                    ],
                    categories: s
                        .metrics
                        .unresolved
                        .iter()
                        .chain(&s.metrics.attribution)
                        .map(|(k, v)| CategoryView {
                            name: k.clone(),
                            count: *v,
                        })
                        .collect(),
                    failures: s
                        .metrics
                        .failures
                        .iter()
                        .map(|(k, v)| CategoryView {
                            name: k.clone(),
                            count: *v,
                        })
                        .collect(),
                }
            })
            .collect(),
        success_svg,
        kind_svg,
        matrix_svg,
        paired: report
            .paired
            .iter()
            .map(|p| PairedView {
                model: p.model.clone(),
                tasks: p.tasks,
                both: p.table.both,
                only_joint: p.table.only_joint,
                only_independent: p.table.only_independent,
                neither: p.table.neither,
                invalid_pairs: p.invalid_pairs,
                repos_both: p.repos.both,
                repos_only_joint: p.repos.only_joint,
                repos_only_independent: p.repos.only_independent,
                repos_neither: p.repos.neither,
                recovery: p.recovery.value_text(),
                recovery_count: p.recovery.count_text(),
                unpaired: p.unpaired.join(", "),
            })
            .collect(),
        skipped: report.skipped.iter().map(|e| e.to_string()).collect(),
        duplicates: report.duplicates.iter().map(|d| d.warning()).collect(),
        rows: report.rows.iter().map(row_view).collect(),
        ranking: super::leaderboard::ranking(report),
        failing: failing_targets(report),
        run_logs: report
            .rows
            .iter()
            .flat_map(|r| {
                r.run_logs.iter().map(|(target, path)| RunLogView {
                    task: r.task.clone(),
                    model: r.model.clone(),
                    mode: super::mode_str(r.mode).into(),
                    target: target.clone(),
                    path: path.clone(),
                    href: super::markdown::href(path),
                })
            })
            .collect(),
        regrade: report.regrade.iter().map(|r| r.line()).collect(),
    }
}

/// Every target of every prediction that did not pass, in row order.
fn failing_targets(report: &Report) -> Vec<FailingView> {
    let mut out = Vec::new();
    for r in &report.rows {
        for (name, t) in &r.targets {
            if t.resolved() {
                continue;
            }
            let tests = t
                .failed_f2p
                .iter()
                .map(|x| format!("{x} (F2P)"))
                .chain(t.failed_p2p.iter().map(|x| format!("{x} (P2P)")))
                .chain(t.missing.iter().map(|x| format!("{x} (not reported)")))
                .collect();
            out.push(FailingView {
                task: r.task.clone(),
                model: r.model.clone(),
                mode: super::mode_str(r.mode).into(),
                target: name.clone(),
                outcome: t.outcome.as_str().into(),
                tests,
                failure: t
                    .failure
                    .as_ref()
                    .map(|f| f.to_string())
                    .unwrap_or_default(),
                log: r.logs.get(name).cloned().unwrap_or_default(),
                href: r
                    .run_logs
                    .get(name)
                    .map(|p| super::markdown::href(p))
                    .unwrap_or_default(),
            });
        }
    }
    out
}

fn row_label(r: &PredictionGrade) -> String {
    format!("{} · {} · {}", r.task, r.model, super::mode_str(r.mode))
}

fn table(
    title: &str,
    key: &str,
    groups: &std::collections::BTreeMap<String, Metrics>,
) -> GroupTable {
    GroupTable {
        title: title.into(),
        key: key.into(),
        rows: groups.iter().map(|(k, m)| group_row(k, m)).collect(),
    }
}

fn group_row(name: &str, m: &Metrics) -> GroupRow {
    GroupRow {
        name: name.into(),
        predictions: m.predictions,
        solved: m.solved,
        invalid: m.invalid,
        case_success: m.case_success.percent_text(),
        repo_success: m.repo_success.percent_text(),
    }
}

fn row_view(r: &PredictionGrade) -> RowView {
    RowView {
        task: r.task.clone(),
        model: r.model.clone(),
        mode: super::mode_str(r.mode).into(),
        status: r.status.as_str().into(),
        targets: r
            .targets
            .iter()
            .map(|(name, t)| {
                let mut detail = format!(
                    "F2P {}/{} · P2P {}/{}",
                    t.f2p.passed, t.f2p.total, t.p2p.passed, t.p2p.total
                );
                if !t.missing.is_empty() {
                    detail.push_str(&format!(" · {} missing", t.missing.len()));
                }
                if !t.edited {
                    detail.push_str(" · untouched");
                }
                TargetView {
                    name: name.clone(),
                    outcome: t.outcome.as_str().into(),
                    detail,
                }
            })
            .collect(),
        category: r.unresolved.map_or("", |u| u.as_str()).into(),
        attribution: r.attribution.map_or("", |a| a.as_str()).into(),
        invalid: r.invalid.join("; "),
        failures: r.failures.join("; "),
        flags: r.flags.iter().map(|f| f.text()).collect(),
    }
}
