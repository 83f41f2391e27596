//! End to end on Docker: `taskc verify` of a small Rust task (tests/fixtures/rust-canaries,
//! Debian's cargo through `env rust`, plain `cargo test`) whose hidden tests are two
//! integration-test binaries and a file gated by `#![cfg(loom)]`. The failing canaries must
//! not stop cargo at its first test binary (issue 21 item 2: the second binary's tests
//! would be missing from the oracle), and the loom file, never compiled, must get no canary
//! (item 3: gold would be `tampered`) — verify says where none could be placed. FAILS when
//! the engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{docker_or_skip, root};

#[test]
fn docker_cargo_canaries_run_every_binary_and_skip_cfg_gated_files() {
    if !docker_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let task = dir.path().join("rust-canaries");
    common::copy_dir(&root().join("tests/fixtures/rust-canaries"), &task);
    let _images = common::CacheImages::new(&dir.path().join("cache"), "docker");
    let guard = common::DockerGuard::new();
    let out = guard.output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args(["verify", "rust-canaries.task", "--backend", "docker"])
            .args(["--no-lock", "--jobs", "2", "--color", "never", "--cache"])
            .arg(dir.path().join("cache"))
            .current_dir(&task),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "gold must verify with canaries in place:\n{stdout}\n{stderr}"
    );
    // Both binaries ran at base and at gold: the oracle holds the two tests of
    // `tests/basic.rs` and the three of `tests/clamp.rs` (two F2P: the clamping ones).
    for line in ["adder         pass 5/5", "adder: 2 F2P, 3 P2P"] {
        assert!(stdout.contains(line), "`{line}`:\n{stdout}");
    }
    assert!(
        stdout.contains(
            "no canary: `tests/loom.rs` is compiled only under `#![cfg(loom)]`, which the test command does not set"
        ),
        "verify names the file that got no canary:\n{stdout}"
    );
    assert!(!stdout.contains("TAMPERED"), "{stdout}");
}
