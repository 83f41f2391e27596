//! Lowering hand-built tasks: snapshots of every plan kind, run counts, isolation of hidden
//! material, relaxations, determinism.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod plan_support;

use plan_support::*;
use taskc_compiler::lower::{lower_score, lower_verify, lower_workspace, LowerError, LowerOptions};
use taskc_compiler::model::VerifyStrategy;
use taskc_compiler::plan::{Expect, Plan, ScoreMode, Step, Verdict, WorkspaceMode};

fn opts() -> LowerOptions {
    LowerOptions::default()
}

#[test]
fn verify_joint_plan_snapshot() {
    let plan = lower_verify(&cookie_split(), &opts()).unwrap();
    insta::assert_snapshot!(plan.to_json_pretty());
}

#[test]
fn score_plans_snapshot() {
    let t = cookie_split();
    let joint = lower_score(&t, &opts(), ScoreMode::Joint).unwrap();
    let independent = lower_score(&t, &opts(), ScoreMode::Independent).unwrap();
    insta::assert_snapshot!(
        "score_joint",
        serde_json::to_string_pretty(&joint.score()).unwrap()
    );
    insta::assert_snapshot!(
        "score_independent",
        serde_json::to_string_pretty(&independent.score()).unwrap()
    );
}

#[test]
fn workspace_plans_snapshot() {
    let t = cookie_split();
    let joint = lower_workspace(&t, &opts(), WorkspaceMode::Joint).unwrap();
    let independent = lower_workspace(&t, &opts(), WorkspaceMode::Independent).unwrap();
    insta::assert_snapshot!(
        "workspace_joint",
        serde_json::to_string_pretty(&joint.workspace()).unwrap()
    );
    insta::assert_snapshot!(
        "workspace_independent",
        serde_json::to_string_pretty(&independent.workspace()).unwrap()
    );
    // A workspace plan carries the prompt and nothing hidden.
    assert_eq!(joint.blobs.len(), 1);
    assert!(joint.blobs.values().all(|b| b.starts_with("Split cookies")));
}

#[test]
fn joint_runs_are_deduplicated_by_the_uses_closure() {
    let plan = lower_verify(&cookie_split(), &opts()).unwrap();
    let v = plan.verify().unwrap();
    // proxy: 2^1 + 2 `uses` checks (gateway at gold), gateway (uses proxy): 2^2. Phase 1
    // holds base and closure-gold per target; the other four are narrowed in phase 2.
    assert_eq!(v.runs.len() + v.targeted.len(), 2 + 2 + 4);
    assert_eq!(v.runs.len(), 4);
    assert_eq!(v.uses_checks.len(), 2);
    assert!(v
        .uses_checks
        .iter()
        .all(|u| u.target == "proxy" && u.others == ["gateway"]));
    assert_eq!(v.configurations.len(), 4);
    let full = v.configurations.last().unwrap();
    assert_eq!(full.expected, Verdict::Pass);
    assert!(full.targets.values().all(|c| c.expected == Expect::Pass));
    assert!(v.configurations[..3]
        .iter()
        .all(|c| c.expected == Verdict::Fail));
    // {gateway} alone: proxy is decided by its base run, gateway by (gateway, {gateway}).
    let only_gateway = &v.configurations[2];
    assert_eq!(only_gateway.gold, vec!["gateway"]);
    let proxy_run = v
        .runs
        .iter()
        .find(|r| r.id == only_gateway.targets["proxy"].run)
        .unwrap();
    assert!(proxy_run.gold_applied.is_empty());
}

#[test]
fn exhaustive_runs_every_target_against_every_subset() {
    let o = LowerOptions {
        exhaustive: true,
        ..opts()
    };
    let plan = lower_verify(&cookie_split(), &o).unwrap();
    let v = plan.verify().cloned().unwrap();
    assert!(v.exhaustive);
    assert_eq!(v.runs.len(), 2 * 4);
}

#[test]
fn per_repo_runs_base_and_gold_per_target() {
    let mut t = cookie_split();
    t.verify = VerifyStrategy::PerRepo;
    let v = lower_verify(&t, &opts())
        .unwrap()
        .verify()
        .cloned()
        .unwrap();
    assert_eq!(v.runs.len(), 4);
    assert_eq!(v.configurations.len(), 2);
    assert!(v.configurations[0]
        .targets
        .values()
        .all(|c| c.expected == Expect::Fail));
    // gateway's gold run also applies the gold of proxy, which it uses.
    let g = &v.configurations[1].targets["gateway"].run;
    let run = v.runs.iter().find(|r| &r.id == g).unwrap();
    assert_eq!(run.gold_applied, vec!["gateway", "proxy"]);
}

#[test]
fn images_reference_no_blob_and_hold_no_hidden_text() {
    let t = cookie_split();
    for plan in [
        lower_verify(&t, &opts()).unwrap(),
        lower_score(&t, &opts(), ScoreMode::Joint).unwrap(),
        lower_workspace(&t, &opts(), WorkspaceMode::Independent).unwrap(),
    ] {
        let images = serde_json::to_string(&plan.images).unwrap();
        for (digest, text) in &plan.blobs {
            assert!(
                !images.contains(digest.as_str()),
                "image refers to blob {digest}"
            );
            let first_added = text
                .lines()
                .find(|l| l.starts_with('+') && !l.starts_with("+++"));
            if let Some(line) = first_added {
                assert!(
                    !images.contains(&line[1..]),
                    "image holds hidden text {line}"
                );
            }
        }
    }
}

#[test]
fn edits_are_applied_to_a_relaxed_blob_and_drops_listed() {
    let plan = lower_verify(&cookie_split(), &opts()).unwrap();
    let v = plan.verify().unwrap();
    let run = v.runs.iter().find(|r| r.under_test == "gateway").unwrap();
    let blob = run
        .steps
        .iter()
        .find_map(|s| match s {
            Step::ApplyTests { blob, .. } => Some(blob),
            _ => None,
        })
        .unwrap();
    let text = &plan.blobs[blob];
    assert!(text.contains("+    with pytest.raises(ValueError):\n"));
    assert!(!text.contains("cookie too large"));
    assert_eq!(run.test.dropped.len(), 1);
    assert_eq!(run.test.dropped[0].rule.as_str(), "unrequested");
    // The unrelaxed gateway test patch is not shipped; proxy's (unrelaxed) is.
    assert_eq!(plan.blobs.len(), 2 + 2);
}

#[test]
fn base_image_override_changes_the_environment_id_only_through_the_dockerfile() {
    let t = cookie_split();
    let a = lower_verify(&t, &opts()).unwrap();
    let b = lower_verify(
        &t,
        &LowerOptions {
            base_image_override: Some("registry.example/base:bookworm".to_string()),
            ..opts()
        },
    )
    .unwrap();
    assert!(b
        .images
        .environment
        .dockerfile
        .starts_with("FROM registry.example/base:bookworm\n"));
    assert_ne!(a.images.environment.id, b.images.environment.id);
    assert_ne!(a.images.task.id, b.images.task.id);
    assert_ne!(a.id, b.id);
}

#[test]
fn the_base_image_content_id_enters_every_image_and_run_id() {
    let t = cookie_split();
    let by_name = lower_verify(&t, &opts()).unwrap();
    let with = |id: &str| {
        lower_verify(
            &t,
            &LowerOptions {
                base_image_id: Some(id.to_string()),
                ..opts()
            },
        )
        .unwrap()
    };
    let a = with("sha256:aaaa");
    let rebuilt = with("sha256:bbbb");
    // Same Dockerfile (it names the base image by tag), different ids.
    assert_eq!(
        a.images.environment.dockerfile,
        rebuilt.images.environment.dockerfile
    );
    assert_ne!(a.images.environment.id, rebuilt.images.environment.id);
    assert_ne!(a.images.task.id, rebuilt.images.task.id);
    let runs = |p: &taskc_compiler::plan::Plan| -> Vec<String> {
        p.verify()
            .unwrap()
            .runs
            .iter()
            .map(|r| r.id.clone())
            .collect()
    };
    assert!(runs(&a).iter().all(|r| !runs(&rebuilt).contains(r)));
    assert_ne!(a.images.environment.id, by_name.images.environment.id);
    // Deterministic given the same base image; recorded in the plan.
    assert_eq!(a.to_json_pretty(), with("sha256:aaaa").to_json_pretty());
    assert_eq!(
        a.images.environment.base_image_id.as_deref(),
        Some("sha256:aaaa")
    );
    assert!(!by_name.to_json_pretty().contains("base_image_id"));
}

#[test]
fn lowering_is_byte_deterministic_across_working_directories_and_spec_paths() {
    let t = cookie_split();
    let first = lower_verify(&t, &opts()).unwrap().to_json_pretty();
    // A folder of its own: plans do name container paths under `/tmp` (the test user's
    // home in the task image's Dockerfile), never the host's working directory.
    struct Removed(std::path::PathBuf);
    impl Drop for Removed {
        fn drop(&mut self) {
            let _ = std::env::set_current_dir(std::env::temp_dir());
            let _ = std::fs::remove_dir(&self.0);
        }
    }
    let dir = std::env::temp_dir().join(format!("taskc-plan-cwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _removed = Removed(dir.clone());
    std::env::set_current_dir(&dir).unwrap();
    let mut moved = t.clone();
    moved.spec_path = "../elsewhere/cookie-split.task".to_string();
    let second = lower_verify(&moved, &opts()).unwrap().to_json_pretty();
    assert_eq!(first, second);
    assert!(!first.contains(dir.to_string_lossy().as_ref()));
    assert!(!first.contains("cookie-split.task"));
    // And the JSON reads back to the same plan.
    assert_eq!(
        serde_json::from_str::<Plan>(&first).unwrap(),
        lower_verify(&t, &opts()).unwrap()
    );
}

#[test]
fn ids_change_exactly_with_what_decides_the_outcome() {
    let t = cookie_split();
    let a = lower_verify(&t, &opts()).unwrap();
    // A new proxy gold patch: runs applying proxy gold change, the others do not.
    let mut u = t.clone();
    let gold = u.repos[0].gold.as_mut().unwrap();
    gold.text.push_str("+more = 1\n");
    let b = lower_verify(&u, &opts()).unwrap();
    assert_eq!(a.images.task.id, b.images.task.id);
    let (va, vb) = (a.verify().cloned().unwrap(), b.verify().cloned().unwrap());
    for (ra, rb) in va.runs.iter().zip(&vb.runs) {
        assert_eq!(
            ra.id == rb.id,
            !ra.gold_applied.contains(&"proxy".to_string())
        );
    }
}

#[test]
fn too_many_targets_is_an_error_not_an_explosion() {
    let t = dag_task(&vec![Vec::new(); 17], VerifyStrategy::Joint);
    let e = lower_verify(&t, &opts()).unwrap_err();
    assert!(matches!(e, LowerError::TooManyTargets { count: 17 }));
    assert!(e.to_string().contains("at most 16 targets"), "{e}");
}

#[test]
fn unknown_recipe_lists_the_known_ones() {
    let mut t = cookie_split();
    t.env.recipe = "cobol".to_string();
    let e = lower_verify(&t, &opts()).unwrap_err().to_string();
    assert!(
        e.contains("unknown recipe `cobol`") && e.contains("python"),
        "{e}"
    );
}

#[test]
fn the_task_images_dockerfile_is_lowered_into_the_plan() {
    let plan = lower_verify(&cookie_split(), &opts()).unwrap();
    insta::assert_snapshot!("task_image_dockerfile", plan.images.task.dockerfile);
}

#[test]
fn a_setup_command_changes_the_task_images_dockerfile_and_id_only() {
    let t = cookie_split();
    let a = lower_verify(&t, &opts()).unwrap();
    let mut u = t.clone();
    u.repos[0].setup.push("make fixtures".to_string());
    let b = lower_verify(&u, &opts()).unwrap();
    assert!(b
        .images
        .task
        .dockerfile
        .contains(" cd /work/proxy && bash -euo pipefail -c 'make fixtures'\n"));
    assert_ne!(a.images.task.dockerfile, b.images.task.dockerfile);
    assert_ne!(a.images.task.id, b.images.task.id);
    assert_eq!(a.images.environment, b.images.environment);
}
