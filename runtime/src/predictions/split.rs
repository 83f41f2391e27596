//! Splitting one combined diff (SWE-bench's `model_patch`, made at the folder that holds
//! every repository) into one diff per repository: `a/proxy/src/x.py` belongs to repository
//! `proxy` and becomes `a/src/x.py`, so each part applies inside its repository.
//!
//! Hunk bodies are copied as they are; only file headers (`diff --git`, `---`, `+++`,
//! `rename`/`copy` lines) are rewritten. Hunk line counts are followed, so a removed line
//! that starts with `-- ` is never taken for a header.

use std::collections::BTreeMap;

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

#[derive(Default)]
struct Section<'a> {
    lines: Vec<&'a str>,
    git: bool,
    seen_minus: bool,
}

/// Split `diff` by leading repository folder, one of `known`. A blank diff gives no parts.
pub fn split_by_repo(diff: &str, known: &[String]) -> Result<BTreeMap<String, String>, SplitError> {
    if diff.trim().is_empty() {
        return Ok(BTreeMap::new());
    }
    let sections = sections(diff);
    if sections.is_empty() {
        return Err(SplitError::NoFiles);
    }
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    for s in sections {
        let (repo, text) = rewrite(&s, known)?;
        parts.entry(repo).or_default().push_str(&text);
    }
    Ok(parts)
}

/// Cut `diff` into file sections, following hunk counts.
fn sections(diff: &str) -> Vec<Section<'_>> {
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut out: Vec<Section<'_>> = Vec::new();
    let (mut old_left, mut new_left) = (0u64, 0u64);
    for (i, line) in lines.iter().enumerate() {
        if old_left > 0 || new_left > 0 {
            match line.as_bytes().first() {
                Some(b'-') => old_left = old_left.saturating_sub(1),
                Some(b'+') => new_left = new_left.saturating_sub(1),
                Some(b'\\') => {}
                _ => {
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
            }
            if let Some(s) = out.last_mut() {
                s.lines.push(line);
            }
            continue;
        }
        if line.starts_with("diff --git ") {
            out.push(Section {
                lines: vec![line],
                git: true,
                seen_minus: false,
            });
            continue;
        }
        let next_plus = lines.get(i + 1).is_some_and(|n| n.starts_with("+++ "));
        if line.starts_with("--- ") && next_plus {
            let continues = out.last().is_some_and(|s| s.git && !s.seen_minus);
            if !continues {
                out.push(Section::default());
            }
            if let Some(s) = out.last_mut() {
                s.seen_minus = true;
                s.lines.push(line);
            }
            continue;
        }
        if line.starts_with("@@ ") {
            if let Some((o, n)) = hunk_counts(line) {
                old_left = o;
                new_left = n;
            }
        }
        // Text before the first section (a commit message) is dropped.
        if let Some(s) = out.last_mut() {
            s.lines.push(line);
        }
    }
    out
}

/// `@@ -a,b +c,d @@` → (b, d); a missing count means 1.
fn hunk_counts(line: &str) -> Option<(u64, u64)> {
    let mut it = line.split_whitespace().skip(1);
    let count = |tok: &str| -> Option<u64> {
        match tok[1..].split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => tok[1..].parse::<u64>().ok().map(|_| 1),
        }
    };
    let old = it.next().filter(|t| t.starts_with('-'))?;
    let new = it.next().filter(|t| t.starts_with('+'))?;
    Some((count(old)?, count(new)?))
}

/// The repository of one section and its text with repository folders removed.
fn rewrite(s: &Section<'_>, known: &[String]) -> Result<(String, String), SplitError> {
    let mut repo: Option<String> = None;
    let mut note = |r: &str, path: &str| -> Result<(), SplitError> {
        match &repo {
            Some(prev) if prev != r => Err(SplitError::CrossRepo {
                from: format!("{prev}/…"),
                to: path.to_string(),
            }),
            _ => {
                repo = Some(r.to_string());
                Ok(())
            }
        }
    };
    let mut text = String::new();
    let mut in_header = true;
    for line in &s.lines {
        if !in_header {
            text.push_str(line);
            continue;
        }
        if line.starts_with("@@ ") || line.starts_with("GIT binary patch") {
            in_header = false;
            text.push_str(line);
            continue;
        }
        let (body, eol) = split_eol(line);
        if let Some(rest) = body.strip_prefix("diff --git ") {
            let (r, new) = rewrite_git_line(rest, known)?;
            for x in &r {
                note(x, body)?;
            }
            text.push_str("diff --git ");
            text.push_str(&new);
        } else if let Some((tag, path)) = header_path(body) {
            if path == "/dev/null" || path.starts_with("/dev/null\t") {
                text.push_str(body);
            } else {
                let (r, new) = rewrite_path(path, tag, known)?;
                note(&r, path)?;
                text.push_str(&body[..body.len() - path.len()]);
                text.push_str(&new);
            }
        } else {
            text.push_str(body);
        }
        text.push_str(eol);
    }
    match repo {
        Some(r) => Ok((r, text)),
        None => Err(SplitError::NoFiles),
    }
}

fn split_eol(line: &str) -> (&str, &str) {
    match line.strip_suffix('\n') {
        Some(b) => (b, "\n"),
        None => (line, ""),
    }
}

/// A header line naming a path: (kind, path text). `---`/`+++` keep a/ b/ prefixes;
/// rename/copy lines name bare paths.
fn header_path(body: &str) -> Option<(&'static str, &str)> {
    for (prefix, tag) in [
        ("--- ", "a"),
        ("+++ ", "b"),
        ("rename from ", ""),
        ("rename to ", ""),
        ("copy from ", ""),
        ("copy to ", ""),
    ] {
        if let Some(p) = body.strip_prefix(prefix) {
            return Some((tag, p));
        }
    }
    None
}

/// Rewrite one path (maybe quoted, maybe `a/`- or `b/`-prefixed, maybe followed by a tab
/// and a timestamp). `side` is the prefix to use when the path had none (`a`, `b`, or
/// empty for bare rename/copy paths).
fn rewrite_path(path: &str, side: &str, known: &[String]) -> Result<(String, String), SplitError> {
    let (quoted, inner) = match path.strip_prefix('"') {
        Some(rest) => (true, rest),
        None => (false, path),
    };
    let (prefix, bare) = match inner.get(..2) {
        Some("a/") | Some("b/") if !side.is_empty() => (&inner[..2], &inner[2..]),
        _ if side.is_empty() => ("", inner),
        // A path without a/ b/ prefix (`diff -u proxy/x proxy/x`): add the usual prefix.
        _ => ("", inner),
    };
    let (repo, rest) = repo_of(bare, known).ok_or_else(|| outside(bare, known))?;
    let new_prefix = match (prefix.is_empty(), side.is_empty()) {
        (false, _) => prefix.to_string(),
        (true, false) => format!("{side}/"),
        (true, true) => String::new(),
    };
    let q = if quoted { "\"" } else { "" };
    Ok((repo.to_string(), format!("{q}{new_prefix}{rest}")))
}

/// Rewrite the rest of a `diff --git a/R/x b/R/y` line.
fn rewrite_git_line(rest: &str, known: &[String]) -> Result<(Vec<String>, String), SplitError> {
    let (a_quoted, a) = match rest.strip_prefix('"') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let a = a.strip_prefix("a/").ok_or_else(|| outside(rest, known))?;
    let shown = a.split(" b/").next().unwrap_or(a);
    let (ra, after_a) = repo_of(a, known).ok_or_else(|| outside(shown, known))?;
    // Find where the b-side starts: ` b/<repo>/` or ` "b/<repo>/`.
    let mut found = None;
    for (i, _) in after_a.match_indices(' ') {
        let tail = &after_a[i + 1..];
        let (q, t) = match tail.strip_prefix('"') {
            Some(t) => (true, t),
            None => (false, tail),
        };
        if let Some(b) = t.strip_prefix("b/") {
            if let Some((rb, after_b)) = repo_of(b, known) {
                found = Some((i, q, rb, after_b));
                break;
            }
        }
    }
    let Some((i, b_quoted, rb, after_b)) = found else {
        return Err(outside(after_a, known));
    };
    let qa = if a_quoted { "\"" } else { "" };
    let qb = if b_quoted { "\"" } else { "" };
    let new = format!("{qa}a/{} {qb}b/{after_b}", &after_a[..i]);
    Ok((vec![ra.to_string(), rb.to_string()], new))
}

/// `R/rest` with `R` a known repository → (R, rest).
fn repo_of<'a, 'k>(path: &'a str, known: &'k [String]) -> Option<(&'k str, &'a str)> {
    let (first, rest) = path.split_once('/')?;
    let repo = known.iter().find(|k| k.as_str() == first)?;
    (!rest.is_empty()).then_some((repo.as_str(), rest))
}

fn outside(path: &str, known: &[String]) -> SplitError {
    let path = path
        .split('\t')
        .next()
        .unwrap_or(path)
        .trim_end_matches('"');
    SplitError::OutsideRepo {
        path: path.to_string(),
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
}
