//! A WideSWE checkout (`cases/<ecosystem>/<case_id>/`, `benchmark/images/{base,deps}/…`): its
//! case folders and the recipes of the images its cases name.

use std::path::{Path, PathBuf};

/// Whether `dir` is the root of a WideSWE checkout rather than a case folder.
pub fn is_checkout(dir: &Path) -> bool {
    dir.join("cases").is_dir() && !dir.join("task.yaml").is_file()
}

/// The case folders of the checkout at `root`: every `cases/*/*` holding a `task.yaml`, sorted,
/// or the ones `names` picks (a case id, `<ecosystem>/<case_id>` or `cases/<ecosystem>/<case_id>`).
pub fn cases(root: &Path, names: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut all = Vec::new();
    let top = root.join("cases");
    let ecosystems = std::fs::read_dir(&top).map_err(|e| format!("{}: {e}", top.display()))?;
    for eco in ecosystems.flatten() {
        let Ok(inner) = std::fs::read_dir(eco.path()) else {
            continue;
        };
        for case in inner.flatten() {
            if case.path().join("task.yaml").is_file() {
                all.push(case.path());
            }
        }
    }
    all.sort();
    if names.is_empty() {
        return Ok(all);
    }
    let mut picked = Vec::new();
    for n in names {
        let n = n.trim_end_matches('/');
        let n = n.strip_prefix("cases/").unwrap_or(n);
        let hit = all.iter().find(|p| {
            p.strip_prefix(&top).is_ok_and(|rel| rel == Path::new(n))
                || p.file_name().is_some_and(|f| f == n)
        });
        match hit {
            Some(p) => picked.push(p.clone()),
            None => {
                return Err(format!(
                    "no case `{n}` under {} (name a case id or <ecosystem>/<case_id>)",
                    top.display()
                ))
            }
        }
    }
    Ok(picked)
}

/// Where WideSWE keeps the recipe of `image`, relative to the checkout root:
/// `ecosyncbench/base/<name>:<tag>` → `benchmark/images/base/<name>-<tag>/Dockerfile` (or
/// `…/base/<name>/Dockerfile`), `ecosyncbench/deps/<name>:<tag>` →
/// `benchmark/images/deps/<name>/Dockerfile` (or `…/deps/<name>-<tag>/Dockerfile`).
pub fn recipe_candidates(image: &str) -> Vec<String> {
    let (repo, tag) = match image.rsplit_once(':') {
        Some((r, t)) if !t.contains('/') => (r, Some(t)),
        _ => (image, None),
    };
    let Some(rest) = repo.strip_prefix("ecosyncbench/") else {
        return Vec::new();
    };
    let Some((kind, name)) = rest.split_once('/') else {
        return Vec::new();
    };
    let dir = format!("benchmark/images/{kind}");
    let mut out = Vec::new();
    if let Some(t) = tag {
        out.push(format!("{dir}/{name}-{t}/Dockerfile"));
        // `php-composer:8.4` → `php-8.4-composer`.
        if let Some((first, rest)) = name.split_once('-') {
            out.push(format!("{dir}/{first}-{t}-{rest}/Dockerfile"));
        }
    }
    out.push(format!("{dir}/{name}/Dockerfile"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_by_image_name() {
        assert_eq!(
            recipe_candidates("ecosyncbench/base/go:1.26-bookworm"),
            vec![
                "benchmark/images/base/go-1.26-bookworm/Dockerfile",
                "benchmark/images/base/go/Dockerfile"
            ]
        );
        assert!(recipe_candidates("ecosyncbench/deps/pytorch-python:3.12")
            .contains(&"benchmark/images/deps/pytorch-python/Dockerfile".to_string()));
        assert!(recipe_candidates("golang:1.26-bookworm").is_empty());
        assert!(recipe_candidates("ecosyncbench/base/php-composer:8.4")
            .contains(&"benchmark/images/base/php-8.4-composer/Dockerfile".to_string()));
    }
}
