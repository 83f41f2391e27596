//! What a WideSWE cargo profile needs besides its test command (case 106,
//! `rust_lang_cargo_rustup_983bca136493`):
//!
//! - a *warm build*: WideSWE keeps each profile's cargo target directory between runs
//!   (`run_profile.sh`'s `CARGO_TARGET_DIR=/cache/target/…`), taskc's runs start from the task
//!   image, so every run would compile the whole test build (~300 crates for cargo's
//!   testsuite). The importer writes `setup "cargo test --no-run <the run's own options>"`: the
//!   exact selection the run compiles, built at base at image build; a run then rebuilds only
//!   what the gold, hidden or agent patch changed (cargo's fingerprints see the newer files).
//! - a *per-profile toolchain*: WideSWE runs each profile in its own image
//!   (`rust:1.89-bookworm` for rustup's tests, `base-rust:1.94.1` for cargo's); taskc's one
//!   environment has one default toolchain. When a profile's image names another Rust
//!   version than the environment's, that repository's setup installs it with rustup and its
//!   cargo commands run with that toolchain's `bin` first on PATH — as `run_profile.sh` does
//!   (`PATH=$ECOSYNC_RUST_TOOLCHAIN_DIR/bin:…`), not `cargo +<version>`: rustup's proxy sets
//!   `RUSTUP_TOOLCHAIN_SOURCE` in the tests' environment, which changes what rustup's own
//!   tests see.
//!
//! The text functions are pure; [`toolchains`] reads the case and writes the notes.

use std::collections::BTreeMap;

use super::case::Case;
use crate::import::files::{CaseFiles, Text};

/// The host triple taskc's images run on when `run_profile.sh` names no toolchain folder
/// (WideSWE's images are linux/amd64).
const HOST: &str = "x86_64-unknown-linux-gnu";

/// Why no warm build is written for a `cargo test` run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoWarmBuild {
    /// The run has no `cargo test`.
    NoCargoTest,
    /// It has several: each compiles its own selection.
    Several,
    /// Something other than `cd`, `export` and variable assignments runs before it.
    CommandBefore(String),
    /// A quoted argument (`--features "a b"`): the words cannot be taken apart safely.
    Quoted,
    /// `--doc`: doc-tests are compiled when they run (`cargo test --doc --no-run` fails).
    Doc,
}

impl NoWarmBuild {
    pub fn reason(&self) -> String {
        match self {
            NoWarmBuild::NoCargoTest => "the run has no `cargo test`".into(),
            NoWarmBuild::Several => "the run has several `cargo test`s".into(),
            NoWarmBuild::CommandBefore(w) => {
                format!("the run starts with `{w}` before `cargo test`")
            }
            NoWarmBuild::Quoted => {
                "the `cargo test` has a quoted argument the importer does not take apart".into()
            }
            NoWarmBuild::Doc => {
                "the run selects doc-tests (`--doc`), which cargo compiles when it runs them".into()
            }
        }
    }
}

/// Words of `s` with their byte ranges, split at whitespace.
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                out.push((b, &s[b..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

fn is_cargo(w: &str) -> bool {
    w == "cargo" || w.ends_with("/cargo")
}

fn is_separator(w: &str) -> bool {
    matches!(w, "&&" | "||" | ";" | "|" | "&")
        || w.starts_with('>')
        || w.starts_with("2>")
        || w.starts_with("1>")
        || w.starts_with('<')
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `cargo test` options that take their value as the next word.
const TAKES_VALUE: &[&str] = &[
    "-p",
    "--package",
    "--test",
    "--bench",
    "--bin",
    "--example",
    "--features",
    "-F",
    "--target",
    "--target-dir",
    "--manifest-path",
    "-j",
    "--jobs",
    "--profile",
    "--exclude",
    "--config",
    "-Z",
    "--color",
    "--message-format",
    "--lockfile-path",
];

/// The warm build of `run`, a `cargo test` command: `cargo test --no-run` with the run's own
/// options (packages, targets, features, profile, `--locked` …) and what stands before it
/// (`cd sub && `, variable assignments), without its test-name filters and the arguments
/// after `--` (they go to the test binaries, which `--no-run` does not start).
pub fn warm_build(run: &str) -> Result<String, NoWarmBuild> {
    let ws = words(run);
    let starts: Vec<usize> = (0..ws.len())
        .filter(|&i| is_cargo(ws[i].1))
        .filter(|&i| {
            let mut j = i + 1;
            if ws.get(j).is_some_and(|w| w.1.starts_with('+')) {
                j += 1;
            }
            ws.get(j).is_some_and(|w| w.1 == "test")
        })
        .collect();
    let start = match starts.as_slice() {
        [] => return Err(NoWarmBuild::NoCargoTest),
        [s] => *s,
        _ => return Err(NoWarmBuild::Several),
    };
    // Before it: only `cd DIR`, `export`, assignments and the separators between them.
    let mut k = 0;
    while k < start {
        let w = ws[k].1;
        if w == "cd" {
            k += 2;
            continue;
        }
        let w_bare = w.trim_end_matches(';');
        if !(w_bare.is_empty()
            || w_bare == "export"
            || is_assignment(w_bare)
            || matches!(w, "&&" | ";"))
        {
            return Err(NoWarmBuild::CommandBefore(w.to_string()));
        }
        k += 1;
    }
    let prefix = &run[..ws[start].0];
    let mut out = format!("{prefix}{}", ws[start].1);
    let mut i = start + 1;
    if ws[i].1.starts_with('+') {
        out.push(' ');
        out.push_str(ws[i].1);
        i += 1;
    }
    out.push_str(" test --no-run");
    i += 1;
    let mut takes_value = false;
    for &(_, w) in &ws[i..] {
        if w.contains('"') || w.contains('\'') {
            return Err(NoWarmBuild::Quoted);
        }
        if takes_value {
            out.push(' ');
            out.push_str(w);
            takes_value = false;
            continue;
        }
        if w == "--" || is_separator(w) {
            break;
        }
        if w == "--doc" {
            return Err(NoWarmBuild::Doc);
        }
        if !w.starts_with('-') || w == "--no-fail-fast" || w == "--no-run" {
            // A test-name filter, or what `--no-run` already says.
            continue;
        }
        takes_value = TAKES_VALUE.contains(&w);
        out.push(' ');
        out.push_str(w);
    }
    Ok(out)
}

/// The Rust version an image's name says (`rust:1.89-bookworm` → `1.89`,
/// `ecosyncbench/base/base-rust:1.94.1` → `1.94.1`); `None` for another image or a tag
/// without a version (`rust:latest`).
pub fn image_rust_version(image: &str) -> Option<String> {
    let (name, tag) = image.rsplit_once(':')?;
    let last = name.rsplit('/').next().unwrap_or(name);
    if !last.split('-').any(|p| p == "rust") {
        return None;
    }
    let version = tag.split('-').next().unwrap_or(tag);
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    numeric.then(|| version.to_string())
}

/// Whether two versions name the same release (`1.94` and `1.94.1`).
fn same_version(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long == short || long.starts_with(&format!("{short}."))
}

/// The toolchain folders a script names (`/usr/local/rustup/toolchains/1.89.0-x86_64-…`),
/// with the version each holds.
fn script_toolchains(script: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let stop = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | ':' | '(' | ')');
    let mut from = 0;
    while let Some(at) = script[from..].find("/toolchains/") {
        let at = from + at;
        let start = script[..at].rfind(stop).map_or(0, |s| s + 1);
        let rest = &script[at + "/toolchains/".len()..];
        let len = rest
            .find(|c: char| stop(c) || c == '/')
            .unwrap_or(rest.len());
        let folder = &rest[..len];
        from = at + "/toolchains/".len() + len;
        let version = folder.split('-').next().unwrap_or("");
        if image_rust_version(&format!("rust:{version}")).is_none() {
            continue;
        }
        let path = format!("{}/toolchains/{folder}", &script[start..at]);
        if !out.iter().any(|(p, _)| p == &path) {
            out.push((path, version.to_string()));
        }
    }
    out
}

/// A Rust toolchain a repository's profile runs on, other than the environment's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    /// What `rustup toolchain install` is given (`1.89.0`).
    pub version: String,
    /// The toolchain's `bin` folder, put first on PATH for the repository's cargo commands.
    pub bin: String,
    /// The profile's image that names the version.
    pub image: String,
    /// The folder `run_profile.sh` names for it, when it names one.
    pub script_folder: Option<String>,
}

impl Toolchain {
    /// The toolchain a profile in `image` needs when the environment is built from
    /// `env_image` (`None` when both name the same Rust version, or either names none);
    /// `script` is `run_profile.sh`, whose toolchain folder for that version is used when it
    /// names one.
    pub fn needed(image: &str, env_image: &str, script: Option<&str>) -> Option<Toolchain> {
        let want = image_rust_version(image)?;
        let have = image_rust_version(env_image)?;
        if same_version(&want, &have) {
            return None;
        }
        let folder = script.and_then(|s| {
            script_toolchains(s)
                .into_iter()
                .find(|(_, v)| same_version(v, &want))
        });
        Some(match folder {
            Some((path, version)) => Toolchain {
                version,
                bin: format!("{path}/bin"),
                image: image.to_string(),
                script_folder: Some(path),
            },
            None => Toolchain {
                bin: format!("${{RUSTUP_HOME:-$HOME/.rustup}}/toolchains/{want}-{HOST}/bin"),
                version: want,
                image: image.to_string(),
                script_folder: None,
            },
        })
    }

    /// The setup step that installs it.
    pub fn install(&self) -> String {
        format!(
            "rustup toolchain install {} --profile minimal --no-self-update",
            self.version
        )
    }

    /// `command` with `PATH=<bin>:$PATH ` before each `cargo` it runs.
    pub fn on_path(&self, command: &str) -> String {
        let ws = words(command);
        let mut out = String::with_capacity(command.len() + 64);
        let mut last = 0;
        let mut command_position = true;
        for &(at, w) in &ws {
            if command_position && is_cargo(w) {
                out.push_str(&command[last..at]);
                out.push_str(&format!("PATH={}:$PATH ", self.bin));
                last = at;
            }
            command_position = is_separator(w)
                || w.ends_with(';')
                || (command_position && (is_assignment(w) || w == "export"));
        }
        out.push_str(&command[last..]);
        out
    }
}

/// The image the case's one environment is built from: the first scored repository's
/// profile image under WideSWE's agent layer (env.rs), else the Dockerfile's `FROM`.
fn environment_image(case: &Case) -> Option<String> {
    let df = case.dockerfile.as_ref()?;
    let from = super::graph::from_image(&df.text);
    if !super::env::is_agent_layer(&df.text) {
        return from;
    }
    case.profiles
        .iter()
        .find(|p| case.repos.iter().any(|r| r.target && r.name == p.repo))
        .and_then(|p| p.image.clone())
        .or(from)
}

/// The image of the profile that runs `repo`'s hidden tests (the one harness.yaml names,
/// else the repository's only profile).
fn profile_image<'c>(case: &'c Case, repo: &str) -> Option<&'c str> {
    let named = case
        .hidden
        .get(repo)
        .and_then(|ps| ps.iter().find_map(|p| p.profile.as_deref()));
    let mut own = case.profiles.iter().filter(|p| p.repo == repo);
    let profile = match named {
        Some(n) => case.profiles.iter().find(|p| p.name == n),
        None => own.next().filter(|_| own.next().is_none()),
    };
    profile.and_then(|p| p.image.as_deref())
}

/// The toolchain of each scored repository whose profile runs on another Rust than the
/// environment; with `notes`, a W1108 for each (and for a profile on a Rust version when the
/// environment's image names none: what it needs).
pub fn toolchains(case: &Case, files: &mut CaseFiles, notes: bool) -> BTreeMap<String, Toolchain> {
    let mut out = BTreeMap::new();
    let Some(env_image) = environment_image(case) else {
        return out;
    };
    let script = case.run_profile.as_ref().map(|t| t.text.as_str());
    for r in case.repos.iter().filter(|r| r.target) {
        let Some(image) = profile_image(case, &r.name) else {
            continue;
        };
        let at = case.profiles.iter().find(|p| p.repo == r.name);
        let Some(p) = at else { continue };
        let doc = Text {
            rel: p.doc.rel.clone(),
            source: p.doc.source,
            text: String::new(),
        };
        match Toolchain::needed(image, &env_image, script) {
            Some(t) => {
                if notes {
                    let folder = t
                        .script_folder
                        .as_ref()
                        .map_or(String::new(), |f| format!("; run_profile.sh's `{f}`"));
                    super::note(
                        files,
                        &doc,
                        p.command_at,
                        format!(
                            "WideSWE runs the tests of `{}` on Rust {} (`{image}`{folder}), the environment is built from `{env_image}`: the spec installs Rust {} with rustup in `{}`'s setup (`{}`) and runs its cargo commands with `{}` first on PATH (not `cargo +{}`: rustup's proxy would set `RUSTUP_TOOLCHAIN_SOURCE` for the tests)",
                            r.name,
                            image_rust_version(image).unwrap_or_default(),
                            t.version,
                            r.name,
                            t.install(),
                            t.bin,
                            t.version
                        ),
                        "the environment image needs rustup (the official rust images and taskc-standin/rust have it) and static.rust-lang.org at image build",
                    );
                }
                out.insert(r.name.clone(), t);
            }
            None => {
                let (Some(want), None) =
                    (image_rust_version(image), image_rust_version(&env_image))
                else {
                    continue;
                };
                if notes {
                    super::note(
                        files,
                        &doc,
                        p.command_at,
                        format!(
                            "WideSWE runs the tests of `{}` on Rust {want} (`{image}`); the environment is built from `{env_image}`, which names no Rust version, so the spec installs no toolchain",
                            r.name
                        ),
                        &format!("the environment needs Rust {want}: rustup in its image and `rustup toolchain install {want} --profile minimal --no-self-update` in the repository's setup, its cargo commands with that toolchain's bin first on PATH"),
                    );
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warm_build_compiles_what_the_run_compiles() {
        assert_eq!(
            warm_build("cargo test --test testsuite rustup -- --nocapture").as_deref(),
            Ok("cargo test --no-run --test testsuite")
        );
        assert_eq!(
            warm_build("cargo test --features=test --test test_bonanza suite::cli_rustup")
                .as_deref(),
            Ok("cargo test --no-run --features=test --test test_bonanza")
        );
        assert_eq!(
            warm_build(
                "cd crates/x && RUST_LOG=1 cargo +1.89.0 test --locked -p x --no-fail-fast a b"
            )
            .as_deref(),
            Ok("cd crates/x && RUST_LOG=1 cargo +1.89.0 test --no-run --locked -p x")
        );
        assert_eq!(warm_build("cargo test --doc"), Err(NoWarmBuild::Doc));
        assert_eq!(
            warm_build("cargo test --features \"a b\""),
            Err(NoWarmBuild::Quoted)
        );
        assert_eq!(
            warm_build("cargo test -p a && cargo test -p b"),
            Err(NoWarmBuild::Several)
        );
        assert_eq!(
            warm_build("make && cargo test"),
            Err(NoWarmBuild::CommandBefore("make".into()))
        );
        assert_eq!(warm_build("pytest"), Err(NoWarmBuild::NoCargoTest));
    }

    #[test]
    fn a_profile_on_another_rust_gets_its_toolchain() {
        assert_eq!(
            image_rust_version("ecosyncbench/base/rust:1.89-bookworm").as_deref(),
            Some("1.89")
        );
        assert_eq!(
            image_rust_version("ecosyncbench/base/base-rust:1.94.1").as_deref(),
            Some("1.94.1")
        );
        assert_eq!(image_rust_version("rust:latest"), None);
        assert_eq!(image_rust_version("ecosyncbench/base/python:3.12"), None);
        assert_eq!(image_rust_version("trust:1.2"), None);

        let script = "cargo_toolchain=\"/usr/local/rustup/toolchains/1.94.1-x86_64-unknown-linux-gnu\"\nrustup_toolchain=\"/usr/local/rustup/toolchains/1.89.0-x86_64-unknown-linux-gnu\"\n";
        let t = Toolchain::needed(
            "ecosyncbench/base/rust:1.89-bookworm",
            "ecosyncbench/base/base-rust:1.94.1",
            Some(script),
        )
        .expect("1.89 is not 1.94.1");
        assert_eq!(t.version, "1.89.0");
        assert_eq!(
            t.bin,
            "/usr/local/rustup/toolchains/1.89.0-x86_64-unknown-linux-gnu/bin"
        );
        assert_eq!(
            t.install(),
            "rustup toolchain install 1.89.0 --profile minimal --no-self-update"
        );
        assert_eq!(
            t.on_path("cd a && X=1 cargo test --test t; cargo fetch"),
            "cd a && X=1 PATH=/usr/local/rustup/toolchains/1.89.0-x86_64-unknown-linux-gnu/bin:$PATH cargo test --test t; PATH=/usr/local/rustup/toolchains/1.89.0-x86_64-unknown-linux-gnu/bin:$PATH cargo fetch"
        );
        // The same release, or an image without a version: nothing to install.
        assert_eq!(
            Toolchain::needed("rust:1.94", "base-rust:1.94.1", None),
            None
        );
        assert_eq!(Toolchain::needed("rust:1.89", "python:3.12", None), None);
        // No folder in the script: rustup's own.
        let t = Toolchain::needed("rust:1.89-bookworm", "rust:1.95", None).expect("differs");
        assert_eq!(t.version, "1.89");
        assert_eq!(
            t.bin,
            "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/1.89-x86_64-unknown-linux-gnu/bin"
        );
    }
}
