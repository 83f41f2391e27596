//! SWE-bench's install specification per repository and version (`specs.json`, exported from
//! the `swebench` package by scripts/export-swebench-specs.py; MIT licence in
//! SWEBENCH-LICENSE), turned into a Dockerfile and setup steps.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The Python the default base image (`taskc/base:bookworm`) ships.
pub const BASE_PYTHON: &str = "3.11";

#[derive(Debug, Clone, Deserialize)]
struct Export {
    specs: BTreeMap<String, BTreeMap<String, RawSpec>>,
}

#[derive(Debug, Clone, Deserialize)]
struct RawSpec {
    python: Option<String>,
    packages: Option<String>,
    #[serde(default)]
    pre_install: Vec<String>,
    install: Option<String>,
    #[serde(default)]
    pip_packages: Vec<String>,
    test_cmd: Option<serde_json::Value>,
}

fn export() -> Option<&'static Export> {
    static EXPORT: OnceLock<Option<Export>> = OnceLock::new();
    EXPORT
        .get_or_init(|| serde_json::from_str(include_str!("specs.json")).ok())
        .as_ref()
}

/// What the importer takes from one specification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub python: String,
    /// `pip install` requirements baked into the environment image.
    pub pip: Vec<String>,
    /// Setup steps run in the repository's folder (pre_install, then install).
    pub setup: Vec<String>,
    pub test_cmd: String,
    /// What the export asks for that the environment does not reproduce.
    pub notes: Vec<String>,
}

/// The specification of `repo` at `version`.
pub fn lookup(repo: &str, version: &str) -> Option<Spec> {
    let raw = export()?.specs.get(repo)?.get(version)?.clone();
    let test_cmd = match raw.test_cmd? {
        serde_json::Value::String(s) => s,
        serde_json::Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(" && "),
        _ => return None,
    };
    let mut pip = raw.pip_packages.clone();
    let mut setup = raw.pre_install.clone();
    let mut notes = Vec::new();
    match raw.packages.as_deref() {
        None | Some("") => {}
        Some("requirements.txt") => setup.push("python -m pip install -r requirements.txt".into()),
        Some("environment.yml") => notes.push(format!(
            "SWE-bench builds `{repo}` {version} from a conda environment.yml; the importer does not reproduce conda environments"
        )),
        Some(list) => pip.extend(list.split_whitespace().map(str::to_string)),
    }
    if let Some(i) = raw.install {
        setup.push(i);
    }
    Some(Spec {
        python: raw.python.unwrap_or_else(|| BASE_PYTHON.to_string()),
        pip,
        setup,
        test_cmd,
        notes,
    })
}

/// The environment image: the base image, a virtual environment with the base's python3,
/// and the pinned pip requirements.
pub fn dockerfile(spec: &Spec, base: Option<&str>) -> String {
    let mut df = format!(
        "FROM {}\nENV PATH=/opt/venv/bin:$PATH PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1\nRUN python3 -m venv --system-site-packages /opt/venv\n",
        base.unwrap_or("taskc/base:bookworm")
    );
    if !spec.pip.is_empty() {
        let quoted: Vec<String> = spec
            .pip
            .iter()
            .map(|p| format!("'{}'", p.replace('\'', "'\\''")))
            .collect();
        // pip's downloads stay in a BuildKit cache mount, outside the image (`docs/language.md`,
        // "Download caches"): a rebuild does not download them again.
        df.push_str(&format!(
            "RUN --mount=type=cache,id=taskc-pip,target=/root/.cache/pip pip install {}\n",
            quoted.join(" ")
        ));
    }
    df
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_parses_and_has_pytest() {
        let s = lookup("pytest-dev/pytest", "8.0").expect("pytest 8.0");
        assert!(s.test_cmd.contains("pytest"));
        assert!(s.setup.iter().any(|c| c.contains("pip install")));
        assert!(lookup("pytest-dev/pytest", "0.0-nope").is_none());
        let df = dockerfile(&s, None);
        assert!(df.starts_with("FROM taskc/base:bookworm\n"), "{df}");
    }
}
