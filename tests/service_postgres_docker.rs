//! The stdlib `postgres` recipe on the real engine: a task whose `store` tests talk to
//! PostgreSQL **17** built from the recipe (Debian trixie's postgresql-17; trixie's apt
//! source in the service image's build only) with a role, a password, a database and a
//! postgresql.conf line set up at image build (tests/fixtures/postgres17-service). `verify`
//! is sound: the hidden test that asks the server for its version (`17.`), its user and
//! database (`shop`/`stock`, over TCP with a password) and `fsync = off` passes at base and
//! with gold, and the restock test fails at base and passes with gold.
// Test code: an unwrap/expect/panic that fires is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;

use common::{docker_or_skip, root, CacheImages, DockerGuard};

#[test]
fn a_postgres_17_service_from_the_recipe_verifies_sound() {
    if !docker_or_skip() {
        return;
    }
    let cache = tempfile::tempdir().expect("temp dir");
    let _images = CacheImages::new(cache.path(), "docker");
    let guard = DockerGuard::new();
    let out = guard.output(
        Command::new(env!("CARGO_BIN_EXE_taskc"))
            .args([
                "verify",
                "tests/fixtures/postgres17-service/pg17-store.task",
                "--backend",
                "docker",
                "--no-lock",
                "--color",
                "never",
                "--cache",
            ])
            .arg(cache.path())
            .current_dir(root()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "verify pg17-store:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("sound"), "{stdout}\n{stderr}");
}
