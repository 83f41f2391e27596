//! Every data parameter of every stdlib recipe is written into the Dockerfile as one
//! shell-quoted word per item, whatever it holds: quotes, `$()`, backticks, `;`, `<`, `|`,
//! spaces, globs. The quoting is checked with a real `sh`, and the rendered Dockerfile keeps
//! its instructions (no value adds or splits a line). Values no quoting makes safe (line
//! breaks, a leading `-`) are `check` errors (E0705, in `check_base.rs`-style snapshots
//! below).
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use std::collections::BTreeMap;
use std::process::Command;

use plan_support::cookie_split;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::ParamValue;
use taskc_compiler::recipe::{recipes, ParamType};

const HOSTILE: &[&str] = &[
    "it's \"quoted\"",
    "$(touch /tmp/taskc-pwned)",
    "`id`",
    "a;b",
    "pytest<9",
    "x|y&z",
    "two words",
    "*",
    "back\\slash",
    "tab\there",
];

fn render(recipe: &str, params: BTreeMap<String, ParamValue>) -> Result<String, String> {
    let mut t = cookie_split();
    t.env.recipe = recipe.to_string();
    t.env.params = params;
    lower_verify(&t, &LowerOptions::default())
        .map(|p| p.images.environment.dockerfile)
        .map_err(|e| e.to_string())
}

/// What a real POSIX shell makes of `word`: the words it expands to.
fn shell_words(word: &str) -> Vec<String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("for w in {word}; do printf '%s\\0' \"$w\"; done"))
        .output()
        .expect("run sh");
    assert!(out.status.success(), "sh failed on {word}");
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `value` single-quoted as a shell word (what the recipes must write).
fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// Whether `line` holds `word` as a whole shell word (after a space or `=`, before a
/// space, `;` or the end).
fn holds_word(line: &str, word: &str) -> bool {
    line.match_indices(word).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + word.len()..].chars().next();
        matches!(before, Some(' ' | '=')) && matches!(after, None | Some(' ' | ';'))
    })
}

#[test]
fn hostile_values_render_as_one_safe_word_in_every_recipe() {
    let mut checked = 0;
    let mut shown = String::new();
    for r in recipes() {
        // The `dockerfile` recipe has no data parameters: its file and context are code.
        if r.name == "dockerfile" {
            continue;
        }
        let mut defaults = BTreeMap::new();
        if r.name == "generic" {
            defaults.insert(
                "dockerfile".to_string(),
                ParamValue::Str("RUN true".to_string()),
            );
        }
        for decl in r.params.iter().filter(|d| !d.code) {
            let values: Vec<ParamValue> = match decl.ty {
                ParamType::String => HOSTILE
                    .iter()
                    .map(|h| ParamValue::Str(h.to_string()))
                    .collect(),
                ParamType::List => HOSTILE
                    .iter()
                    .map(|h| ParamValue::List(vec![h.to_string(), "plain".to_string()]))
                    .collect(),
                // File contents and build contexts are code, not words (the `dockerfile` recipe).
                ParamType::Int
                | ParamType::Bool
                | ParamType::File
                | ParamType::Dir
                | ParamType::Contexts => continue,
            };
            for v in values {
                // The same shape with harmless words: the instructions to compare with.
                let plain = match &v {
                    ParamValue::List(l) => ParamValue::List(vec!["plain".to_string(); l.len()]),
                    _ => ParamValue::Str("plain".to_string()),
                };
                let mut params = defaults.clone();
                params.insert(decl.name.clone(), plain);
                let benign = render(&r.name, params).expect("plain values render");
                let mut params = defaults.clone();
                params.insert(decl.name.clone(), v.clone());
                let dockerfile = render(&r.name, params)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", r.name, decl.name));
                assert_eq!(
                    dockerfile.lines().count(),
                    benign.lines().count(),
                    "{} {}: instructions changed:\n{dockerfile}",
                    r.name,
                    decl.name
                );
                let hostile = match &v {
                    ParamValue::Str(s) => s.clone(),
                    ParamValue::List(l) => l[0].clone(),
                    _ => unreachable!(),
                };
                let word = quoted(&hostile);
                // A real shell reads the written word back as the value, whole.
                assert_eq!(shell_words(&word), vec![hostile.clone()], "{word}");
                let line = dockerfile
                    .lines()
                    .find(|l| holds_word(l, &word))
                    .unwrap_or_else(|| {
                        panic!(
                            "{} {}: {hostile:?} is not one shell word in:\n{dockerfile}",
                            r.name, decl.name
                        )
                    });
                if hostile == "pytest<9" {
                    shown.push_str(&format!("{} {} = {v:?}\n  {line}\n", r.name, decl.name));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "only {checked} cases");
    insta::assert_snapshot!(shown);
}

#[test]
fn the_python_venv_is_isolated_unless_asked() {
    let isolated = render("python", BTreeMap::new()).expect("renders");
    assert!(
        isolated.contains("RUN python3 -m venv /opt/venv\n"),
        "{isolated}"
    );
    let mut params = BTreeMap::new();
    params.insert("system-site-packages".to_string(), ParamValue::Bool(true));
    let shared = render("python", params).expect("renders");
    assert!(
        shared.contains("RUN python3 -m venv --system-site-packages /opt/venv\n"),
        "{shared}"
    );
}

/// `packages ["pytest…"]` must install pytest from the index: Debian's pytest (linked into
/// the venv for the offline default) is not visible while pip resolves them, so it cannot
/// satisfy the requirement; it is linked afterwards only if the packages brought none.
#[test]
fn packages_naming_pytest_are_not_satisfied_by_debians_pytest() {
    let link = "/opt/taskc-pytest";
    let offline = render("python", BTreeMap::new()).expect("renders");
    assert!(
        offline
            .lines()
            .any(|l| l.starts_with("RUN d=/opt/taskc-pytest;")),
        "without packages the base image's pytest is linked:\n{offline}"
    );
    let mut params = BTreeMap::new();
    params.insert(
        "packages".to_string(),
        ParamValue::List(vec!["pytest".into(), "packaging".into()]),
    );
    let online = render("python", params).expect("renders");
    let lines: Vec<&str> = online.lines().collect();
    let pip = lines
        .iter()
        .position(|l| {
            l.starts_with("RUN ") && l.contains("uv pip install ") && holds_word(l, "pytest")
        })
        .unwrap_or_else(|| panic!("no install of pytest:\n{online}"));
    // Every requirement layer links Debian's pytest at its end (so that the last one leaves
    // it linked without a step of its own): each first removes the link an earlier layer
    // made, installs, and links only if the requirements brought no pytest.
    let linked: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("ln -s"))
        .collect();
    assert!(
        !linked.is_empty(),
        "Debian's pytest is never linked:\n{online}"
    );
    assert!(
        linked.iter().all(|&i| i >= pip),
        "Debian's pytest is visible to pip before it installs `packages`:\n{online}"
    );
    for &i in &linked {
        let line = lines[i];
        let install = line.find("uv pip install ").unwrap_or(usize::MAX);
        let unlink = line
            .find(&format!("rm -rf {link} "))
            .unwrap_or_else(|| panic!("a layer keeps an earlier layer's link:\n{line}"));
        let guard = line
            .find("if python -c 'import pytest'")
            .unwrap_or_else(|| panic!("linked even when the packages brought one:\n{line}"));
        let ln = line.find("ln -s").unwrap_or(0);
        assert!(
            unlink < install && install < guard && guard < ln,
            "unlink, install, then link if no pytest came:\n{line}"
        );
    }
}
