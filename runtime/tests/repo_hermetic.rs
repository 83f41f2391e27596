//! The caller's git configuration and environment cannot change a synthetic commit.
//! (Its own test binary: it changes the process environment.)
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs;
use std::path::Path;

use taskc_runtime::repo::{materialize, RepoSource};

fn sample(root: &Path) {
    fs::create_dir_all(root.join("src")).unwrap();
    fs::write(root.join("src/crlf.txt"), "one\r\ntwo\r\n").unwrap();
    fs::write(root.join("run.sh"), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn hostile_user_config_and_environment_do_not_change_the_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    sample(&src);
    let cache = tmp.path().join("cache");
    let clean = materialize(
        &RepoSource::Dir(src.clone()),
        None,
        &tmp.path().join("a"),
        &cache,
    )
    .unwrap();

    // A user whose config and environment would change almost everything.
    let home = tmp.path().join("home");
    let templates = home.join("templates/hooks");
    fs::create_dir_all(&templates).unwrap();
    fs::write(templates.join("pre-commit"), "#!/bin/sh\nexit 1\n").unwrap();
    fs::write(
        templates.join("commit-msg"),
        "#!/bin/sh\necho evil > \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    for hook in ["pre-commit", "commit-msg"] {
        fs::set_permissions(templates.join(hook), fs::Permissions::from_mode(0o755)).unwrap();
    }
    let config = format!(
        "[user]\n\tname = Evil\n\temail = evil@example.com\n\
         [core]\n\tautocrlf = true\n\tfileMode = false\n\
         [init]\n\ttemplateDir = {}\n\tdefaultBranch = evil\n\
         [commit]\n\tgpgSign = true\n",
        home.join("templates").display()
    );
    fs::write(home.join(".gitconfig"), &config).unwrap();
    let global = home.join("global.gitconfig");
    fs::write(&global, &config).unwrap();
    // This binary has a single test: nothing reads the
    // environment concurrently.
    for (k, v) in [
        ("HOME", home.display().to_string()),
        ("XDG_CONFIG_HOME", home.display().to_string()),
        ("GIT_CONFIG_GLOBAL", global.display().to_string()),
        (
            "GIT_CONFIG_PARAMETERS",
            "'core.autocrlf'='true'".to_string(),
        ),
        ("GIT_CONFIG_COUNT", "1".to_string()),
        ("GIT_CONFIG_KEY_0", "core.fileMode".to_string()),
        ("GIT_CONFIG_VALUE_0", "false".to_string()),
        ("GIT_AUTHOR_NAME", "Evil".to_string()),
        ("GIT_AUTHOR_DATE", "2020-02-02T02:02:02Z".to_string()),
        ("GIT_COMMITTER_EMAIL", "evil@example.com".to_string()),
        ("TZ", "Asia/Kolkata".to_string()),
    ] {
        std::env::set_var(k, v);
    }
    let hostile = materialize(&RepoSource::Dir(src), None, &tmp.path().join("b"), &cache).unwrap();
    assert_eq!(clean.commit, hostile.commit);
}
