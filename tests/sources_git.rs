//! `git` sources end to end, with the real binary: a spec keeps its upstream URL while the
//! project's `taskc.toml` rewrites it to a local mirror (one with a broken unrelated ref);
//! materialised files carry the base commit's date (not 1970, which ZIP refuses), in exported
//! workspaces and in the task image; a base the source lacks fails before any image build.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[allow(dead_code)]
mod common;

use common::docker_or_skip;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Committer date of the fixture's base commit, and the same in seconds.
const BASE_DATE: &str = "2021-06-01T12:00:00Z";
const BASE_SECS: i64 = 1_622_548_800;
const URL: &str = "https://example.invalid/acme/packer.git";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_COMMITTER_DATE", BASE_DATE)
        .env("GIT_AUTHOR_DATE", BASE_DATE)
        .args(["-c", "user.name=u", "-c", "user.email=u@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A project folder: `mirrors/acme/packer.git` (a bare repository whose `refs/pull/1/head`
/// names a missing object), `taskc.toml` rewriting `https://example.invalid/` to `mirrors/`,
/// and `packer.task` naming the upstream URL. The hidden test zips a file the patches never
/// touch (so it keeps its materialised time) and checks the gold behaviour.
fn project(root: &Path, base_override: Option<&str>) -> PathBuf {
    let work = root.join("upstream");
    write(&work, "README.md", "# packer\n");
    write(&work, "packer.py", "def name():\n    return \"old\"\n");
    write(&work, "tests/__init__.py", "");
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "base"]);
    let base = git(&work, &["rev-parse", "HEAD"]);
    // Gold and hidden-test patches, made by editing and diffing.
    write(&work, "packer.py", "def name():\n    return \"new\"\n");
    let gold = git(&work, &["diff"]);
    git(&work, &["checkout", "-q", "--", "."]);
    write(
        &work,
        "tests/test_pack.py",
        "import zipfile\n\nimport packer\n\n\n\
         def test_readme_zips_and_name_is_new(tmp_path):\n\
         \x20   with zipfile.ZipFile(tmp_path / \"x.zip\", \"w\") as z:\n\
         \x20       z.write(\"README.md\")\n\
         \x20   assert packer.name() == \"new\"\n",
    );
    git(&work, &["add", "-N", "tests/test_pack.py"]);
    let test = git(&work, &["diff"]);

    let proj = root.join("proj");
    let bare = proj.join("mirrors/acme/packer.git");
    fs::create_dir_all(bare.parent().unwrap()).unwrap();
    git(
        root,
        &["clone", "-q", "--bare", "upstream", bare.to_str().unwrap()],
    );
    let mut packed = fs::read_to_string(bare.join("packed-refs")).unwrap_or_default();
    packed.push_str("deadbeefdeadbeefdeadbeefdeadbeefdeadbeef refs/pull/1/head\n");
    fs::write(bare.join("packed-refs"), packed).unwrap();

    write(
        &proj,
        "taskc.toml",
        "[sources]\nrewrite = [{ prefix = \"https://example.invalid/\", to = \"mirrors/\" }]\n",
    );
    write(&proj, "prompt.md", "Make `packer.name()` return \"new\".\n");
    write(&proj, "gold.patch", &format!("{gold}\n"));
    write(&proj, "test.patch", &format!("{test}\n"));
    let base = base_override.unwrap_or(&base);
    write(
        &proj,
        "packer.task",
        &format!(
            "task \"packer-name\" {{\n  title \"Rename\"\n  kind feature\n  ecosystem \"python\"\n  \
             languages [\"python\"]\n  prompt file(\"prompt.md\")\n  verify per-repo\n\n  \
             env python {{\n    version \"3.11\"\n  }}\n\n  repo packer {{\n    \
             source git(\"{URL}\")\n    base \"{base}\"\n    gold file(\"gold.patch\")\n    \
             test {{\n      patch file(\"test.patch\")\n      \
             run \"python3 -m pytest -rA -p no:cacheprovider tests\"\n      parser pytest\n      \
             timeout \"5m\"\n    }}\n  }}\n}}\n"
        ),
    );
    proj
}

fn taskc(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskc"))
        .args(args)
        .args(["--color", "never"])
        .current_dir(cwd)
        .output()
        .expect("the taskc binary runs")
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_rewritten_upstream_url_exports_a_workspace_dated_by_the_base_commit() {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path(), None);
    let o = taskc(
        &[
            "workspace",
            "--backend",
            "local",
            "--cache",
            "cache",
            "--out",
            "ws",
            "packer.task",
        ],
        &proj,
    );
    assert!(o.status.success(), "{}", text(&o));
    let repo = proj.join("ws/packer");
    for rel in ["README.md", "packer.py", "tests/__init__.py", "tests"] {
        let t = fs::metadata(repo.join(rel)).unwrap().mtime();
        assert_eq!(t, BASE_SECS, "{rel}");
    }
    assert_eq!(git(&repo, &["status", "--porcelain"]), "");
    assert!(!repo.join("tests/test_pack.py").exists());
}

#[test]
fn a_malformed_rewrite_is_a_usage_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path(), None);
    write(
        &proj,
        "taskc.toml",
        "[sources]\nrewrite = [{ prefix = \"https://example.invalid/\" }]\n",
    );
    let o = taskc(
        &[
            "workspace",
            "--backend",
            "local",
            "--cache",
            "cache",
            "--out",
            "ws",
            "packer.task",
        ],
        &proj,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("taskc.toml") && err.contains("needs a non-empty string `to`"),
        "{err}"
    );
}

#[test]
fn a_base_the_mirror_lacks_fails_before_any_image_is_built() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = "0123456789abcdef0123456789abcdef01234567";
    let proj = project(tmp.path(), Some(missing));
    let o = taskc(
        &[
            "verify",
            "--backend",
            "local",
            "--cache",
            "cache",
            "packer.task",
        ],
        &proj,
    );
    // The mirror is a local repository, so `check` already reads it at base and reports
    // the missing commit (E0305, exit 1) before verify fetches or builds anything.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(missing) && err.contains("E0305"), "{err}");
    assert!(
        !proj.join("cache/local/images").exists(),
        "an environment image was prepared before the sources were fetched: {}",
        text(&o)
    );
}

#[test]
fn zipping_a_materialised_file_works_in_the_task_image() {
    if !docker_or_skip() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let proj = project(tmp.path(), None);
    let o = taskc(
        &[
            "verify",
            "--backend",
            "docker",
            "--cache",
            "cache",
            "--no-lock",
            "packer.task",
        ],
        &proj,
    );
    let all = text(&o);
    assert!(o.status.success(), "{all}");
    assert!(all.contains("packer: 1 F2P, 0 P2P"), "{all}");
    assert!(!all.contains("before 1980"), "{all}");
}
