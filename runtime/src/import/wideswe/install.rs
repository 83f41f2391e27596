//! The install steps of a WideSWE case's `environment/run_profile.sh`: its `pip install`
//! commands (`pip`, `pip3`, `python -m pip`, `uv pip`), read into typed steps and attributed
//! to the repositories whose profiles run them.
//!
//! WideSWE runs each profile's installs inside `docker run`, at test time, into a virtual
//! environment per profile. taskc builds one environment per task at image build, so the
//! importer keeps what the installs mean: the requirements (with their version specifiers)
//! become the recipe's `packages`, and installs of a repository's own folder (`-e .`,
//! `-e /workspace/repos/x`, `--group test`) become that repository's `setup` steps, always
//! editable so that gold and agent patches applied later are seen. What it cannot map (an
//! index URL, a constraints file, an argument built from a shell variable, another
//! installer) is reported with the offset where it is written, never guessed.
//!
//! Attribution, most specific first: the innermost `if`/`elif` condition around the command
//! that quotes a repository or profile name (`[[ "$MODE" == "packaging" ]]`); else the
//! profiles of `case "$profile" in` whose arm runs the command or calls the function
//! around it; else every repository with a profile.

/// One repository's folder installed by a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    /// The WideSWE repository whose folder is installed.
    pub repo: String,
    /// `.[extra,…]` extras, as written (without the brackets).
    pub extras: Option<String>,
    /// Written without `-e`: installed at image build, so made editable (a note).
    pub was_editable: bool,
    /// `--group` names (PEP 735 dependency groups of that folder's pyproject.toml).
    pub groups: Vec<String>,
    pub no_build_isolation: bool,
}

/// One `pip install` command of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// Byte offset of the command in the script.
    pub at: usize,
    /// WideSWE repositories the command is attributed to.
    pub repos: Vec<String>,
    /// Requirement specifiers (`pytest<9`, `coverage[toml]>=7.2.0`), as written.
    pub requirements: Vec<String>,
    /// Repository folders installed.
    pub locals: Vec<Local>,
    /// `-r file` requirement files, relative to the attributed repositories' folders.
    pub requirement_files: Vec<String>,
}

/// Something of the script the importer cannot map, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    pub at: usize,
    pub what: String,
}

/// One `cargo fetch` of the script: WideSWE fetches a Rust repository's crates before its
/// tests (with network), then runs them from its cache; taskc's runs have no network, so the
/// fetch becomes a `setup` step of the repositories it is attributed to (at image build).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    /// Byte offset of the command in the script.
    pub at: usize,
    /// WideSWE repositories the command is attributed to.
    pub repos: Vec<String>,
    /// The command as written (`cargo fetch --locked`), up to the end of the command.
    pub command: String,
}

/// What the script's installs are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installs {
    pub steps: Vec<Install>,
    pub fetches: Vec<Fetch>,
    pub unmapped: Vec<Unmapped>,
}

/// Options that change how pip works, not what it installs: dropped. The `bool` says
/// whether the option takes a value.
const DROPPED: &[(&str, bool)] = &[
    ("--python", true),
    ("-p", true),
    ("-q", false),
    ("--quiet", false),
    ("-v", false),
    ("--verbose", false),
    ("-U", false),
    ("--upgrade", false),
    ("--no-cache-dir", false),
    ("--no-cache", false),
    ("--disable-pip-version-check", false),
    ("--no-input", false),
    ("--progress-bar", true),
    ("--root-user-action", true),
    ("--system", false),
    ("--break-system-packages", false),
];

/// Options that change what is installed and take a value: reported, with their value.
const VALUED: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-c",
    "--constraint",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--platform",
    "--python-version",
    "--only-binary",
    "--no-binary",
];

/// Other installers the importer does not read: each use is reported.
const OTHER_INSTALLERS: &[&[&str]] = &[
    &["uv", "sync"],
    &["uv", "add"],
    &["poetry", "install"],
    &["pdm", "install"],
    &["pipenv", "install"],
    &["conda", "install"],
    &["mamba", "install"],
    &["pip-sync"],
];

pub use super::script::ScriptRepo;
use super::script::{attribute, logical_lines, words};

/// Read the installs of `script`. `profiles` are (profile name, repository name).
pub fn read(script: &str, repos: &[ScriptRepo<'_>], profiles: &[(String, String)]) -> Installs {
    let lines = logical_lines(script);
    let mut out = Installs::default();
    for (i, (at, line)) in lines.iter().enumerate() {
        if line.contains("fetch") {
            let ws = words(line);
            for start in cargo_fetches(&ws) {
                let args = &ws[start..];
                let args = &args[..args
                    .iter()
                    .position(|w| ["&&", "||", ";", "|", "&", ")", "'"].contains(&w.as_str()))
                    .unwrap_or(args.len())];
                if let Some(a) = args.iter().find(|a| a.contains('$')) {
                    out.unmapped.push(Unmapped {
                        at: *at,
                        what: format!(
                            "the `cargo fetch` argument `{a}`, built from a shell variable"
                        ),
                    });
                    continue;
                }
                let mut command = String::from("cargo fetch");
                for a in args {
                    command.push(' ');
                    command.push_str(&taskc_compiler::lower::shell_quote(a));
                }
                let repos = attribute(&lines, i, repos, profiles);
                if !out
                    .fetches
                    .iter()
                    .any(|f| f.command == command && f.repos == repos)
                {
                    out.fetches.push(Fetch {
                        at: *at,
                        repos,
                        command,
                    });
                }
            }
        }
        if !line.contains("install") && !line.contains("sync") {
            continue;
        }
        let words = expand(words(line));
        for other in OTHER_INSTALLERS {
            if words.windows(other.len()).any(|w| w == *other) {
                out.unmapped.push(Unmapped {
                    at: *at,
                    what: format!(
                        "`{}` installs with a tool the importer does not read",
                        other.join(" ")
                    ),
                });
            }
        }
        for start in pip_installs(&words) {
            let owners = attribute(&lines, i, repos, profiles);
            let args = &words[start..];
            let args = &args[..args
                .iter()
                .position(|w| ["&&", "||", ";", "|", "&", ")", "'"].contains(&w.as_str()))
                .unwrap_or(args.len())];
            let step = install(*at, args, &owners, repos, &mut out.unmapped);
            out.steps.push(step);
        }
    }
    out
}

/// Words that hold a whole command (`bash -c 'pip install …'`) split into theirs.
fn expand(ws: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for w in ws {
        if w.contains(char::is_whitespace) && w.contains("install") {
            out.push("'".into());
            out.extend(expand(words(&w)));
            out.push("'".into());
        } else {
            out.push(w);
        }
    }
    out
}

/// The index just after `install` of every pip install in `words` (`pip install`,
/// `pip3 install`, `/path/to/pip install`, `python -m pip install`, `uv pip install`).
fn pip_installs(words: &[String]) -> Vec<usize> {
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let is_python = |w: &str| {
        let b = base(w);
        b == "python" || b.starts_with("python3")
    };
    let mut out = Vec::new();
    for i in 1..words.len() {
        let prev = base(&words[i - 1]);
        if words[i] != "install" || (prev != "pip" && prev != "pip3") {
            continue;
        }
        let before = i.checked_sub(2).map(|j| words[j].as_str());
        let ok = match before {
            Some("-m") => i >= 3 && is_python(&words[i - 3]),
            _ => true,
        };
        if ok {
            out.push(i + 1);
        }
    }
    out
}

/// The index just after `fetch` of every `cargo fetch` in `words` (`cargo`, or a path to it).
fn cargo_fetches(words: &[String]) -> Vec<usize> {
    (1..words.len())
        .filter(|&i| words[i] == "fetch" && words[i - 1].rsplit('/').next() == Some("cargo"))
        .map(|i| i + 1)
        .collect()
}

/// One install command's arguments as a typed step.
fn install(
    at: usize,
    args: &[String],
    owners: &[String],
    repos: &[ScriptRepo<'_>],
    unmapped: &mut Vec<Unmapped>,
) -> Install {
    let mut step = Install {
        at,
        repos: owners.to_vec(),
        requirements: Vec::new(),
        locals: Vec::new(),
        requirement_files: Vec::new(),
    };
    let mut groups = Vec::new();
    let mut no_build_isolation = false;
    let mut paths: Vec<(String, bool)> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        // A redirection (`>/tmp/ecosync-pip.log`, `2> err`, `&>log`) is the shell's, not
        // pip's: its target is no requirement (case 4).
        if let Some(rest) = redirection(a) {
            if rest.is_empty() {
                it.next();
            }
            continue;
        }
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let value =
            |it: &mut std::slice::Iter<'_, String>| inline.clone().or_else(|| it.next().cloned());
        if let Some((_, takes)) = DROPPED.iter().find(|(f, _)| *f == flag) {
            if *takes {
                value(&mut it);
            }
            continue;
        }
        match flag {
            "-e" | "--editable" => {
                if let Some(v) = value(&mut it) {
                    paths.push((v, true));
                }
            }
            "--group" => {
                if let Some(v) = value(&mut it) {
                    groups.push(v);
                }
            }
            "--no-build-isolation" => no_build_isolation = true,
            "-r" | "--requirement" => {
                if let Some(v) = value(&mut it) {
                    if v.contains('$') || v.starts_with('/') {
                        unmapped.push(Unmapped {
                            at,
                            what: format!("the requirements file `{v}`"),
                        });
                    } else {
                        step.requirement_files.push(v);
                    }
                }
            }
            f if f.starts_with('-') => {
                if VALUED.contains(&f) && inline.is_none() {
                    it.next();
                }
                unmapped.push(Unmapped {
                    at,
                    what: format!("the pip option `{f}`"),
                })
            }
            _ if a.contains('$') => unmapped.push(Unmapped {
                at,
                what: format!("the argument `{a}`, built from a shell variable"),
            }),
            _ if a == "." || a.starts_with("./") || a.starts_with(".[") || a.starts_with('/') => {
                paths.push((a.clone(), false))
            }
            _ if a.starts_with(|c: char| c.is_ascii_alphanumeric()) && !a.contains("://") => {
                step.requirements.push(a.clone())
            }
            _ => unmapped.push(Unmapped {
                at,
                what: format!("the install argument `{a}`"),
            }),
        }
    }
    for (path, editable) in paths {
        let (folder, extras) = match path.split_once('[') {
            Some((f, e)) => (f.to_string(), Some(e.trim_end_matches(']').to_string())),
            None => (path.clone(), None),
        };
        let folder = folder.trim_end_matches('/');
        let targets: Vec<String> = if folder == "." {
            owners.to_vec()
        } else if let Some(r) = repos
            .iter()
            .find(|r| folder == format!("/workspace/{}", r.local_path.trim_end_matches('/')))
        {
            vec![r.name.to_string()]
        } else if let Some(r) = sibling(folder, repos) {
            // `./django-ansible-base` after `ln -sfn ../django-ansible-base
            // django-ansible-base`, or `../django-ansible-base`: the repository of that
            // name beside the one the profile works in (case 4).
            vec![r.name.to_string()]
        } else {
            unmapped.push(Unmapped {
                at,
                what: format!("the install of `{path}`, which is no repository's folder"),
            });
            continue;
        };
        for repo in targets {
            step.locals.push(Local {
                repo,
                extras: extras.clone(),
                was_editable: editable,
                // A dependency group belongs to the project in the working folder.
                groups: if folder == "." {
                    groups.clone()
                } else {
                    Vec::new()
                },
                no_build_isolation,
            });
        }
    }
    if !groups.is_empty() && !paths_have_cwd(&step) {
        unmapped.push(Unmapped {
            at,
            what: "`--group` without the project folder `.`".into(),
        });
    }
    step
}

/// What follows the redirection operator `word` starts with (`>`, `>>`, `2>`, `&>`, `<`),
/// empty when the target is the next word; `None` when `word` is no redirection.
fn redirection(word: &str) -> Option<&str> {
    let rest = word
        .strip_prefix("&>")
        .or_else(|| word.strip_prefix("2>"))
        .or_else(|| word.strip_prefix("1>"))
        .or_else(|| word.strip_prefix('>'))
        .or_else(|| word.strip_prefix('<'))?;
    let rest = rest.trim_start_matches('>');
    // `2>&1` names no file.
    Some(if rest.starts_with('&') { "&" } else { rest })
}

/// The repository whose folder is named by `folder` relative to a sibling of the working
/// folder (`./<name>` of a link to it, or `../<name>`), `<name>` the last part of its
/// WideSWE path.
fn sibling<'a>(folder: &str, repos: &'a [ScriptRepo<'a>]) -> Option<&'a ScriptRepo<'a>> {
    let name = folder
        .strip_prefix("./")
        .or_else(|| folder.strip_prefix("../"))?;
    if name.is_empty() || name.contains('/') {
        return None;
    }
    repos
        .iter()
        .find(|r| r.local_path.trim_end_matches('/').rsplit('/').next() == Some(name))
}

fn paths_have_cwd(step: &Install) -> bool {
    step.locals.iter().any(|l| !l.groups.is_empty())
}

impl Local {
    /// The `setup` command installing this folder into the task's environment.
    pub fn setup_command(&self) -> String {
        let mut cmd = String::from("python -m pip install");
        if self.no_build_isolation {
            cmd.push_str(" --no-build-isolation");
        }
        match &self.extras {
            Some(e) => cmd.push_str(&format!(" -e '.[{e}]'")),
            None => cmd.push_str(" -e ."),
        }
        for g in &self.groups {
            cmd.push_str(&format!(" --group {g}"));
        }
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repos() -> Vec<ScriptRepo<'static>> {
        vec![
            ScriptRepo {
                name: "lib",
                local_path: "repos/o/lib",
            },
            ScriptRepo {
                name: "app",
                local_path: "repos/o/app",
            },
        ]
    }

    fn profiles() -> Vec<(String, String)> {
        vec![
            ("lib-hidden".into(), "lib".into()),
            ("app-hidden".into(), "app".into()),
        ]
    }

    #[test]
    fn branches_naming_a_repository_attribute_their_installs() {
        let script = r#"run() {
  docker run img bash -c 'set -e
    if [[ "$LOCAL" == "1" ]]; then
      uv pip install --python "$V/bin/python" -e /workspace/repos/o/lib
    fi
    if [[ "$MODE" == "lib" ]]; then
      uv pip install --python "$V/bin/python" \
        -e . \
        "pytest<9" \
        pretend
    elif [[ "$MODE" == "app" ]]; then
      uv pip install -e . --group test "pytest<9"
    fi
    python -m pytest' bash "$@"
}
case "$profile" in
  lib-hidden)
    run lib
    ;;
  app-hidden)
    run app
    ;;
esac
"#;
        let got = read(script, &repos(), &profiles());
        assert_eq!(got.unmapped, []);
        assert_eq!(got.steps.len(), 3);
        assert_eq!(got.steps[0].repos, ["lib", "app"]);
        assert_eq!(got.steps[0].locals[0].repo, "lib");
        assert_eq!(got.steps[1].repos, ["lib"]);
        assert_eq!(got.steps[1].requirements, ["pytest<9", "pretend"]);
        assert_eq!(
            got.steps[1].locals[0].setup_command(),
            "python -m pip install -e ."
        );
        assert_eq!(got.steps[2].repos, ["app"]);
        assert_eq!(
            got.steps[2].locals[0].setup_command(),
            "python -m pip install -e . --group test"
        );
    }

    #[test]
    fn functions_are_attributed_through_the_profile_arms() {
        let script = "run_app() {\n  docker run img bash -lc '\n    python -m pip install --no-build-isolation -e /workspace/repos/o/lib\n    python -m pip install --no-build-isolation -e .\n  '\n}\ncase \"$profile\" in\n  app-hidden)\n    run_app\n    ;;\nesac\n";
        let got = read(script, &repos(), &profiles());
        assert_eq!(got.unmapped, []);
        assert_eq!(got.steps.len(), 2);
        assert!(got.steps.iter().all(|s| s.repos == ["app"]));
        assert_eq!(got.steps[0].locals[0].repo, "lib");
        assert_eq!(
            got.steps[1].locals[0].setup_command(),
            "python -m pip install --no-build-isolation -e ."
        );
    }

    #[test]
    fn what_cannot_be_mapped_is_reported() {
        let script = "pip install --index-url https://x.invalid/simple torch\npip install \"$PKG\"\nuv sync --group test\npip3 install /opt/wheels/a.whl\n";
        let got = read(script, &repos(), &profiles());
        let what: Vec<&str> = got.unmapped.iter().map(|u| u.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "the pip option `--index-url`",
                "the argument `$PKG`, built from a shell variable",
                "`uv sync` installs with a tool the importer does not read",
                "the install of `/opt/wheels/a.whl`, which is no repository's folder",
            ]
        );
        assert_eq!(got.unmapped[1].at, script.find("pip install \"").unwrap());
    }

    #[test]
    fn odd_scripts_never_panic() {
        for script in [
            "",
            "\\",
            "pip install",
            "pip install -e",
            "pip install --group",
            "python -m pip install --python",
            "'",
            "\"unterminated pip install x",
            "x() {\n}\n)\n;;\nesac\nfi\nelse\nif\n",
            "case \"$profile\" in\n  lib-hidden)\n    pip install -e .[x\n",
            "pip install -r $REQ -c c.txt --index-url=https://x.invalid ./ /workspace/ ..",
        ] {
            let _ = read(script, &repos(), &profiles());
        }
    }
}
