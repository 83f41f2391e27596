//! The environment Dockerfile of an exported task: the same image `taskc workspace --image`
//! builds (the recipe's environment image, the repositories at base under `/work/<name>`
//! as one synthetic commit each, the unprivileged test user, the setup commands), from the
//! repositories' plain trees shipped beside it (`repos/<name>/`, no `.git`). The synthetic
//! commit is made again in the image with taskc's fixed identity and date, and the build
//! fails unless it has the id `taskc workspace` records, so both workspaces are the same.

use taskc_compiler::plan::Plan;

use crate::exec::script::{sh_quote, TEST_UID, TEST_USER};
use crate::repo::{AUTHOR_EMAIL, AUTHOR_NAME, COMMIT_DATE};

/// Where the repositories' trees live in the build context.
pub const REPOS_DIR: &str = "repos";
/// The change recorder and the repositories' base commits (nothing secret), in the build
/// context and at [`IMAGE_TASKC_DIR`] in the image.
pub const TASKC_DIR: &str = "taskc";
pub const IMAGE_TASKC_DIR: &str = "/opt/taskc";

/// The Dockerfile; `commits` holds each repository's synthetic base commit, in the plan's
/// repository order.
pub fn dockerfile(plan: &Plan, commits: &[(String, String)], version: &str) -> String {
    let env = &plan.images.environment;
    let mut df = format!(
        "# Written by `taskc export harbor` (taskc {version}) for task `{task}`; do not edit.\n\
         # The agent workspace of `taskc workspace --image`: repositories at base (one synthetic\n\
         # commit each), no gold patch, no hidden test, no lock. It starts FROM {base}.\n",
        task = plan.task.id,
        base = env.base_image,
    );
    // Built by whatever builder Harbor's engine has: without BuildKit's cache mounts (the
    // same image content; see `backend::cache_mounts`).
    // An environment built on image nodes is written as one multi-stage Dockerfile again.
    let env_df = if plan.images.nodes.is_empty() {
        env.dockerfile.clone()
    } else {
        taskc_compiler::plan::multi_stage(&plan.images.nodes, &env.dockerfile)
    };
    df.push_str(crate::backend::cache_mounts::without_cache_mounts(&env_df).trim_end());
    df.push('\n');
    df.push_str(&format!("COPY {REPOS_DIR}/ /work/\n"));
    df.push_str(&format!(
        "RUN groupadd -g {TEST_UID} {TEST_USER} && useradd -u {TEST_UID} -g {TEST_UID} -M -d /tmp/{TEST_USER}-home -s /bin/bash {TEST_USER} && chmod 0755 /root\n"
    ));
    // One hermetic git per line (a shell function, so nothing of it stays in the image).
    let git = format!(
        "g() {{ env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_AUTHOR_NAME={n} GIT_AUTHOR_EMAIL={e} \
         GIT_AUTHOR_DATE={d} GIT_COMMITTER_NAME={n} GIT_COMMITTER_EMAIL={e} GIT_COMMITTER_DATE={d} TZ=UTC LC_ALL=C git \"$@\"; }}",
        n = sh_quote(AUTHOR_NAME),
        e = sh_quote(AUTHOR_EMAIL),
        d = sh_quote(COMMIT_DATE),
    );
    for r in &plan.images.task.repos {
        let Some((_, commit)) = commits.iter().find(|(n, _)| n == &r.name) else {
            continue;
        };
        df.push_str(&format!(
            "RUN {git} && cd {dir} && g init --quiet --template= --initial-branch=main && g add --all --force . \
             && g commit --quiet --no-verify --allow-empty -m base && test \"$(g rev-parse HEAD)\" = {commit}\n",
            dir = sh_quote(&r.path),
        ));
    }
    for r in &plan.images.task.repos {
        for cmd in &r.setup {
            df.push_str(&format!(
                "RUN cd {} && bash -euo pipefail -c {}\n",
                sh_quote(&r.path),
                sh_quote(cmd)
            ));
        }
    }
    df.push_str(&format!("COPY {TASKC_DIR}/ {IMAGE_TASKC_DIR}/\n"));
    df.push_str("WORKDIR /work\n");
    df
}
