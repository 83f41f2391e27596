//! `docs/diagnostics.md` explains every code: a `## E0200 unknown-field` heading each.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_compiler::Code;

#[test]
fn every_code_has_a_section_in_diagnostics_md() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
    let doc = std::fs::read_to_string(path).expect("read docs/diagnostics.md");
    let headings: Vec<&str> = doc.lines().filter(|l| l.starts_with("## ")).collect();
    let missing: Vec<String> = Code::ALL
        .iter()
        .map(|c| format!("## {} {}", c.as_str(), c.name()))
        .filter(|h| !headings.contains(&h.as_str()))
        .collect();
    assert!(missing.is_empty(), "docs/diagnostics.md lacks {missing:?}");
    let stray: Vec<&&str> = headings
        .iter()
        .filter(|h| {
            let code = h.trim_start_matches("## ").split(' ').next().unwrap_or("");
            code.len() == 5 && Code::from_code(code).is_none()
        })
        .collect();
    assert!(
        stray.is_empty(),
        "docs/diagnostics.md documents unknown codes {stray:?}"
    );
}
