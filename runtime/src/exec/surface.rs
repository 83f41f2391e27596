//! Restoring the test surface (`docs/security.md`, defence 3): the files an agent's patch
//! changes that match the run's `restore-surface` globs (runner hooks and configuration,
//! interpreter start-up files, test files: `taskc_stdlib::surface`, plus the spec's
//! `protect` globs) are put back as they were at base — deleted when absent at base —
//! before any gold patch or hidden test is applied.
//!
//! Which files is decided from the patch text itself (every path it names, before and
//! after a rename), so the same answer is known to the script and to the report.

use serde::{Deserialize, Serialize};
use taskc_compiler::glob::Glob;
use taskc_compiler::patch::parse_patch;

use super::script::{sh_quote, StepFailure};

/// One file of a prediction reverted to base, and the glob that matched it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Revert {
    pub repo: String,
    pub path: String,
    pub glob: String,
}

/// The files of `patch` (the agent's patch for `repo`) that `globs` match, sorted by path.
/// `Err` when the patch cannot be read (the run then fails: taskc will not run a patch it
/// cannot account for).
pub fn reverts(repo: &str, globs: &[String], patch: &str) -> Result<Vec<Revert>, String> {
    let parsed = parse_patch(patch).map_err(|e| e.to_string())?;
    let compiled: Vec<Glob> = globs.iter().filter_map(|g| Glob::parse(g).ok()).collect();
    let mut out: Vec<Revert> = Vec::new();
    for f in &parsed.files {
        for path in [&f.old_path, &f.new_path].into_iter().flatten() {
            if out.iter().any(|r| &r.path == path) {
                continue;
            }
            if let Some(g) = compiled.iter().find(|g| g.matches(path)) {
                out.push(Revert {
                    repo: repo.to_string(),
                    path: path.clone(),
                    glob: g.as_str().to_string(),
                });
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Script lines that restore `repo` (its folder is `dir`, already quoted) after the agent's
/// `patch` was applied.
pub fn restore_script(repo: &str, dir: &str, globs: &[String], patch: &str) -> String {
    match reverts(repo, globs, patch) {
        Err(e) => format!(
            "fail {} {}\n",
            sh_quote(&format!("{}:{repo}", StepFailure::Prediction.as_str())),
            sh_quote(&format!(
                "the prediction's patch for `{repo}` cannot be read to restore the test surface: {e}"
            ))
        ),
        Ok(list) => {
            let paths: Vec<String> = list.iter().map(|r| r.path.clone()).collect();
            let why = format!(
                "could not revert {} in `{repo}`",
                super::script::list_paths(&paths)
            );
            super::script::restore_paths(dir, &paths, true, StepFailure::AfterPrediction, &why)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "\
diff --git a/tests/conftest.py b/tests/conftest.py
new file mode 100644
--- /dev/null
+++ b/tests/conftest.py
@@ -0,0 +1 @@
+import os
diff --git a/proxy/cookies.py b/proxy/cookies.py
--- a/proxy/cookies.py
+++ b/proxy/cookies.py
@@ -1 +1 @@
-a
+b
diff --git a/evil.pth b/evil.pth
new file mode 100644
--- /dev/null
+++ b/evil.pth
@@ -0,0 +1 @@
+import x
";

    fn globs() -> Vec<String> {
        ["conftest.py", "*.pth"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    #[test]
    fn matching_files_are_reverted_others_kept() {
        let r = reverts("proxy", &globs(), PATCH).expect("patch parses");
        let paths: Vec<(&str, &str)> = r
            .iter()
            .map(|r| (r.path.as_str(), r.glob.as_str()))
            .collect();
        assert_eq!(
            paths,
            [("evil.pth", "*.pth"), ("tests/conftest.py", "conftest.py")]
        );
        let s = restore_script("proxy", "\"$TASKC_ROOT\"/work/proxy", &globs(), PATCH);
        assert!(s.contains("for p in evil.pth tests/conftest.py;"), "{s}");
        assert!(!s.contains("cookies.py"));
    }

    #[test]
    fn an_unreadable_patch_fails_the_run() {
        let broken = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a\n";
        let s = restore_script("proxy", "d", &globs(), broken);
        assert!(s.starts_with("fail prediction:proxy "), "{s}");
    }
}
