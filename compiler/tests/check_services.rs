//! `service` blocks and `services` references: one snapshot per diagnostic (E1300-E1307,
//! W1300) showing the spec and the rendered diagnostics together, and the checked
//! services of a valid spec.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// compiler/clippy.toml keeps the library free of I/O; its tests and benches read fixtures.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod check_support;

use check_support::check_and_render;
use taskc_compiler::lower::{lower_verify, LowerOptions};
use taskc_compiler::model::{ReadyCheck, ServiceImage, ServiceScope};
use taskc_compiler::plan::ReadyProbe;
use taskc_compiler::Code;

const GOLD: &str = "\
diff --git a/src/a.py b/src/a.py
--- a/src/a.py
+++ b/src/a.py
@@ -1 +1 @@
-X = 1
+X = 2
";

const TEST: &str = "\
diff --git a/tests/test_a.py b/tests/test_a.py
new file mode 100644
--- /dev/null
+++ b/tests/test_a.py
@@ -0,0 +1,2 @@
+def test_x():
+    assert True
";

const FILES: &[(&str, &str)] = &[
    ("a.patch", GOLD),
    ("a_test.patch", TEST),
    ("b.patch", GOLD),
    ("b_test.patch", TEST),
    ("repos/a/src/a.py", "X = 1\n"),
    ("repos/b/src/a.py", "X = 1\n"),
];

/// Two targets; `{task}` is replaced by task-level statements, `{a}` and `{b}` by
/// statements of the repositories.
const SPEC: &str = r#"task "svc" {
  kind bugfix
  prompt "Make X two."
  verify joint
  env python
{task}
  repo a {
    source dir("repos/a")
    gold file("a.patch")
{a}
    test { patch file("a_test.patch"); run "pytest -rA"; parser pytest }
  }
  repo b {
    source dir("repos/b")
    gold file("b.patch")
{b}
    test { patch file("b_test.patch"); run "pytest -rA"; parser pytest }
  }
}
"#;

const DB: &str = r#"  service db {
    image generic { dockerfile "RUN apt-get install -y postgresql-15" }
    port 5432
    ready "pg_isready -q" { timeout "90s" }
    memory "512m"
    cpus "0.5"
    environment { PGDATA "/srv/pg" }
  }"#;

fn spec(task: &str, a: &str, b: &str) -> String {
    SPEC.replace("{task}", task)
        .replace("{a}", a)
        .replace("{b}", b)
}

fn check(spec: &str) -> (taskc_compiler::check::Checked, String) {
    check_and_render(spec, FILES)
}

fn codes(c: &taskc_compiler::check::Checked) -> Vec<Code> {
    c.diagnostics.iter().map(|d| d.code).collect()
}

macro_rules! snap {
    ($name:literal, $spec:expr, [$($code:ident),*]) => {{
        let (checked, out) = check(&$spec);
        insta::assert_snapshot!($name, out);
        assert_eq!(codes(&checked), vec![$(Code::$code),*], "{out}");
        checked
    }};
}

#[test]
fn a_valid_spec_with_services_checks_and_lowers_them_into_the_runs_that_get_them() {
    let own = r#"    service mock {
      image "taskc/base:bookworm"
      command "python3 -m http.server 8080"
      port 8080
    }"#;
    let (checked, out) = check(&spec(DB, "    services db", own));
    assert!(checked.diagnostics.is_empty(), "{out}");
    let task = checked.task.expect("task");
    assert_eq!(task.services.len(), 2);
    let db = task.service("db").unwrap();
    assert_eq!(db.scope, ServiceScope::Task);
    assert_eq!(db.hostname, "db");
    assert_eq!(db.ports, vec![5432]);
    assert_eq!(db.ready, ReadyCheck::Command("pg_isready -q".into()));
    assert_eq!(db.ready_timeout_secs, 90);
    assert_eq!(db.limits.memory_bytes, Some(512 << 20));
    assert_eq!(db.limits.cpus_milli, Some(500));
    assert_eq!(db.environment["PGDATA"], "/srv/pg");
    assert!(matches!(&db.image, ServiceImage::Recipe(e) if e.recipe == "generic"));
    let mock = task.service("mock").unwrap();
    assert_eq!(mock.scope, ServiceScope::Repo("b".into()));
    assert_eq!(mock.ready, ReadyCheck::Tcp(8080));
    assert_eq!(
        mock.image,
        ServiceImage::Named("taskc/base:bookworm".into())
    );
    assert_eq!(task.repo("a").unwrap().services, vec!["db".to_string()]);
    assert_eq!(task.repo("b").unwrap().services, vec!["mock".to_string()]);

    let plan = lower_verify(&task, &LowerOptions::default()).unwrap();
    assert_eq!(plan.images.services.len(), 2);
    for run in plan.runs() {
        let names: Vec<&str> = run.services.iter().map(|s| s.name.as_str()).collect();
        match run.under_test.as_str() {
            "a" => assert_eq!(names, ["db"]),
            _ => assert_eq!(names, ["mock"]),
        }
        for s in &run.services {
            assert!(plan.images.services.contains_key(&s.image));
        }
    }
    let mock_run = plan.runs().find(|r| r.under_test == "b").unwrap();
    assert_eq!(mock_run.services[0].ready, ReadyProbe::Tcp { port: 8080 });

    // A service enters the id of the runs that get it, and only theirs.
    let changed = spec(&DB.replace("512m", "1g"), "    services db", own);
    let (checked2, out2) = check(&changed);
    let task2 = checked2.task.expect(&out2);
    let plan2 = lower_verify(&task2, &LowerOptions::default()).unwrap();
    for (r1, r2) in plan.runs().zip(plan2.runs()) {
        assert_eq!(r1.under_test, r2.under_test);
        assert_eq!(r1.id == r2.id, r1.under_test == "b", "{}", r1.under_test);
    }
    // The reviewer reads which service changed and whose runs it invalidates.
    let d = taskc_compiler::diff::diff_tasks(&task, &plan, &task2, &plan2).to_markdown();
    assert!(d.contains("service db.limits"), "{d}");
    assert!(d.contains("the verification of `a` must be re-run"), "{d}");
    // An image change is named by the service.
    let rebuilt = spec(
        &DB.replace("postgresql-15", "postgresql-16"),
        "    services db",
        own,
    );
    let (checked3, out3) = check(&rebuilt);
    let task3 = checked3.task.expect(&out3);
    let plan3 = lower_verify(&task3, &LowerOptions::default()).unwrap();
    let d = taskc_compiler::diff::diff_tasks(&task, &plan, &task3, &plan3).to_markdown();
    assert!(d.contains("service db.image"), "{d}");
    assert!(d.contains("service db image `img-"), "{d}");
    assert!(d.contains("the verification of `a` must be re-run"), "{d}");
    assert!(!d.contains("`b`"), "{d}");
}

#[test]
fn e1300_unknown_service() {
    snap!(
        "e1300_unknown_service",
        spec(DB, "    services db dbb", "    services cache"),
        [UnknownService, UnknownService]
    );
}

#[test]
fn e1301_duplicate_service() {
    let again = "    service db { image \"taskc/base:bookworm\" }";
    snap!(
        "e1301_duplicate_service",
        spec(DB, "    services db", again),
        [DuplicateService]
    );
}

#[test]
fn e1302_duplicate_hostname() {
    let own = "    service pg { image \"taskc/base:bookworm\"; hostname \"db\" }";
    snap!(
        "e1302_duplicate_hostname",
        spec(DB, &format!("    services db\n{own}"), "    services db"),
        [DuplicateHostname]
    );
}

#[test]
fn e1303_invalid_hostname() {
    let task = format!(
        "{DB}\n  service My_Cache {{ image \"redis:7\" }}\n  service q {{ image \"x\"; hostname \"queue-\" }}"
    );
    snap!(
        "e1303_invalid_hostname",
        spec(&task, "    services db My_Cache q", ""),
        [InvalidHostname, InvalidHostname]
    );
}

#[test]
fn e1304_invalid_port() {
    let task = "  service s {\n    image \"x\"\n    port 0\n    port 70000\n    port 80\n    port 80\n    port \"http\"\n  }";
    snap!(
        "e1304_invalid_port",
        spec(task, "    services s", ""),
        [InvalidPort, InvalidPort, InvalidPort, InvalidPort]
    );
}

#[test]
fn e1305_invalid_limit() {
    let task = "  service s {\n    image \"x\"\n    memory \"1k\"\n    cpus \"0.0001\"\n    ready \"true\" { timeout \"2h\" }\n  }";
    snap!(
        "e1305_invalid_limit",
        spec(task, "    services s", ""),
        [InvalidLimit, InvalidLimit, InvalidLimit]
    );
}

#[test]
fn e1306_invalid_service_env() {
    let task = "  service s {\n    image \"x\"\n    environment {\n      BAD-NAME \"x\"\n      GOOD 3\n    }\n  }";
    snap!(
        "e1306_invalid_service_env",
        spec(task, "    services s", ""),
        [InvalidServiceEnv, InvalidServiceEnv]
    );
}

#[test]
fn e1307_service_in_context_and_w1300_unused() {
    let s = spec(DB, "", "");
    let s = s.replace(
        "  repo b {",
        "  context docs {\n    source dir(\"repos/b\")\n    services db\n  }\n  repo b {",
    );
    snap!(
        "e1307_service_in_context",
        s,
        [UnusedService, ServiceInContext]
    );
}
