//! `agent_cargo_workspace_patches` of harness.yaml: WideSWE routes a crates.io package to a
//! repository of the workspace by writing `/workspace/.cargo/config.toml` before the tests
//! run, so every cargo build in the workspace (the consumer's tests included) uses the
//! repository's sources. The spec does the same in a `setup` step writing
//! `/work/.cargo/config.toml` (repositories are siblings under `/work/`; cargo reads the
//! config of every folder above the one it runs in, and a config's relative `path` is
//! relative to the folder holding `.cargo`).
//!
//! What WideSWE writes depends on the entry's form:
//! - `crate: repos/x` or `{ path: repos/x }`: `[patch.crates-io] crate = { path = … }`: the
//!   spec writes exactly that.
//! - `locked_version: V`: the same patch over a copy whose `[package] version` is rewritten
//!   to V; `locked_manifest_cache_path: M`: a `paths = […]` override over a copy whose
//!   `Cargo.toml` is the crates.io manifest M from WideSWE's cargo cache (so `Cargo.lock`
//!   keeps the locked version). Neither copy can be made from the case's files: the spec
//!   writes the plain `[patch.crates-io]` entry and a note says what differs.

use super::case::CaseRepo;

/// One entry of `agent_cargo_workspace_patches`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CargoPatch {
    /// The crates.io package routed to the repository.
    pub krate: String,
    /// The repository's folder in WideSWE's workspace (`repos/getsentry/rust-proguard`).
    pub path: String,
    /// `locked_version`, when given.
    pub locked_version: Option<String>,
    /// `locked_manifest_cache_path`, when given.
    pub locked_manifest: Option<String>,
    /// Where the entry is written in harness.yaml.
    pub at: usize,
}

impl CargoPatch {
    /// What the spec does not reproduce of WideSWE's routing of this entry, if anything.
    pub fn differs(&self) -> Option<String> {
        if let Some(m) = &self.locked_manifest {
            return Some(format!(
                "WideSWE builds `{}` from the repository's sources under the crates.io manifest `{m}` of its own cargo cache (a `paths` override, so Cargo.lock keeps the locked version); the spec patches crates.io with the repository's own Cargo.toml, so cargo resolves the lock to the repository's version and dependencies",
                self.krate
            ));
        }
        self.locked_version.as_ref().map(|v| {
            format!(
                "WideSWE patches `{}` with a copy of the repository whose `[package] version` is rewritten to `{v}`; the spec patches with the repository's own Cargo.toml, so cargo resolves the lock to the repository's version",
                self.krate
            )
        })
    }
}

/// The spec name of the repository at `path`, if the case has one there.
pub fn repository<'a>(patch: &CargoPatch, repos: &'a [CaseRepo]) -> Option<&'a CaseRepo> {
    let want = patch.path.trim_matches('/');
    repos
        .iter()
        .find(|r| r.local_path.trim_matches('/') == want)
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `setup` command writing `/work/.cargo/config.toml` (from a repository folder, so
/// `../.cargo`) with one `[patch.crates-io]` line per (crate, spec repository name), sorted
/// by crate as WideSWE writes them. It refuses to overwrite a different config, as WideSWE's
/// harness does.
pub fn setup_command(entries: &[(String, String)]) -> String {
    let mut sorted: Vec<_> = entries.to_vec();
    sorted.sort();
    sorted.dedup();
    let mut toml = String::from("[patch.crates-io]\n");
    for (krate, repo) in &sorted {
        toml.push_str(&format!(
            "{} = {{ path = {} }}\n",
            toml_string(krate),
            toml_string(repo)
        ));
    }
    // Single-quoted for bash: the TOML holds no single quote (crate names are
    // [A-Za-z0-9_-], repository names [A-Za-z0-9_.-]).
    let printf_arg = toml.replace('\n', "\\n");
    format!(
        "mkdir -p ../.cargo && if [ -s ../.cargo/config.toml ]; then echo 'a different /work/.cargo/config.toml exists' >&2; exit 1; fi && printf '{printf_arg}' > ../.cargo/config.toml"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(locked_version: Option<&str>, manifest: Option<&str>) -> CargoPatch {
        CargoPatch {
            krate: "proguard".into(),
            path: "repos/getsentry/rust-proguard".into(),
            locked_version: locked_version.map(Into::into),
            locked_manifest: manifest.map(Into::into),
            at: 0,
        }
    }

    #[test]
    fn plain_path_is_reproduced() {
        assert_eq!(p(None, None).differs(), None);
    }

    #[test]
    fn locked_forms_say_what_differs() {
        let m = p(None, Some("cargo-home/x/proguard-5.8.0/Cargo.toml"))
            .differs()
            .unwrap_or_default();
        assert!(
            m.contains("proguard-5.8.0/Cargo.toml") && m.contains("paths"),
            "{m}"
        );
        let v = p(Some("5.8.0"), None).differs().unwrap_or_default();
        assert!(v.contains("`5.8.0`"), "{v}");
    }

    #[test]
    fn command_writes_sorted_patch_table() {
        let c = setup_command(&[
            ("b".into(), "rb".into()),
            ("a".into(), "ra".into()),
            ("a".into(), "ra".into()),
        ]);
        assert_eq!(
            c,
            "mkdir -p ../.cargo && if [ -s ../.cargo/config.toml ]; then echo 'a different /work/.cargo/config.toml exists' >&2; exit 1; fi && printf '[patch.crates-io]\\n\"a\" = { path = \"ra\" }\\n\"b\" = { path = \"rb\" }\\n' > ../.cargo/config.toml"
        );
    }
}
