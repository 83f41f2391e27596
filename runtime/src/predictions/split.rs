//! Splitting one combined diff (SWE-bench's `model_patch`, made at the folder that holds
//! every repository) into one diff per repository: `a/proxy/src/x.py` belongs to repository
//! `proxy` and becomes `a/src/x.py`, so each part applies inside its repository.
//!
//! The diff is read with the compiler's diff parser (leniently: a malformed hunk is the
//! agent's, and must fail when applied, not here). Each file's section — from its header to
//! the next file's — is copied as it is but for the paths its header lines name
//! (`diff --git`, `---`, `+++`, `rename`/`copy`), which are rewritten by their spans. Hunk
//! bodies are never touched, so a removed line that starts with `-- ` is never taken for a
//! header.

use std::collections::BTreeMap;

use taskc_compiler::patch::{parse_patch_lenient, FilePatch, HeaderLine};

/// Why a combined diff could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A file path does not start with a known repository folder.
    #[error("`{path}` is not inside a repository of the task (known: {known}); paths must start with the repository folder, e.g. `a/<repo>/src/file`")]
    OutsideRepo { path: String, known: String },
    /// One file section names two repositories (a rename across repositories).
    #[error("one file section moves `{from}` to `{to}` across repositories; split it into a deletion and an addition")]
    CrossRepo { from: String, to: String },
    /// The text is not blank but holds no file section.
    #[error("the patch holds no file section (`diff --git` or `---`/`+++` headers)")]
    NoFiles,
}

/// Split `diff` by leading repository folder, one of `known`. A blank diff gives no parts.
pub fn split_by_repo(diff: &str, known: &[String]) -> Result<BTreeMap<String, String>, SplitError> {
    if diff.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    let patch = parse_patch_lenient(diff);
    if patch.files.is_empty() {
        return Err(SplitError::NoFiles);
    }
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    for (i, file) in patch.files.iter().enumerate() {
        // Text before the first section (a commit message) is dropped; text after a
        // file's last hunk stays with it.
        let start = file.span.start as usize;
        let end = patch
            .files
            .get(i + 1)
            .map_or(diff.len(), |next| next.span.start as usize);
        let (repo, text) = rewrite(diff, file, start..end, known)?;
        parts.entry(repo).or_default().push_str(&text);
    }
    Ok(parts)
}

/// The repository of one file section (`section` of `diff`) and its text with repository
/// folders removed from its header paths.
fn rewrite(
    diff: &str,
    file: &FilePatch,
    section: std::ops::Range<usize>,
    known: &[String],
) -> Result<(String, String), SplitError> {
    let mut repo: Option<String> = None;
    let mut text = String::new();
    let mut at = section.start;
    for h in &file.header_paths {
        let range = h.span.range();
        let Some(path) = diff.get(range.clone()) else {
            continue;
        };
        if path == "/dev/null" || !section.contains(&range.start) {
            continue;
        }
        let (r, new) = rewrite_path(path, h.line, known)?;
        match &repo {
            Some(prev) if *prev != r => {
                return Err(SplitError::CrossRepo {
                    from: format!("{prev}/…"),
                    to: path.to_string(),
                })
            }
            _ => repo = Some(r),
        }
        text.push_str(&diff[at..range.start]);
        text.push_str(&new);
        at = range.end;
    }
    text.push_str(&diff[at..section.end]);
    match repo {
        Some(r) => Ok((r, text)),
        None => Err(SplitError::NoFiles),
    }
}

/// Rewrite one path as written (maybe quoted, maybe `a/`- or `b/`-prefixed) on header line
/// `line`: its repository, and the path without the repository folder (a path without the
/// usual prefix gets it).
fn rewrite_path(
    path: &str,
    line: HeaderLine,
    known: &[String],
) -> Result<(String, String), SplitError> {
    let (quoted, inner) = match path.strip_prefix('"') {
        Some(rest) => (true, rest),
        None => (false, path),
    };
    let side = line.side_prefix();
    let (prefix, bare) = match inner.get(..2) {
        Some(p @ ("a/" | "b/")) if !side.is_empty() => (p, &inner[2..]),
        _ => (side, inner),
    };
    let (repo, rest) = repo_of(bare, known).ok_or_else(|| outside(bare, known))?;
    let q = if quoted { "\"" } else { "" };
    Ok((repo.to_string(), format!("{q}{prefix}{rest}")))
}

/// `R/rest` with `R` a known repository → (R, rest).
fn repo_of<'a, 'k>(path: &'a str, known: &'k [String]) -> Option<(&'k str, &'a str)> {
    let (first, rest) = path.split_once('/')?;
    let repo = known.iter().find(|k| k.as_str() == first)?;
    (!rest.is_empty()).then_some((repo.as_str(), rest))
}

fn outside(path: &str, known: &[String]) -> SplitError {
    SplitError::OutsideRepo {
        path: path.trim_end_matches('"').to_string(),
        known: known.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        vec!["proxy".into(), "gateway".into()]
    }

    const COMBINED: &str = "\
diff --git a/proxy/src/x.py b/proxy/src/x.py
index 1111111..2222222 100644
--- a/proxy/src/x.py
+++ b/proxy/src/x.py
@@ -1,3 +1,3 @@
 a
--- not a header
+++ not a header either
 c
diff --git a/gateway/app.py b/gateway/app.py
new file mode 100644
--- /dev/null
+++ b/gateway/app.py
@@ -0,0 +1 @@
+print('hi')
diff --git a/proxy/old.txt b/proxy/new.txt
similarity index 100%
rename from proxy/old.txt
rename to proxy/new.txt
";

    #[test]
    fn splits_by_folder_and_rewrites_headers_only() {
        let parts = split_by_repo(COMBINED, &known()).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts["proxy"],
            "\
diff --git a/src/x.py b/src/x.py
index 1111111..2222222 100644
--- a/src/x.py
+++ b/src/x.py
@@ -1,3 +1,3 @@
 a
--- not a header
+++ not a header either
 c
diff --git a/old.txt b/new.txt
similarity index 100%
rename from old.txt
rename to new.txt
"
        );
        assert_eq!(
            parts["gateway"],
            "\
diff --git a/app.py b/app.py
new file mode 100644
--- /dev/null
+++ b/app.py
@@ -0,0 +1 @@
+print('hi')
"
        );
    }

    #[test]
    fn plain_unified_diffs_split_too() {
        let d = "--- a/proxy/x\t2024-01-01\n+++ b/proxy/x\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n\
                 --- gateway/y\n+++ gateway/y\n@@ -1 +1 @@\n-a\n+b\n";
        let parts = split_by_repo(d, &known()).unwrap();
        assert_eq!(
            parts["proxy"],
            "--- a/x\t2024-01-01\n+++ b/x\t2024-01-01\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(parts["gateway"], "--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n");
    }

    #[test]
    fn quoted_paths_keep_their_quotes() {
        let d = "diff --git \"a/proxy/a b.txt\" \"b/proxy/a b.txt\"\n--- \"a/proxy/a b.txt\"\n+++ \"b/proxy/a b.txt\"\n@@ -1 +1 @@\n-a\n+b\n";
        let parts = split_by_repo(d, &known()).unwrap();
        assert!(parts["proxy"].starts_with(
            "diff --git \"a/a b.txt\" \"b/a b.txt\"\n--- \"a/a b.txt\"\n+++ \"b/a b.txt\"\n"
        ));
    }

    #[test]
    fn a_file_outside_every_repository_is_an_error() {
        let d = "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n";
        let err = split_by_repo(d, &known()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`README.md` is not inside a repository of the task (known: proxy, gateway); paths must start with the repository folder, e.g. `a/<repo>/src/file`"
        );
    }

    #[test]
    fn blank_is_empty_and_garbage_is_an_error() {
        assert!(split_by_repo(" \n", &known()).unwrap().is_empty());
        assert_eq!(
            split_by_repo("hello\n", &known()).unwrap_err(),
            SplitError::NoFiles
        );
    }

    #[test]
    fn cross_repository_renames_are_refused() {
        let d = "diff --git a/proxy/x b/gateway/x\nsimilarity index 100%\nrename from proxy/x\nrename to gateway/x\n";
        assert!(matches!(
            split_by_repo(d, &known()),
            Err(SplitError::CrossRepo { .. })
        ));
    }

    #[test]
    fn binary_mode_empty_and_no_newline_sections_split_whole() {
        let d = "\
diff --git a/proxy/logo.png b/proxy/logo.png
index 87ae6b6..22f6b3b 100644
GIT binary patch
literal 3
KcmZ?wbNT=P0RRC2

literal 0
HcmV?d00001

diff --git a/gateway/run.sh b/gateway/run.sh
old mode 100644
new mode 100755
diff --git a/gateway/empty b/gateway/empty
new file mode 100644
index 0000000..e69de29
diff --git a/proxy/x b/proxy/x
--- a/proxy/x
+++ b/proxy/x
@@ -1 +1 @@
-a
\\ No newline at end of file
+b
\\ No newline at end of file
";
        let parts = split_by_repo(d, &known()).unwrap();
        assert_eq!(
            parts["proxy"],
            "\
diff --git a/logo.png b/logo.png
index 87ae6b6..22f6b3b 100644
GIT binary patch
literal 3
KcmZ?wbNT=P0RRC2

literal 0
HcmV?d00001

diff --git a/x b/x
--- a/x
+++ b/x
@@ -1 +1 @@
-a
\\ No newline at end of file
+b
\\ No newline at end of file
"
        );
        assert_eq!(
            parts["gateway"],
            "\
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/empty b/empty
new file mode 100644
index 0000000..e69de29
"
        );
    }

    #[test]
    fn crlf_diffs_keep_their_line_endings() {
        let d = COMBINED.replace('\n', "\r\n");
        let parts = split_by_repo(&d, &known()).unwrap();
        let lf = split_by_repo(COMBINED, &known()).unwrap();
        for (repo, text) in &lf {
            assert_eq!(parts[repo], text.replace('\n', "\r\n"));
        }
    }

    #[test]
    fn a_malformed_hunk_is_split_as_it_stands_to_fail_when_applied() {
        // The hunk claims three lines and has two: the agent's patch, copied for `git apply`.
        // The next `diff --git` still starts a file of its own repository (it is not
        // swallowed into proxy's hunk).
        let d = "diff --git a/proxy/x b/proxy/x\n--- a/proxy/x\n+++ b/proxy/x\n@@ -1,3 +1,3 @@\n-a\n+b\n\
                 diff --git a/gateway/y b/gateway/y\n--- a/gateway/y\n+++ b/gateway/y\n@@ -1 +1 @@\n-a\n+b\n";
        let parts = split_by_repo(d, &known()).unwrap();
        assert_eq!(
            parts["proxy"],
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n"
        );
        assert_eq!(
            parts["gateway"],
            "diff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    #[test]
    fn escaped_quoted_paths_and_copies() {
        let d = "diff --git \"a/proxy/t\\303\\251st.py\" \"b/gateway/t\\303\\251st.py\"\n";
        assert!(matches!(
            split_by_repo(d, &known()),
            Err(SplitError::CrossRepo { .. })
        ));
        let d = "diff --git a/proxy/a.py b/proxy/b.py\nsimilarity index 90%\ncopy from proxy/a.py\ncopy to proxy/b.py\n--- a/proxy/a.py\n+++ b/proxy/b.py\n@@ -1 +1 @@\n-a\n+b\n";
        assert_eq!(
            split_by_repo(d, &known()).unwrap()["proxy"],
            "diff --git a/a.py b/b.py\nsimilarity index 90%\ncopy from a.py\ncopy to b.py\n--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;
        use taskc_compiler::patch::parse_patch;

        fn section(path: &str, body: &[String]) -> String {
            let n = body.len();
            let adds: String = body.iter().map(|l| format!("+{l}\n")).collect();
            let dels: String = body.iter().map(|l| format!("-{l}\n")).collect();
            format!("diff --git a/{path} b/{path}\nindex 1..2 100644\n--- a/{path}\n+++ b/{path}\n@@ -1,{n} +1,{n} @@\n{dels}{adds}")
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

            /// Splitting a combined diff gives, per repository, exactly its files (paths
            /// without the folder) with their hunks unchanged, and nothing else.
            #[test]
            fn each_part_holds_its_repositorys_files_unchanged(
                files in proptest::collection::vec((0usize..2, "[a-z]{1,5}(/[a-z]{1,5})?", proptest::collection::vec("(-- |\\+\\+\\+ |@@ |diff --git )?[a-z ]{0,6}", 1..4)), 1..6),
            ) {
                let repos = known();
                let combined: String = files
                    .iter()
                    .map(|(r, p, b)| section(&format!("{}/{p}", repos[*r]), b))
                    .collect();
                let parts = split_by_repo(&combined, &repos).unwrap();
                for (r, repo) in repos.iter().enumerate() {
                    let mine: String = files
                        .iter()
                        .filter(|(x, _, _)| *x == r)
                        .map(|(_, p, b)| section(p, b))
                        .collect();
                    prop_assert_eq!(parts.get(repo).cloned().unwrap_or_default(), mine.clone());
                    if !mine.is_empty() {
                        let parsed = parse_patch(&parts[repo]).unwrap();
                        prop_assert_eq!(parsed.files.len(), files.iter().filter(|(x, _, _)| *x == r).count());
                    }
                }
            }
        }
    }
}
