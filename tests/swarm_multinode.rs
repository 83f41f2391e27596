//! Two swarm nodes on this one machine, with the real binary: `scripts/swarm-multinode.sh
//! verify` (a second dockerd joined as a worker, a registry on loopback) on the examples of
//! [`EXAMPLES`], asserting every check it prints — engines that are no manager refused,
//! a swarm without `[cluster] registry` and a node without the image each a clear error,
//! runs placed on both nodes with the one-node table, nothing left on the worker after runs,
//! timeouts and a Ctrl-C there, the verdict unchanged after `kill -9` of the worker's
//! dockerd, and the host as before (first engine's bridge and `docker run`, no process,
//! mount, folder, interface or swarm membership left).
//!
//! Needs root and `dockerd` (a second daemon): without them it is SKIPPED with the reason
//! printed, as with `TASKC_SKIP_DOCKER=1`; anything else missing fails. One test; the script
//! holds the swarm tests' lock exclusively, so that no other swarm test runs meanwhile.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{docker_or_skip, root};

/// A subset of the examples, to stay within about 10 minutes on this machine (2 cores): a
/// sound one and an unsound one. (`cookie-split` must be among them: the `kill -9` check
/// compares its table.)
const EXAMPLES: &str = "cookie-split unsound-partial";

/// The lines the script prints when each check passed.
const CHECKS: &[&str] = &[
    "ok: an engine in no swarm is refused, naming the operation and what to do (exit 2)",
    "ok: a worker engine is refused, naming the operation and what to do (exit 2)",
    "ok: two nodes without a registry are refused before any run (exit 2)",
    "ok: a drained manager whose only schedulable node lacks the image is refused before any run (exit 2)",
    "ok: a run placed on a node without the image is a clear error naming the operation and [cluster] registry (exit 2, no hang)",
    "ok: runs placed on both nodes",
    "ok: nothing left after runs on both nodes",
    "ok: tables identical on one node and on two",
    "ok: nothing left after runs timed out on the worker",
    "ok: nothing left after a Ctrl-C during runs on the worker",
    "ok: the worker keeps no taskc container after runs, timeouts and a Ctrl-C there",
    "ok: verdict after kill -9 of the worker unchanged",
    "ok: first engine after: its bridge network and docker run work",
    "ok: no process, mount or folder of the second daemon left",
    "ok: the host's interfaces are those of before (taskc-br1 gone)",
    "ok: the first engine's swarm state is the one of before",
];

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

#[test]
fn two_nodes_on_one_machine_run_refuse_and_clean_up_as_documented() {
    if !docker_or_skip() {
        return;
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED swarm_multinode: not root (a second dockerd needs root)");
        return;
    }
    if !on_path("dockerd") {
        eprintln!("SKIPPED swarm_multinode: no `dockerd` on PATH (a second daemon is needed)");
        return;
    }
    let taskc = env!("CARGO_BIN_EXE_taskc");
    let base = Command::new(taskc)
        .args(["image", "bootstrap"])
        .output()
        .expect("taskc image bootstrap runs");
    assert!(
        base.status.success(),
        "taskc image bootstrap:\n{}",
        String::from_utf8_lossy(&base.stderr)
    );
    let script = root().join("scripts/swarm-multinode.sh");
    let out = Command::new("bash")
        .arg("-c")
        .arg("exec bash \"$0\" verify 2>&1")
        .arg(&script)
        .env("TASKC", taskc)
        .env("TASKC_SWARM_EXAMPLES", EXAMPLES)
        .env_remove("DOCKER_HOST")
        .current_dir(root())
        .output()
        .expect("the script runs");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        out.status.success(),
        "scripts/swarm-multinode.sh verify failed ({}):\n{text}",
        out.status
    );
    let missing: Vec<&str> = CHECKS
        .iter()
        .copied()
        .filter(|c| !text.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "checks not passed: {missing:#?}\n{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");
}
