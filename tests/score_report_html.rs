//! `taskc score --mode joint,independent` with the real binary (local backend): both modes
//! are scored, and the HTML report ranks the models with submitted/total at the top, lists
//! every failing target with its failing test names and the path of its run's log, and
//! holds the paired joint/independent table.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::root;

use std::process::Command;

#[test]
fn both_modes_a_ranking_failing_targets_with_logs_and_the_paired_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let preds = dir.path().join("preds.jsonl");
    // One model with the gold patches, one that submits nothing for cookie-split.
    let gold_proxy =
        std::fs::read_to_string(root().join("examples/cookie-split/gold/proxy.patch")).unwrap();
    let gold_gateway =
        std::fs::read_to_string(root().join("examples/cookie-split/gold/gateway.patch")).unwrap();
    let lines = [
        serde_json::json!({"task": "cookie-split", "model": "golden",
            "patches": {"proxy": gold_proxy, "gateway": gold_gateway}}),
        // Only the proxy half: gateway's tests fail.
        serde_json::json!({"task": "cookie-split", "model": "halfway",
            "patches": {"proxy": gold_proxy}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&preds, text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args([
            "score",
            "examples/cookie-split/cookie-split.task",
            "--predictions",
        ])
        .arg(&preds)
        .args([
            "--mode",
            "joint,independent",
            "--backend",
            "local",
            "--color",
            "never",
        ])
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let modes: Vec<&str> = report["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["mode"].as_str().unwrap())
        .collect();
    assert!(
        modes.contains(&"joint") && modes.contains(&"independent"),
        "{modes:?}"
    );
    // Tera escapes `/` in text as `&#x2F;`.
    let html = std::fs::read_to_string(out.join("report.html"))
        .unwrap()
        .replace("&#x2F;", "/");

    // The ranking comes before everything else, golden first, each 1 task of 1.
    let ranking = html.find("data-ranking").expect("a ranking table");
    assert!(ranking < html.find("Task vs repository success").unwrap());
    let golden = html.find("<td>golden</td>").unwrap();
    let halfway = html.find("<td>halfway</td>").unwrap();
    assert!(golden < halfway, "golden ranks first");
    assert!(
        html.contains("data-submitted=\"halfway · joint\">1/1<"),
        "{html}"
    );

    // Joint: halfway's gateway fails; its failing test is named and its log exists.
    let row = "data-failing=\"cookie-split · halfway · joint · gateway\"";
    let at = html
        .find(row)
        .unwrap_or_else(|| panic!("no failing row: {html}"));
    let tr = &html[at..at + html[at..].find("</tr>").unwrap()];
    assert!(
        tr.contains("tests/test_forwarding.py::test_split_headers_carry_every_cookie (F2P)"),
        "{tr}"
    );
    let log = tr
        .split("<code data-log>")
        .nth(1)
        .and_then(|s| s.split("</code>").next())
        .unwrap_or_else(|| panic!("no log in {tr}"));
    let log_text = std::fs::read_to_string(log).unwrap();
    assert!(
        log_text.contains("test_split_headers_carry_every_cookie"),
        "{log_text}"
    );
    assert!(
        !html.contains("data-failing=\"cookie-split · golden"),
        "golden passes"
    );

    // The paired joint/independent table, for both models.
    assert!(html.contains("data-paired=\"golden\"") && html.contains("data-paired=\"halfway\""));
}
