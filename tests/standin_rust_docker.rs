//! The Rust stand-in ships rustup as the official `rust` image does (issue 24, WideSWE case
//! 106): `scripts/standins/build.sh rust:1.95` builds (or keeps, when its source label still
//! matches) `taskc-standin/rust:1.95`, and that image, without a network as taskc's runs
//! are, has rustup's proxies in `$CARGO_HOME/bin`, the toolchain as rustup's default, and a
//! `stable` that resolves to it — cargo's own test suite runs `$CARGO_HOME/bin/cargo +stable
//! --version` while it compiles (`#[cargo_test(requires_rustup_stable)]`), which a stand-in
//! with bare toolchain binaries answers with "no such command: `+stable`". Also as a user
//! other than root (the official image's homes are writable by any user). FAILS when the
//! engine does not answer, unless `TASKC_SKIP_DOCKER=1`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use std::process::{Command, Output};

use common::{docker_or_skip, root, text};

const STAND_IN: &str = "taskc-standin/rust:1.95";

/// `script` in a throwaway container of the stand-in, with no network, as `user`.
fn offline(user: &str, script: &str) -> Output {
    Command::new("docker")
        .args([
            "run",
            "--rm",
            "--network",
            "none",
            "--user",
            user,
            STAND_IN,
            "sh",
            "-c",
            script,
        ])
        .output()
        .unwrap()
}

#[test]
fn docker_the_rust_stand_in_ships_rustup_and_answers_cargo_plus_stable_offline() {
    if !docker_or_skip() {
        return;
    }
    // Idempotent: rebuilds only when the script's Dockerfile, the toolchain, rustup or the
    // base image changed since the image on the engine was built.
    let o = Command::new(root().join("scripts/standins/build.sh"))
        .arg("rust:1.95")
        .env("CHECK_PREFIX", "taskc-test-standin-check")
        .output()
        .unwrap();
    assert!(o.status.success(), "build.sh rust:1.95: {}", text(&o));

    let o = offline(
        "0:0",
        "set -e; echo \"homes $RUSTUP_HOME $CARGO_HOME\"; \
         for p in cargo rustc rustdoc; do cmp -s /usr/local/cargo/bin/$p /usr/local/cargo/bin/rustup && echo \"proxy $p\"; done; \
         echo \"default $(rustup default)\"; \
         echo \"stable $(cargo +stable --version)\"; \
         echo \"rustc $(rustc +stable --version)\"",
    );
    let shown = text(&o);
    assert!(o.status.success(), "{shown}");
    assert!(
        shown.contains("homes /usr/local/rustup /usr/local/cargo"),
        "{shown}"
    );
    for p in ["cargo", "rustc", "rustdoc"] {
        assert!(
            shown.contains(&format!("proxy {p}\n")),
            "{p} is not rustup's proxy: {shown}"
        );
    }
    assert!(
        shown.contains("default 1.95.") && shown.contains("-x86_64-unknown-linux-gnu"),
        "{shown}"
    );
    assert!(shown.contains("stable cargo 1.95."), "{shown}");
    assert!(shown.contains("rustc rustc 1.95."), "{shown}");

    // A user other than root (WideSWE runs its tests as the host's uid): rustup reads and
    // writes its homes (settings, the proxies' lock files) as in the official image.
    let o = offline(
        "1000:1000",
        "set -e; export HOME=/tmp; cargo +stable --version; rustup show active-toolchain",
    );
    let shown = text(&o);
    assert!(o.status.success(), "{shown}");
    assert!(shown.contains("cargo 1.95."), "{shown}");
}
