//! Named build contexts (`contexts { … }` of `env dockerfile`, `docs/language.md`): each
//! diagnostic as a snapshot of the spec, its Dockerfile and what `check` says (E0205, E1910,
//! E1911, E1912, W1910, W1911), and a valid spec's typed contexts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;
mod contexts_support;

use contexts_support::{GOLD, VALID};
use taskc_compiler::model::{ContextSource, ParamValue};
use taskc_compiler::Code;

const DOCKERFILE: &str = "\
FROM golang:1.26-bookworm AS build
COPY --from=src go.mod /src/go.mod
COPY --from=task_ctx run.sh /opt/run.sh
FROM dep_0
COPY --from=build /src /src
";

fn check(contexts: &str, dockerfile: &str) -> (taskc_compiler::check::Checked, String) {
    contexts_support::check(
        contexts,
        &contexts_support::files(dockerfile, "echo run\n", "module api\n", GOLD),
    )
}

fn codes(c: &taskc_compiler::check::Checked) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn a_folder_an_image_and_a_repository_are_typed_contexts() {
    let (checked, out) = check(VALID, DOCKERFILE);
    assert!(checked.diagnostics.is_empty(), "{out}");
    let task = checked.task.expect(&out);
    let Some(ParamValue::Contexts(c)) = task.env.params.get("contexts") else {
        panic!("no contexts: {:?}", task.env.params);
    };
    let kinds: Vec<(&str, &ContextSource)> =
        c.iter().map(|c| (c.name.as_str(), &c.source)).collect();
    assert!(
        matches!(kinds[0], ("task_ctx", ContextSource::Dir { path, .. }) if path == "env/task_ctx")
    );
    assert_eq!(
        kinds[1],
        (
            "dep_0",
            &ContextSource::Image("ecosyncbench/deps/api:1".into())
        )
    );
    assert_eq!(kinds[2], ("src", &ContextSource::Repo("api".into())));
}

#[test]
fn e0205_a_repository_context_names_no_repository() {
    let (checked, out) = check(&VALID.replace("repo(api)", "repo(apj)"), DOCKERFILE);
    insta::assert_snapshot!("contexts_e0205", out);
    assert_eq!(codes(&checked), vec![Code::UnknownRepository], "{out}");
}

#[test]
fn e1910_two_contexts_share_a_name() {
    let twice = format!("{VALID}\n      SRC dir(\"env/task_ctx\")");
    let (checked, out) = check(&twice, DOCKERFILE);
    insta::assert_snapshot!("contexts_e1910", out);
    assert_eq!(codes(&checked), vec![Code::DuplicateContext], "{out}");
}

#[test]
fn e1911_a_context_has_a_stage_name() {
    let (checked, out) = check(
        &format!("{VALID}\n      build dir(\"env/task_ctx\")"),
        DOCKERFILE,
    );
    insta::assert_snapshot!("contexts_e1911", out);
    // A context a stage shadows is never read either.
    assert_eq!(
        codes(&checked),
        vec![Code::ContextIsStage, Code::UnusedContext],
        "{out}"
    );
}

#[test]
fn e1912_a_context_is_none_of_the_three() {
    let bad = r#"      task_ctx dir("env/task_ctx")
      dep_0 image("")
      src file("env/Dockerfile")
      other "repos/api"
      scratch dir("env/task_ctx")"#;
    let (checked, out) = check(bad, DOCKERFILE);
    insta::assert_snapshot!("contexts_e1912", out);
    assert_eq!(
        codes(&checked),
        vec![
            Code::InvalidContext,
            Code::InvalidContext,
            Code::InvalidContext,
            Code::InvalidContext
        ],
        "{out}"
    );
}

#[test]
fn w1910_a_from_naming_neither_stage_nor_context_and_w1911_an_unused_context() {
    let df = DOCKERFILE.replace("--from=src", "--from=srcs");
    let (checked, out) = check(VALID, &df);
    insta::assert_snapshot!("contexts_w1910_w1911", out);
    assert_eq!(
        codes(&checked),
        vec![Code::UnusedContext, Code::UnknownFromName],
        "{out}"
    );
    // Warnings: the task still checks.
    assert!(checked.task.is_some());
}

#[test]
fn w1910_also_without_any_contexts_declared() {
    // A Dockerfile copying from WideSWE's harness context with no `contexts` at all.
    let spec = contexts_support::SPEC.replace("    contexts {\n{contexts}\n    }\n", "");
    assert!(!spec.contains("contexts {"), "{spec}");
    let (checked, out) = check_support::check_and_render(
        &spec,
        &contexts_support::files(
            "FROM taskc/base:bookworm\nCOPY --from=task_ctx /repo_envs.tsv /opt/\n",
            "echo run\n",
            "module api\n",
            GOLD,
        ),
    );
    insta::assert_snapshot!("contexts_w1910_no_contexts", out);
    assert_eq!(codes(&checked), vec![Code::UnknownFromName], "{out}");
}
