//! The project's `taskc.toml`: the nearest one in a spec's folder or above. Read once per
//! spec by every command that takes specs, so a malformed file is the same error (exit 2)
//! everywhere, and an unknown key is a warning with the closest known key.

use std::path::{Path, PathBuf};

use super::site::Site;
use crate::repo::{Rewrites, UrlRewrite};

/// The file name looked for.
pub const PROJECT_FILE: &str = "taskc.toml";

/// Every key taskc reads, by table (`""` for the top level).
const KNOWN: &[(&str, &[&str])] = &[
    ("", &["images", "sources", "cluster"]),
    ("cluster", &["registry", "network"]),
    ("images", &["base", "ca_certificates", "map"]),
    ("sources", &["rewrite"]),
    ("sources.rewrite", &["prefix", "to"]),
];

/// What a project's `taskc.toml` says (all defaults when there is none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Project {
    /// The file read, if any.
    pub file: Option<PathBuf>,
    /// `[images] base`: replaces every recipe's base image.
    pub base_image: Option<String>,
    /// `[sources]` and `[images] ca_certificates`.
    pub site: Site,
    /// `[cluster] registry = "host:port"`: where `--backend swarm` pushes images for a
    /// swarm of more than one node.
    pub cluster_registry: Option<String>,
    /// `[cluster] network`: what the swarm's test runs attach to.
    pub cluster_network: ClusterNetwork,
    /// Keys taskc does not know, with the closest known key (`did you mean`).
    pub warnings: Vec<ProjectWarning>,
}

/// `[cluster] network = "internal" | "none"`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ClusterNetwork {
    /// An internal overlay network taskc creates (no route out).
    #[default]
    Internal,
    /// None of the swarm's (nodes sharing one kernel cannot hold one overlay twice).
    None,
}

/// The `[cluster]` table: where the swarm backend runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    pub registry: Option<String>,
    pub network: ClusterNetwork,
}

/// A key of `taskc.toml` that taskc ignores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectWarning {
    pub file: PathBuf,
    /// Dotted, e.g. `images.bsae`.
    pub key: String,
    /// The known key it most resembles, if any is close.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for ProjectWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: unknown key `{}` is ignored",
            self.file.display(),
            self.key
        )?;
        if let Some(s) = &self.suggestion {
            write!(f, "; did you mean `{s}`?")?;
        }
        Ok(())
    }
}

/// A `taskc.toml` taskc cannot use: what is wrong, where, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", file.display())]
pub struct ProjectError {
    pub file: PathBuf,
    pub message: String,
    pub hint: String,
}

impl Project {
    /// The nearest `taskc.toml` in `dir` or above; relative paths in it are taken from its
    /// folder. No file means the defaults.
    pub fn find(dir: &Path) -> Result<Project, ProjectError> {
        let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        for d in start.ancestors() {
            let f = d.join(PROJECT_FILE);
            let text = match std::fs::read_to_string(&f) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) if f.is_dir() => continue,
                Err(e) => {
                    return Err(ProjectError {
                        file: f,
                        message: format!("cannot read: {e}"),
                        hint: "make the file readable, or remove it".into(),
                    })
                }
            };
            return Project::parse(&f, &text, d);
        }
        Ok(Project::default())
    }

    /// Parse the text of `file`, whose relative paths start in `dir`.
    pub fn parse(file: &Path, text: &str, dir: &Path) -> Result<Project, ProjectError> {
        let fail = |message: String| ProjectError {
            file: file.to_path_buf(),
            message,
            hint: "see docs/cli.md, section `taskc.toml`".into(),
        };
        let value: toml::Value =
            toml::from_str(text).map_err(|e| fail(format!("not valid TOML: {e}")))?;
        let mut warnings = Vec::new();
        unknown_keys(file, "", &value, &mut warnings);
        let images = value.get("images");
        let base_image = match images.and_then(|i| i.get("base")) {
            None => None,
            Some(b) => Some(
                b.as_str()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| fail("`[images] base` must be a non-empty string".into()))?
                    .to_string(),
            ),
        };
        let site = site_settings(&value, dir).map_err(fail)?;
        let cluster_registry = match value.get("cluster").and_then(|c| c.get("registry")) {
            None => None,
            Some(r) => Some(
                r.as_str()
                    .filter(|s| is_registry(s))
                    .ok_or_else(|| {
                        fail(
                            "`[cluster] registry` must be `host:port` (no scheme, no path), \
                             e.g. \"127.0.0.1:5000\""
                                .into(),
                        )
                    })?
                    .to_string(),
            ),
        };
        let cluster_network = match value.get("cluster").and_then(|c| c.get("network")) {
            None => ClusterNetwork::Internal,
            Some(v) => match v.as_str() {
                Some("internal") => ClusterNetwork::Internal,
                Some("none") => ClusterNetwork::None,
                _ => {
                    return Err(fail(
                        "`[cluster] network` must be \"internal\" or \"none\"".into(),
                    ))
                }
            },
        };
        Ok(Project {
            file: Some(file.to_path_buf()),
            base_image,
            site,
            cluster_registry,
            cluster_network,
            warnings,
        })
    }
}

/// A Docker image reference as a `FROM` line takes it: non-empty, no white space or
/// control characters (a line break would add a Dockerfile instruction).
fn is_image_name(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// `host:port` with a non-empty host and a numeric port.
fn is_registry(s: &str) -> bool {
    match s.rsplit_once(':') {
        Some((host, port)) => {
            !host.is_empty()
                && !host.contains('/')
                && !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// `[cluster]` of the `taskc.toml` found from the working directory: the cluster is the
/// site's, not a spec's, and the backend is opened before any spec is read.
pub fn cluster() -> Result<Cluster, ProjectError> {
    let dir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let project = Project::find(&dir)?;
    Ok(Cluster {
        registry: project.cluster_registry,
        network: project.cluster_network,
    })
}

fn unknown_keys(file: &Path, table: &str, v: &toml::Value, out: &mut Vec<ProjectWarning>) {
    let Some(known) = KNOWN.iter().find(|(t, _)| *t == table).map(|(_, k)| *k) else {
        return;
    };
    let mut check = |map: &toml::map::Map<String, toml::Value>| {
        for (k, sub) in map {
            let path = if table.is_empty() {
                k.clone()
            } else {
                format!("{table}.{k}")
            };
            if known.contains(&k.as_str()) {
                unknown_keys(file, &path, sub, out);
                continue;
            }
            let suggestion = known
                .iter()
                .map(|c| (strsim::damerau_levenshtein(k, c), *c))
                .filter(|(d, c)| *d <= 2.max(c.len() / 3))
                .min()
                .map(|(_, c)| {
                    if table.is_empty() {
                        c.to_string()
                    } else {
                        format!("{table}.{c}")
                    }
                });
            out.push(ProjectWarning {
                file: file.to_path_buf(),
                key: path,
                suggestion,
            });
        }
    };
    match v {
        toml::Value::Table(map) => check(map),
        toml::Value::Array(items) => {
            for item in items {
                if let toml::Value::Table(map) = item {
                    check(map);
                }
            }
        }
        _ => {}
    }
}

/// `[sources] rewrite = [{ prefix = "…", to = "…" }, …]` and
/// `[images] ca_certificates = ["…", …]` of a parsed `taskc.toml` in folder `dir`.
fn site_settings(value: &toml::Value, dir: &Path) -> Result<Site, String> {
    let mut rules = Vec::new();
    if let Some(list) = value.get("sources").and_then(|s| s.get("rewrite")) {
        let items = list.as_array().ok_or(
            "`[sources] rewrite` must be a list of `{ prefix = \"…\", to = \"…\" }`".to_string(),
        )?;
        for (i, item) in items.iter().enumerate() {
            let field = |key: &str| {
                item.get(key)
                    .and_then(toml::Value::as_str)
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
                    .ok_or(format!(
                        "`[sources] rewrite` item {} needs a non-empty string `{key}`",
                        i + 1
                    ))
            };
            rules.push(UrlRewrite {
                prefix: field("prefix")?,
                to: field("to")?,
            });
        }
    }
    let mut ca_certificates = Vec::new();
    if let Some(list) = value.get("images").and_then(|s| s.get("ca_certificates")) {
        let not_paths = || "`[images] ca_certificates` must be a list of file paths".to_string();
        for item in list.as_array().ok_or_else(not_paths)? {
            ca_certificates.push(dir.join(item.as_str().ok_or_else(not_paths)?));
        }
    }
    let mut map = std::collections::BTreeMap::new();
    if let Some(table) = value.get("images").and_then(|s| s.get("map")) {
        let not_names = || {
            "`[images.map]` must map image names to local image names, e.g. \
             \"python:3.12-bookworm\" = \"taskc-standin/python:3.12\""
                .to_string()
        };
        for (name, stand_in) in table.as_table().ok_or_else(not_names)? {
            let stand_in = stand_in
                .as_str()
                .filter(|s| is_image_name(s))
                .ok_or_else(not_names)?;
            if !is_image_name(name) {
                return Err(not_names());
            }
            map.insert(name.clone(), stand_in.to_string());
        }
    }
    Ok(Site {
        rewrites: Rewrites::new(rules, dir),
        ca_certificates,
        image_map: super::ImageMap::new(map),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Project, ProjectError> {
        Project::parse(Path::new("/p/taskc.toml"), text, Path::new("/p"))
    }

    #[test]
    fn unknown_keys_warn_with_the_closest_known_key() {
        let p = parse(
            "[images]\nbsae = \"x\"\n[sources]\nrewrite = [{ prefix = \"a\", to = \"b\", too = 1 }]\n[colour]\n",
        )
        .unwrap();
        let shown: Vec<String> = p.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            shown,
            [
                "/p/taskc.toml: unknown key `colour` is ignored",
                "/p/taskc.toml: unknown key `images.bsae` is ignored; did you mean `images.base`?",
                "/p/taskc.toml: unknown key `sources.rewrite.too` is ignored; did you mean `sources.rewrite.to`?",
            ]
        );
        assert_eq!(p.base_image, None);
    }

    #[test]
    fn the_cluster_registry_is_host_and_port() {
        let p = parse("[cluster]\nregistry = \"127.0.0.1:5000\"\n").unwrap();
        assert_eq!(p.cluster_registry.as_deref(), Some("127.0.0.1:5000"));
        assert_eq!(p.cluster_network, ClusterNetwork::Internal);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = parse("[cluster]\nnetwork = \"none\"\n").unwrap();
        assert_eq!(p.cluster_network, ClusterNetwork::None);
        assert!(parse("[cluster]\nnetwork = \"host\"\n").is_err());
        for bad in ["http://r:5000", "r", "r:", ":5000", "r:5000/x", "r:port"] {
            let err = parse(&format!("[cluster]\nregistry = \"{bad}\"\n")).unwrap_err();
            assert!(err.message.contains("host:port"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_image_map_names_stand_ins() {
        let p = parse(
            "[images.map]\n\"python:3.12-bookworm\" = \"taskc-standin/python:3.12\"\n\"postgres:16\" = \"pg:local\"\n",
        )
        .unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            p.site.image_map.stand_in("python:3.12-bookworm"),
            Some("taskc-standin/python:3.12")
        );
        assert_eq!(p.site.image_map.stand_in("postgres:16"), Some("pg:local"));
        assert_eq!(p.site.image_map.stand_in("python:3.13-bookworm"), None);
        for bad in [
            "[images]\nmap = \"x\"\n",
            "[images.map]\n\"a\" = 1\n",
            "[images.map]\n\"a\" = \"\"\n",
            "[images.map]\n\"a\" = \"x\\nRUN evil\"\n",
            "[images.map]\n\"a b\" = \"x\"\n",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.message.contains("[images.map]"), "{bad}: {e}");
        }
    }

    #[test]
    fn malformed_files_are_errors_with_a_hint() {
        for bad in [
            "[images",
            "[images]\nbase = 3\n",
            "[sources]\nrewrite = \"x\"\n",
            "[images]\nca_certificates = [1]\n",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.to_string().starts_with("/p/taskc.toml: "), "{e}");
            assert!(e.hint.contains("docs/cli.md"), "{bad}");
        }
        let ok = parse("[images]\nbase = \"reg/x:1\"\n").unwrap();
        assert_eq!(ok.base_image.as_deref(), Some("reg/x:1"));
        assert!(ok.warnings.is_empty());
    }
}
