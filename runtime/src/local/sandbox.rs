//! The local backend's sandbox: every run (and every image setup) under Debian's
//! `bubblewrap` (`bwrap`).
//!
//! What a sandboxed process sees:
//! - new pid, mount, ipc and uts namespaces, and a new network namespace (loopback only)
//!   unless the request asks for the network (setup commands); a fresh `/proc` of its own pid
//!   namespace, a minimal `/dev`, `/tmp`, `/var/tmp` and `/dev/shm` as empty tmpfs;
//! - read-only: the system folders (`/usr`, `/etc`, `/opt`, the `/bin`-style links) and the
//!   folders of `PATH` (with a version manager's root for a `…/shims` entry, e.g. pyenv);
//! - writable: only the run's own workspace, its copy of the image mounted at the image
//!   folder's path (so absolute paths recorded by setup resolve into the copy, never into
//!   the cached image), its `HOME` and `TMPDIR`;
//! - not at all: the cache (images, results, other runs), the caller's working folder (the
//!   spec folder, typically), other processes, the host's `/proc`, `/sys`, `/run` and with it
//!   the Docker socket, `/home`, `/root`.
//!
//! Every process dies with the run: `--die-with-parent` and the pid namespace (when its first
//! process exits, the kernel kills the rest). The script runs as root *inside* the sandbox
//! (the run-script contract: it applies patches and drops to the unprivileged test user for
//! the test command with `setpriv`), with the bounding set cut to what that needs
//! (`CAP_SYS_ADMIN`, `CAP_MKNOD`, `CAP_NET_*`, … dropped: no remount, no device nodes).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Whether runs are sandboxed, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Runs execute under bubblewrap (the program's path).
    Sandboxed { bwrap: PathBuf },
    /// Runs execute as plain host processes: only the spec's own patches (the `gold` and
    /// `empty` baselines) may run; a prediction's code is refused.
    Unsandboxed { reason: String },
}

impl SandboxStatus {
    pub fn is_sandboxed(&self) -> bool {
        matches!(self, SandboxStatus::Sandboxed { .. })
    }
}

/// The environment variable naming the bubblewrap program (default: `bwrap` on `PATH`);
/// set it to an empty string to run unsandboxed.
pub const BWRAP_VAR: &str = "TASKC_BWRAP";

/// Capabilities the harness keeps inside the sandbox (it runs as root there): enough to
/// own files, read any of them, change their mode and drop to the test user.
const KEEP_CAPS: &[&str] = &[
    "CAP_CHOWN",
    "CAP_DAC_OVERRIDE",
    "CAP_DAC_READ_SEARCH",
    "CAP_FOWNER",
    "CAP_FSETID",
    "CAP_KILL",
    "CAP_SETGID",
    "CAP_SETUID",
    "CAP_SETPCAP",
];

/// System folders shown read-only (a symlink, as on merged-/usr systems, is recreated).
const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
];

/// Empty, world-writable (sticky) folders every sandbox gets.
const TMPFS: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// Never shown, even when `PATH` names a folder below them.
const NEVER: &[&str] = &["/proc", "/sys", "/dev", "/run", "/var/run"];

/// A working bubblewrap and the read-only view every sandbox gets.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    bwrap: PathBuf,
    /// The read-only view: system folders and `PATH` folders, masks over hidden ones.
    view: View,
    /// Whether taskc runs as root (capabilities can be chosen only then).
    root: bool,
}

/// The writable parts of one sandbox.
pub(crate) struct Mounts<'a> {
    /// `(host folder, path inside)`, mounted read-write in this order.
    pub rw: Vec<(&'a Path, &'a Path)>,
    /// The working folder inside.
    pub chdir: &'a Path,
    /// Share the host's network (setup commands); runs get a network namespace of their own.
    pub network: bool,
}

impl Sandbox {
    /// Finds bubblewrap (`chosen`, else `$TASKC_BWRAP`, else `bwrap` on `path_var`) and
    /// checks that every namespace the sandbox needs is granted on this host. `never`
    /// folders are not shown at all (not even a `PATH` folder inside them); `hidden` ones are
    /// masked below shown folders, but a `PATH` folder inside one stays shown.
    pub(crate) fn probe(
        chosen: Option<Option<PathBuf>>,
        path_var: &str,
        never: &[PathBuf],
        hidden: &[PathBuf],
    ) -> Result<Sandbox, String> {
        let from_env = || match std::env::var_os(BWRAP_VAR) {
            Some(p) if p.is_empty() => Some(None),
            Some(p) => Some(Some(PathBuf::from(p))),
            None => None,
        };
        let bwrap = match chosen.or_else(from_env) {
            Some(None) => return Err(format!("sandboxing is switched off: {BWRAP_VAR} is empty")),
            Some(Some(p)) => p,
            None => find_on_path(path_var, "bwrap").ok_or_else(|| {
                "bubblewrap (`bwrap`) is not installed: install Debian's `bubblewrap` \
                 (scripts/setup.sh does)"
                    .to_string()
            })?,
        };
        if !bwrap.is_file() {
            return Err(format!("{} does not exist", bwrap.display()));
        }
        // SAFETY: geteuid(2) has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let sandbox = Sandbox {
            view: view(path_var, never, hidden),
            bwrap,
            root,
        };
        sandbox.check()?;
        Ok(sandbox)
    }

    /// The bubblewrap program.
    pub(crate) fn program(&self) -> &Path {
        &self.bwrap
    }

    /// Runs `true` in a full sandbox; on failure, names the namespace the host refuses.
    fn check(&self) -> Result<(), String> {
        let scratch = tempfile::tempdir().map_err(|e| format!("no temporary folder: {e}"))?;
        let inside = scratch.path().join("root");
        std::fs::create_dir_all(&inside).map_err(|e| e.to_string())?;
        let mounts = Mounts {
            rw: vec![(&inside, &inside)],
            chdir: &inside,
            network: false,
        };
        let mut argv = self.argv(&mounts);
        argv.push("true".into());
        let (ok, stderr) = run_quiet(&argv);
        if ok {
            return Ok(());
        }
        for ns in [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
        ] {
            let probe: Vec<OsString> = [
                self.bwrap.as_os_str(),
                "--ro-bind".as_ref(),
                "/".as_ref(),
                "/".as_ref(),
                ns.as_ref(),
                "true".as_ref(),
            ]
            .iter()
            .map(|s| s.to_os_string())
            .collect();
            let (ok, why) = run_quiet(&probe);
            if !ok {
                return Err(format!(
                    "{} refuses `{ns}` on this host: {}",
                    self.bwrap.display(),
                    why.trim()
                ));
            }
        }
        Err(format!(
            "{} cannot start a sandbox here: {}",
            self.bwrap.display(),
            stderr.trim()
        ))
    }

    /// `bwrap … --` for `mounts`; the command to run follows.
    pub(crate) fn argv(&self, mounts: &Mounts<'_>) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![self.bwrap.clone().into()];
        let words =
            |a: &mut Vec<OsString>, items: &[&str]| a.extend(items.iter().map(OsString::from));
        words(
            &mut a,
            &[
                "--die-with-parent",
                "--new-session",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--hostname",
                "taskc",
            ],
        );
        if !mounts.network {
            words(&mut a, &["--unshare-net"]);
        }
        if self.root {
            words(&mut a, &["--cap-drop", "ALL"]);
            for cap in KEEP_CAPS {
                words(&mut a, &["--cap-add", cap]);
            }
        }
        // Folders bwrap creates on the way to a mount point are 0700: create them 0755 first,
        // so the test user can reach what is mounted below them.
        let mut made: Vec<PathBuf> = Vec::new();
        let mut mkdirs = |a: &mut Vec<OsString>, target: &Path| {
            for dir in ancestors(target) {
                let exists = self.shows(&dir)
                    || dir == Path::new("/dev")
                    || TMPFS.iter().any(|t| dir == Path::new(t));
                if !exists && !made.contains(&dir) {
                    a.extend([
                        "--perms".into(),
                        "0755".into(),
                        "--dir".into(),
                        dir.clone().into(),
                    ]);
                    made.push(dir);
                }
            }
        };
        for (target, link) in &self.view.links {
            a.extend(["--symlink".into(), target.into(), link.into()]);
        }
        for dir in &self.view.binds {
            mkdirs(&mut a, dir);
            a.extend(["--ro-bind".into(), dir.into(), dir.into()]);
        }
        // A fresh /proc, but its sysctls read-only: root inside (the harness) could otherwise
        // set host-wide ones such as `kernel.core_pattern` (a command the host runs as root).
        words(
            &mut a,
            &[
                "--proc",
                "/proc",
                "--ro-bind",
                "/proc/sys",
                "/proc/sys",
                "--ro-bind-try",
                "/proc/sysrq-trigger",
                "/proc/sysrq-trigger",
                "--dev",
                "/dev",
            ],
        );
        for tmp in TMPFS {
            mkdirs(&mut a, Path::new(tmp));
            words(&mut a, &["--perms", "1777", "--tmpfs", tmp]);
        }
        for dir in &self.view.masks {
            a.extend(["--tmpfs".into(), dir.into()]);
        }
        for (host, inside) in &mounts.rw {
            mkdirs(&mut a, inside);
            a.extend(["--bind".into(), host.into(), inside.into()]);
        }
        a.extend(["--chdir".into(), mounts.chdir.into(), "--".into()]);
        a
    }

    /// Whether `dir` exists in the read-only view already (below a shown, unmasked folder).
    fn shows(&self, dir: &Path) -> bool {
        self.view.binds.iter().any(|b| dir.starts_with(b))
            && !self.view.masks.iter().any(|m| dir.starts_with(m))
    }
}

/// The read-only part of every sandbox.
#[derive(Debug, Clone, Default)]
struct View {
    /// `(target, link)`: system folders that are symlinks (merged /usr).
    links: Vec<(PathBuf, PathBuf)>,
    /// Folders bound read-only at their own path.
    binds: Vec<PathBuf>,
    /// Hidden folders below a bound one, covered by an empty tmpfs.
    masks: Vec<PathBuf>,
}

/// Proper ancestors of `path` below `/`, outermost first.
fn ancestors(path: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = path
        .ancestors()
        .skip(1)
        .filter(|p| p.parent().is_some())
        .map(Path::to_path_buf)
        .collect();
    out.reverse();
    out
}

fn find_on_path(path_var: &str, program: &str) -> Option<PathBuf> {
    path_var
        .split(':')
        .filter(|d| d.starts_with('/'))
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file())
}

fn run_quiet(argv: &[OsString]) -> (bool, String) {
    let Some((program, args)) = argv.split_first() else {
        return (false, "no program".into());
    };
    match std::process::Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", super::DEFAULT_PATH)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Ok(out) => (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ),
        Err(e) => (false, e.to_string()),
    }
}

/// System folders, `PATH` folders, then tmpfs masks over `hidden` folders below them.
fn view(path_var: &str, never: &[PathBuf], hidden: &[PathBuf]) -> View {
    let canon = |v: &[PathBuf]| -> Vec<PathBuf> {
        v.iter()
            .map(|h| std::fs::canonicalize(h).unwrap_or_else(|_| h.clone()))
            .filter(|h| h.parent().is_some())
            .collect()
    };
    let never = canon(never);
    let hidden: Vec<PathBuf> = never.iter().cloned().chain(canon(hidden)).collect();
    let mut v = View::default();
    for dir in SYSTEM {
        let path = Path::new(dir);
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(path) {
                    v.links.push((target, path.to_path_buf()));
                }
            }
            Ok(m) if m.is_dir() => v.binds.push(path.to_path_buf()),
            _ => {}
        }
    }
    for entry in path_var.split(':').filter(|d| d.starts_with('/')) {
        let Ok(dir) = std::fs::canonicalize(entry) else {
            continue;
        };
        // A version manager's shims (pyenv, rbenv, nodenv) exec from the manager's root.
        let shown = match dir.file_name() {
            Some(n) if n == "shims" => dir.parent().map_or(dir.clone(), Path::to_path_buf),
            _ => dir,
        };
        let refused = shown.parent().is_none()
            || NEVER.iter().any(|n| shown.starts_with(n))
            || never.iter().any(|h| shown.starts_with(h));
        if refused || v.binds.iter().any(|b| shown.starts_with(b)) {
            continue;
        }
        v.binds.retain(|b| !b.starts_with(&shown));
        v.binds.push(shown);
    }
    for h in &hidden {
        if v.binds.iter().any(|b| h.starts_with(b) && h != b) && h.is_dir() {
            v.masks.push(h.clone());
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_are_outermost_first_without_root() {
        assert_eq!(
            ancestors(Path::new("/a/b/c")),
            vec![PathBuf::from("/a"), PathBuf::from("/a/b")]
        );
        assert!(ancestors(Path::new("/a")).is_empty());
    }

    #[test]
    fn path_folders_are_shown_but_never_proc_run_or_hidden_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let tools = tmp.path().join("tools/bin");
        let cache = tmp.path().join("cache");
        let in_cache = cache.join("bin");
        let shims = tmp.path().join("pyenv/shims");
        for d in [&tools, &in_cache, &shims] {
            std::fs::create_dir_all(d).unwrap();
        }
        let path_var = format!(
            "{}:{}:{}:/run:relative/bin:/usr/bin",
            tools.display(),
            in_cache.display(),
            shims.display()
        );
        let v = view(&path_var, std::slice::from_ref(&cache), &[]);
        let binds: Vec<String> = v.binds.iter().map(|b| b.display().to_string()).collect();
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap().display().to_string();
        assert!(binds.contains(&canon(&tools)), "{binds:?}");
        assert!(
            !binds.contains(&canon(&shims)),
            "below pyenv's root: {binds:?}"
        );
        assert!(
            binds.contains(&canon(&tmp.path().join("pyenv"))),
            "{binds:?}"
        );
        assert!(!binds.contains(&canon(&in_cache)), "{binds:?}");
        assert!(!binds.iter().any(|b| b.starts_with("/run")), "{binds:?}");
        assert!(binds.contains(&"/usr".to_string()), "{binds:?}");
        assert!(
            !binds.iter().any(|b| b == "/usr/bin"),
            "covered by /usr: {binds:?}"
        );
    }

    #[test]
    fn a_hidden_folder_below_a_shown_one_is_masked() {
        let tmp = tempfile::tempdir().unwrap();
        let tools = tmp.path().join("tools");
        let cache = tools.join("cache");
        std::fs::create_dir_all(tools.join("bin")).unwrap();
        std::fs::create_dir_all(&cache).unwrap();
        let path_var = format!("{}", tools.join("bin").display());
        // PATH names tools/bin; tools/bin's parent is not shown, so nothing to mask …
        let v = view(&path_var, std::slice::from_ref(&cache), &[]);
        assert!(v.masks.is_empty(), "{v:?}");
        // … but a PATH entry *containing* the cache gets the cache masked.
        let v = view(
            &tools.display().to_string(),
            std::slice::from_ref(&cache),
            &[],
        );
        let canon = std::fs::canonicalize(&cache).unwrap();
        assert_eq!(v.masks, vec![canon.clone()], "{v:?}");
        // A caller's folder holding a PATH folder (pyenv below $HOME) keeps the tool shown.
        let v = view(&path_var, &[], std::slice::from_ref(&tools));
        let bin = std::fs::canonicalize(tools.join("bin")).unwrap();
        assert!(v.binds.contains(&bin), "{v:?}");
        // `/` as the caller's folder hides nothing it should not.
        let v = view(&path_var, &[], &[PathBuf::from("/")]);
        assert!(v.binds.contains(&bin) && v.masks.is_empty(), "{v:?}");
    }
}
