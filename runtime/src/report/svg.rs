//! Inline SVG charts for the HTML report, written as plain strings: horizontal bar charts
//! of percentages and the task × repository outcome matrix. No scripts, no external assets.

use std::fmt::Write;

/// Series colours, in order.
const PALETTE: &[&str] = &["#3366cc", "#ff9900", "#109618", "#990099", "#dc3912"];

/// One group of bars (e.g. one model · mode), each bar a named percentage.
#[derive(Debug, Clone)]
pub struct BarGroup {
    pub label: String,
    /// (series name, percentage or `None` when undefined).
    pub bars: Vec<(String, Option<f64>)>,
}

/// A matrix cell's colour class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    Pass,
    Fail,
    Invalid,
    NotATarget,
}

impl Cell {
    fn colour(self) -> &'static str {
        match self {
            Cell::Pass => "#2e9e44",
            Cell::Fail => "#d9453d",
            Cell::Invalid => "#f0b429",
            Cell::NotATarget => "#e6e6e6",
        }
    }

    /// `pass`, `fail`, `invalid` or `not-a-target`.
    pub fn as_str(self) -> &'static str {
        match self {
            Cell::Pass => "pass",
            Cell::Fail => "fail",
            Cell::Invalid => "invalid",
            Cell::NotATarget => "not-a-target",
        }
    }
}

/// Escape text for XML content and attribute values.
pub fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            _ => s.push(c),
        }
    }
    s
}

/// A horizontal bar chart of percentages (0–100), grouped, with a legend of `series`.
pub fn bars(title: &str, series: &[&str], groups: &[BarGroup]) -> String {
    let (label_w, plot_w, bar_h, gap) = (200.0, 360.0, 16.0, 4.0);
    let width = label_w + plot_w + 70.0;
    let legend_h = 26.0;
    let group_h = |g: &BarGroup| g.bars.len() as f64 * (bar_h + gap) + 10.0;
    let height = legend_h + groups.iter().map(group_h).sum::<f64>() + 24.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12"><title>{}</title>"#,
        esc(title)
    );
    let mut x = label_w;
    for (i, name) in series.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let _ = write!(
            s,
            r#"<rect x="{x}" y="6" width="12" height="12" fill="{c}"/><text x="{}" y="16">{}</text>"#,
            x + 16.0,
            esc(name)
        );
        x += 24.0 + 7.0 * name.chars().count() as f64;
    }
    // Axis: 0, 50, 100 %.
    let axis_y = height - 18.0;
    for pct in [0.0, 50.0, 100.0] {
        let ax = label_w + plot_w * pct / 100.0;
        let _ = write!(
            s,
            r##"<line x1="{ax}" y1="{legend_h}" x2="{ax}" y2="{axis_y}" stroke="#ccc"/><text x="{ax}" y="{}" text-anchor="middle" fill="#666">{pct}%</text>"##,
            axis_y + 14.0
        );
    }
    let mut y = legend_h;
    for g in groups {
        let mid = y + group_h(g) / 2.0 - 2.0;
        let _ = write!(
            s,
            r#"<text x="{}" y="{mid}" text-anchor="end">{}</text>"#,
            label_w - 8.0,
            esc(&g.label)
        );
        for (i, (name, value)) in g.bars.iter().enumerate() {
            let c = PALETTE[i % PALETTE.len()];
            let w = plot_w * value.unwrap_or(0.0).clamp(0.0, 100.0) / 100.0;
            let text = value.map_or("n/a".to_string(), |v| format!("{v:.2}%"));
            let _ = write!(
                s,
                r#"<rect x="{label_w}" y="{y}" width="{w:.1}" height="{bar_h}" fill="{c}"><title>{}: {}: {text}</title></rect><text x="{:.1}" y="{:.1}">{text}</text>"#,
                esc(&g.label),
                esc(name),
                label_w + w + 4.0,
                y + bar_h - 4.0
            );
            y += bar_h + gap;
        }
        y += 10.0;
    }
    s.push_str("</svg>");
    s
}

/// The outcome matrix: one row per `rows` label, one column per `cols` label.
pub fn matrix(title: &str, rows: &[String], cols: &[String], cells: &[Vec<Cell>]) -> String {
    let size = 22.0;
    let label_w = 12.0 + 6.5 * rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
    let head_h = 14.0 + 5.0 * cols.iter().map(|c| c.chars().count()).max().unwrap_or(4) as f64;
    let legend_h = 28.0;
    let width = (label_w + size * cols.len() as f64 + 40.0).max(440.0);
    let height = legend_h + head_h + size * rows.len() as f64 + 8.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12"><title>{}</title>"#,
        esc(title)
    );
    let mut x = 4.0;
    for c in [Cell::Pass, Cell::Fail, Cell::Invalid, Cell::NotATarget] {
        let _ = write!(
            s,
            r#"<rect x="{x}" y="6" width="12" height="12" fill="{}"/><text x="{}" y="16">{}</text>"#,
            c.colour(),
            x + 16.0,
            c.as_str()
        );
        x += 28.0 + 7.0 * c.as_str().len() as f64;
    }
    let top = legend_h + head_h;
    for (j, c) in cols.iter().enumerate() {
        let cx = label_w + size * j as f64 + size / 2.0;
        let _ = write!(
            s,
            r#"<text x="{cx:.1}" y="{:.1}" transform="rotate(-45 {cx:.1} {:.1})">{}</text>"#,
            top - 6.0,
            top - 6.0,
            esc(c)
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = top + size * i as f64;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_w - 6.0,
            y + size - 7.0,
            esc(r)
        );
        for (j, c) in cols.iter().enumerate() {
            let cell = cells
                .get(i)
                .and_then(|row| row.get(j))
                .copied()
                .unwrap_or(Cell::NotATarget);
            let _ = write!(
                s,
                r##"<rect x="{:.1}" y="{y:.1}" width="{}" height="{}" fill="{}" stroke="#fff" data-cell="{}"><title>{} / {}: {}</title></rect>"##,
                label_w + size * j as f64,
                size,
                size,
                cell.colour(),
                cell.as_str(),
                esc(r),
                esc(c),
                cell.as_str()
            );
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_closes() {
        let svg = bars(
            "t<1>",
            &["task"],
            &[BarGroup {
                label: "a & b".into(),
                bars: vec![("task".into(), Some(50.0))],
            }],
        );
        assert!(svg.contains("a &amp; b"));
        assert!(svg.contains("<title>t&lt;1&gt;</title>"));
        assert!(svg.ends_with("</svg>"));
        let m = matrix("m", &["r".into()], &["c".into()], &[vec![Cell::Invalid]]);
        assert!(m.contains(r#"data-cell="invalid""#));
    }
}
