//! `taskc import wideswe` on a checkout the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-contexts): a deps recipe that copies the repository's
//! `package.json` and `package-lock.json` from its build context (`COPY
//! ${ECOSYNC_REPO_PATH}/…`) now reads them from a named context that is the repository at its
//! base commit (`contexts { repo-lib repo(lib) }`, `COPY --from=repo-lib …`), so the deps
//! stage builds as WideSWE builds it; the W1108 "build fails until the file is provided"
//! stays only for a source no repository explains. The specs check, and the plan holds the
//! repository's context node.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

#[allow(dead_code)]
mod common;
use common::wideswe::import_fixture;

const BY_NAME: &str = "demo_app_lib_aaaaaaaaaaaa";
const BY_COMPOSE: &str = "demo_app_lib_bbbbbbbbbbbb";
const OWN: &str = "demo_app_lib_cccccccccccc";

fn taskc(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn a_deps_recipe_copying_a_repository_reads_it_as_a_named_context() {
    let i = import_fixture("wideswe-contexts", &[]);
    assert_eq!(i.code, Some(0), "{}", i.stderr);

    // Built from the compose file: `ECOSYNC_REPO_PATH: repos/demo/lib` is lib's local_path.
    let spec = i.spec(BY_COMPOSE);
    assert!(
        spec.contains("    contexts {\n      repo-lib repo(lib)\n    }\n"),
        "{spec}"
    );
    let df = i.read(&format!("out/{BY_COMPOSE}/environment/Dockerfile"));
    assert!(
        df.contains("COPY --from=repo-lib package.json package-lock.json ./\n"),
        "{df}"
    );
    // Named by its image only: no build arguments, the profile's repository (said so).
    let spec = i.spec(BY_NAME);
    assert!(
        spec.contains("    contexts {\n      repo-app repo(app)\n    }\n"),
        "{spec}"
    );
    let df = i.read(&format!("out/{BY_NAME}/environment/Dockerfile"));
    assert!(
        df.contains("COPY --from=repo-app package.json package-lock.json ./\n"),
        "{df}"
    );
    let assumed = i.notes(|n| n.contains("taken to be the repository"));
    assert_eq!(assumed.len(), 2, "{assumed:#?}");
    assert!(assumed.iter().all(|n| n.contains("`app`")), "{assumed:#?}");
    // The case's own Dockerfile (built with the workspace as its context): a source under a
    // repository's `local_path` reads that repository, `${ECOSYNC_REPO_PATH}/…` the
    // profile's; the runner script of the case's folder stays a note.
    let spec = i.spec(OWN);
    assert!(
        spec.contains(
            "    contexts {\n      repo-app repo(app)\n      repo-lib repo(lib)\n    }\n"
        ),
        "{spec}"
    );
    let df = i.read(&format!("out/{OWN}/environment/Dockerfile"));
    assert!(
        df.contains("COPY --from=repo-app package.json package-lock.json ./\n"),
        "{df}"
    );
    assert!(
        df.contains("COPY --from=repo-lib package.json /opt/ecosync/lib-package.json\n"),
        "{df}"
    );
    assert!(
        df.contains("COPY run-tests.sh /opt/ecosync/run-tests.sh\n"),
        "{df}"
    );
    assert_eq!(
        i.notes(|n| n.contains("app-npm.Dockerfile` copies files from a build context"))
            .len(),
        1,
        "{}",
        i.stderr
    );
    // What no repository explains stays a note naming it; the repository's files do not.
    let missing = i.notes(|n| n.contains("from its build context, which is no repository"));
    assert_eq!(missing.len(), 2, "{missing:#?}");
    assert!(
        missing.iter().all(|n| n.contains("`npm-retry.sh`")),
        "{missing:#?}"
    );
    assert!(
        i.notes(|n| n.contains("package.json") && n.contains("build fails"))
            .is_empty(),
        "{}",
        i.stderr
    );

    // Both specs check clean, and the plan builds the repository's tree as a node.
    for case in [BY_NAME, BY_COMPOSE, OWN] {
        let o = taskc(
            i.dir.path(),
            &[
                "check",
                "--color",
                "never",
                &format!("out/{case}/{case}.task"),
            ],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("0 errors, 0 warnings"), "{case}: {err}");
    }
    let o = taskc(
        i.dir.path(),
        &[
            "plan",
            "--color",
            "never",
            &format!("out/{BY_COMPOSE}/{BY_COMPOSE}.task"),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ctx = &plan["images"]["environment"]["contexts"]["repo-lib"];
    assert_eq!(ctx["kind"], "repo", "{ctx}");
    assert_eq!(ctx["repo"], "lib", "{ctx}");
    let node = ctx["node"].as_str().unwrap();
    assert_eq!(plan["images"]["nodes"][node]["tree"]["name"], "lib");
    let env_df = plan["images"]["environment"]["dockerfile"]
        .as_str()
        .unwrap();
    assert!(
        env_df.contains(&format!(
            "COPY --from=taskc/node:{node} package.json package-lock.json ./"
        )),
        "{env_df}"
    );
}
