//! The HTML report rendered in headless Chromium: the page loads, and every figure on it
//! (each rate in an element with `data-summary` and `data-metric`, the paired table) equals
//! the JSON report's. Chromium is required (Debian's `chromium` package; scripts/setup.sh
//! installs it): without it this test fails, it does not skip.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "score_fixtures.rs"]
mod fixtures;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use taskc_runtime::report::{html, Report, RATE_METRICS};

fn chromium() -> String {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        let ok = Command::new(name)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return name.to_string();
        }
    }
    panic!("headless Chromium is missing: run scripts/setup.sh (it installs Debian's `chromium` package)");
}

/// Run chromium headless with `args` and return its stdout (killed after 120 s).
fn run_chromium(profile: &Path, args: &[String]) -> String {
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let out = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().expect("wait chromium").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().expect("read chromium output")
}

/// The text of the element carrying exactly the attributes `attrs` (in that order).
fn texts_by<'a>(dom: &'a str, attr: &str) -> Vec<(&'a str, &'a str)> {
    // `<tag … attr="value">text<`, attribute values and texts free of `<` and `"`.
    let needle = format!("{attr}=\"");
    let mut out = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find(&needle) {
        let after = &rest[i + needle.len()..];
        let Some(q) = after.find('"') else { break };
        let value = &after[..q];
        let tail = &after[q..];
        let (Some(gt), Some(lt)) = (tail.find('>'), tail.find('<')) else {
            break;
        };
        if gt < lt {
            out.push((value, tail[gt + 1..lt].trim()));
        }
        rest = &after[q..];
    }
    out
}

#[test]
fn html_report_renders_in_chromium_with_the_json_figures() {
    let report = Report::new(fixtures::all_grades(), vec![], None);
    let json: serde_json::Value = serde_json::from_str(&report.to_json_pretty()).unwrap();
    let page = html::render(&report).unwrap();
    assert!(!page.contains("<script"), "no scripts");
    for external in ["src=", "href=", "<link", "url("] {
        assert!(
            !page.contains(external),
            "no external assets: found `{external}`"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, &page).unwrap();
    let url = format!("file://{}", file.display());
    let dom = run_chromium(
        &dir.path().join("profile"),
        &["--dump-dom".into(), url.clone()],
    );
    assert!(
        dom.contains("taskc scoring report"),
        "chromium did not render the page:\n{dom}"
    );

    // Every rate of every summary, as the page shows it, equals the JSON report's.
    let re = regex::Regex::new(r#"data-summary="([^"]*)" data-metric="([^"]*)">([^<]*)<"#).unwrap();
    let shown: Vec<(String, String, String)> = re
        .captures_iter(&dom)
        .map(|c| (c[1].to_string(), c[2].to_string(), c[3].trim().to_string()))
        .collect();
    assert_eq!(shown.len(), 5 * RATE_METRICS.len(), "{shown:?}");
    let mut checked = 0;
    for s in json["summaries"].as_array().unwrap() {
        let label = format!(
            "{} · {}",
            s["model"].as_str().unwrap(),
            s["mode"].as_str().unwrap()
        );
        for (name, _) in RATE_METRICS {
            let expected = &s["metrics"][name]["percent"];
            let texts: Vec<&str> = shown
                .iter()
                .filter(|(sum, m, _)| m == name && *sum == label)
                .map(|(_, _, t)| t.as_str())
                .collect();
            assert_eq!(texts.len(), 1, "{label} {name}: {texts:?}");
            match expected.as_f64() {
                Some(v) => assert_eq!(texts[0].parse::<f64>().ok(), Some(v), "{label} {name}"),
                None => assert_eq!(texts[0], "n/a", "{label} {name}"),
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 5 * RATE_METRICS.len());

    // The paired table of each model.
    let pairs = texts_by(&dom, "data-pair");
    let mut expected = Vec::new();
    for p in json["paired"].as_array().unwrap() {
        for k in ["both", "only_joint", "only_independent", "neither"] {
            expected.push((k.to_string(), p["table"][k].as_u64().unwrap().to_string()));
        }
    }
    let shown: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(shown, expected);

    // Three charts, and the matrix has one cell per row × target repository.
    assert_eq!(dom.matches("<svg").count(), 3);
    let cells = dom.matches("data-cell=\"").count();
    assert_eq!(cells, report.rows.len() * report.target_names().len());
    assert!(dom.contains("data-cell=\"invalid\"") && dom.contains("data-cell=\"not-a-target\""));

    // A screenshot, kept for a human to look at.
    let png = dir.path().join("report.png");
    run_chromium(
        &dir.path().join("profile"),
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,2400".into(),
            url,
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote no screenshot");
    assert!(bytes.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html.png");
    std::fs::write(&keep, &bytes).unwrap();
    std::fs::write(keep.with_extension("html"), &page).unwrap();
}
