//! URL rewrites of `git` sources (`[sources] rewrite` in `taskc.toml`), like git's
//! `url.<to>.insteadOf = <prefix>`: a spec keeps its upstream URL while a site fetches from
//! a local mirror or an offline cache.

use std::path::Path;

/// One rewrite: a URL starting with `prefix` is fetched from `to` + the rest of the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlRewrite {
    pub prefix: String,
    pub to: String,
}

/// Every rewrite of a project; the longest matching prefix wins (as with git's `insteadOf`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewrites {
    rules: Vec<UrlRewrite>,
}

impl Rewrites {
    /// Rewrites whose relative `to` paths (neither a URL nor absolute) are resolved against
    /// `base` (the folder of the `taskc.toml` that declares them).
    pub fn new(rules: Vec<UrlRewrite>, base: &Path) -> Rewrites {
        let rules = rules
            .into_iter()
            .map(|r| UrlRewrite {
                to: resolve_path(&r.to, base),
                prefix: r.prefix,
            })
            .collect();
        Rewrites { rules }
    }

    /// No rewrites.
    pub fn none() -> Rewrites {
        Rewrites::default()
    }

    /// The URL to fetch `url` from.
    pub fn apply(&self, url: &str) -> String {
        let best = self
            .rules
            .iter()
            .filter(|r| url.starts_with(&r.prefix))
            .max_by_key(|r| r.prefix.len());
        match best {
            Some(r) => format!("{}{}", r.to, &url[r.prefix.len()..]),
            None => url.to_string(),
        }
    }

    /// Whether there are no rewrites.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

/// Whether `s` is a URL git understands as remote (`scheme://…` or scp-like `host:path`).
pub(crate) fn is_url(s: &str) -> bool {
    if s.contains("://") {
        return true;
    }
    // scp-like `user@host:path`: a colon before the first slash.
    match (s.find(':'), s.find('/')) {
        (Some(colon), Some(slash)) => colon < slash && colon > 1,
        (Some(colon), None) => colon > 1,
        _ => false,
    }
}

/// A plain relative path becomes absolute against `base`; URLs and absolute paths stay.
pub(crate) fn resolve_path(s: &str, base: &Path) -> String {
    if is_url(s) || Path::new(s).is_absolute() {
        s.to_string()
    } else {
        base.join(s).to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(prefix: &str, to: &str) -> UrlRewrite {
        UrlRewrite {
            prefix: prefix.into(),
            to: to.into(),
        }
    }

    #[test]
    fn the_longest_prefix_wins_and_other_urls_stay() {
        let r = Rewrites::new(
            vec![
                rw("https://github.com/", "file:///mirrors/"),
                rw("https://github.com/pypa/", "/srv/pypa/"),
            ],
            Path::new("/proj"),
        );
        assert_eq!(
            r.apply("https://github.com/pypa/packaging"),
            "/srv/pypa/packaging"
        );
        assert_eq!(
            r.apply("https://github.com/pytorch/rl.git"),
            "file:///mirrors/pytorch/rl.git"
        );
        assert_eq!(r.apply("https://gitlab.com/x/y"), "https://gitlab.com/x/y");
    }

    #[test]
    fn relative_targets_resolve_against_the_config_folder() {
        let r = Rewrites::new(vec![rw("https://h/", "mirrors/")], Path::new("/proj"));
        assert_eq!(r.apply("https://h/a.git"), "/proj/mirrors/a.git");
        assert!(is_url("git@github.com:pypa/packaging.git"));
        assert!(is_url("file:///x"));
        assert!(!is_url("../mirrors/x.git"));
        assert!(!is_url("/abs/x.git"));
    }
}
