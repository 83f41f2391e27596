//! `taskc import wideswe` on a case the project writes itself in WideSWE's layout
//! (tests/fixtures/wideswe-postgres) whose `run_profile.sh` starts PostgreSQL 17 *inside* the
//! test container, as WideSWE's Ansible cases do (1, 4, 5): the server becomes a
//! `service postgres` from the stdlib `postgres` recipe (version, roles, databases, grants,
//! postgresql.conf lines), only the repository whose tests start it gets it, the database
//! variables the script exports reach its `run` with the loopback host rewritten to the
//! service's hostname, and the schema the script loads from a repository file is a W1131.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

mod common;
use common::wideswe::import_fixture;

const CASE: &str = "demo_ledger_tally_7c8d9e0f1a2b";

/// `taskc import wideswe <fixture> --out out` in a fresh folder: the folder, the task
/// folder, the spec and stderr.
fn import() -> (tempfile::TempDir, std::path::PathBuf, String, String) {
    let i = import_fixture("wideswe-postgres", &[]);
    assert_eq!(i.code, Some(0), "stderr:\n{}", i.stderr);
    let spec = i.spec(CASE);
    let task = i.dir.path().join("out").join(CASE);
    (i.dir, task, spec, i.stderr)
}

/// The text of the block that starts with `head` (up to its closing brace at two spaces).
fn block<'a>(spec: &'a str, head: &str) -> &'a str {
    spec.split(head)
        .nth(1)
        .and_then(|b| b.split("\n  }").next())
        .unwrap_or_else(|| panic!("no `{head}` in\n{spec}"))
}

#[test]
fn in_container_postgres_becomes_a_service_from_the_recipe() {
    let (_dir, _task, spec, _stderr) = import();
    let service = block(&spec, "service postgres {");
    insta::assert_snapshot!("wideswe-postgres-service", service);
    // The version the script names, its roles, databases and grants, its conf lines.
    assert!(service.contains("image postgres {"), "{service}");
    assert!(service.contains("version \"17\""), "{service}");
    for sql in [
        r#"CREATE ROLE "ledger" LOGIN;"#,
        "ALTER USER ledger CREATEDB PASSWORD 'ledger-pw';",
        r#"CREATE DATABASE "books" OWNER "ledger";"#,
        r"\connect books",
        "GRANT ALL ON SCHEMA public TO ledger;",
        "fsync = off",
        "synchronous_commit = off",
    ] {
        assert!(service.contains(sql), "`{sql}` missing from\n{service}");
    }
    // The existence checks (`SELECT 1 FROM pg_roles …`) change nothing and are not kept.
    assert!(!service.contains("SELECT"), "{service}");
}

#[test]
fn only_the_repository_that_starts_it_gets_the_service_and_its_variables() {
    let (_dir, _task, spec, _stderr) = import();
    let ledger = block(&spec, "repo ledger {");
    let tally = block(&spec, "repo tally {");
    assert!(ledger.contains("services postgres"), "{ledger}");
    assert!(!tally.contains("services"), "{tally}");
    // The database variables of `run_ledger`, the loopback host now the service's hostname;
    // `LEDGER_MODE` (not the database's) and tally's `TALLY_DB` are not carried.
    assert!(
        ledger.contains(
            "export DB_HOST=postgres DB_PORT=5432 DB_NAME=books DB_USER=ledger DB_PASSWORD=ledger-pw DATABASE_URL=postgresql://ledger:ledger-pw@postgres:5432/books && pytest"
        ),
        "{ledger}"
    );
    assert!(!ledger.contains("127.0.0.1"), "{ledger}");
    assert!(!ledger.contains("LEDGER_MODE"), "{ledger}");
    assert!(!tally.contains("export"), "{tally}");
}

#[test]
fn what_was_mapped_and_what_was_not_is_said() {
    let (_dir, _task, _spec, stderr) = import();
    // The two diagnostics as shown, from the first W1130 to the summary table.
    let from = stderr.find("W1130 (").expect("a W1130");
    let to = stderr[from..]
        .find("\ncase ")
        .map_or(stderr.len(), |k| from + k);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    insta::assert_snapshot!(
        "wideswe-postgres-notes",
        stderr[from..to].replace(root, "").trim_end()
    );
    assert!(stderr.contains("W1130"), "{stderr}");
    assert!(
        stderr.contains("W1131") && stderr.contains("$sql_dir/schema.sql"),
        "the schema load is not mapped and says so:\n{stderr}"
    );
    // The old note ("starts postgres for the tests; the spec does not") is gone.
    assert!(!stderr.contains("the spec does not\n"), "{stderr}");
}

#[test]
fn the_imported_spec_checks_and_lowers_with_trixies_postgres_17() {
    let (dir, task, _spec, _stderr) = import();
    let spec = task.join(format!("{CASE}.task"));
    let check = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["check", "--color", "never"])
        .arg(&spec)
        .current_dir(dir.path())
        .output()
        .expect("run taskc check");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let plan = Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(["plan", "--color", "never"])
        .arg(&spec)
        .current_dir(dir.path())
        .output()
        .expect("run taskc plan");
    assert!(
        plan.status.success(),
        "{}",
        String::from_utf8_lossy(&plan.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).expect("plan JSON");
    let services = plan["images"]["services"]
        .as_object()
        .expect("service images");
    assert_eq!(services.len(), 1, "{services:?}");
    let dockerfile = services
        .values()
        .next()
        .and_then(|i| i["dockerfile"].as_str())
        .expect("a Dockerfile");
    insta::assert_snapshot!("wideswe-postgres-service-dockerfile", dockerfile);
    // trixie's apt source in this image's build only, and the version checked at build.
    assert!(
        dockerfile.starts_with("FROM taskc/base:bookworm\n"),
        "{dockerfile}"
    );
    assert!(dockerfile.contains("debian trixie main"), "{dockerfile}");
    assert!(
        dockerfile.contains("-t trixie postgresql-17"),
        "{dockerfile}"
    );
    assert!(dockerfile.contains("want=17;"), "{dockerfile}");
    let env = plan["images"]["environment"]["dockerfile"]
        .as_str()
        .unwrap_or_default();
    assert!(
        !env.contains("trixie"),
        "the environment never sees trixie:\n{env}"
    );
}
