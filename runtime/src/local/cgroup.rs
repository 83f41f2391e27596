//! A local run's share of the machine (issue 20, item 4; `docs/security.md`, defence 14):
//! bubblewrap has no cgroup of its own, so where the host's cgroup v1 controllers are
//! writable (taskc runs as root on a cgroup v1 host, as on the machines it is tested on)
//! every local run gets one group per controller, `/sys/fs/cgroup/<controller>/taskc/<run>`
//! (`cpu`: `/sys/fs/cgroup/cpu/taskc-<run>`, see below):
//!
//! - `cpu`: a hard CFS quota of the run's CPUs (`cpu.cfs_quota_us` over a 100 ms period), in
//!   a top-level group of its own: the kernel shares the CPU out among the groups of each
//!   level by weight, so runs under one `taskc` parent would share that one group's weight
//!   against the rest of the host, and a hostile neighbour would take half of what an
//!   honest run gets alone on a loaded host, whatever the quotas (issue 20, Done-when 2);
//! - `memory`: `memory.limit_in_bytes`, and the same for memory plus swap where the kernel
//!   accounts swap (no swap beyond the limit); a kill by the group's OOM killer
//!   (`memory.oom_control`'s `oom_kill`) makes the run `out-of-memory`, as on Docker;
//! - `pids`: `pids.max`, counted for the run alone (`prlimit --nproc` counts the test user
//!   across the host); its `pids.events` `max` count is the run's record of hitting it.
//!
//! The sandbox's first process joins the groups before it `exec`s bubblewrap (a `sh`
//! writing its own pid), so everything the run starts is in them. Where a controller is
//! missing or not writable (cgroup v2 without delegation, not root), the run has none of
//! them and the backend says so once (`LocalBackend::limits_note`); the process limit of
//! the script (`prlimit --nproc`) still applies.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::backend::Limits;

/// Where cgroup v1 controllers are mounted.
const ROOT: &str = "/sys/fs/cgroup";
/// The CFS period the quota is a share of (µs).
const PERIOD_US: u64 = 100_000;

/// The controllers a run gets a group in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Controller {
    Cpu,
    Memory,
    Pids,
}

impl Controller {
    const ALL: [Controller; 3] = [Controller::Cpu, Controller::Memory, Controller::Pids];

    fn name(self) -> &'static str {
        match self {
            Controller::Cpu => "cpu",
            Controller::Memory => "memory",
            Controller::Pids => "pids",
        }
    }
}

/// The groups of one run, removed (after killing what is left in them) when dropped.
#[derive(Debug)]
pub(crate) struct RunCgroup {
    dirs: Vec<(Controller, PathBuf)>,
}

/// Why the local backend's runs get no cgroup on this host, or `None` when they do.
pub(crate) fn unavailable() -> Option<String> {
    for c in Controller::ALL {
        let dir = Path::new(ROOT).join(c.name());
        if !dir.join("cgroup.procs").is_file() {
            return Some(format!(
                "no cgroup v1 `{}` controller at {}",
                c.name(),
                dir.display()
            ));
        }
        let parent = dir.join("taskc");
        if let Err(e) = std::fs::create_dir_all(&parent) {
            return Some(format!("cannot create {}: {e}", parent.display()));
        }
    }
    None
}

/// `limits` as the values written into each controller: `(controller, file, value)`.
fn settings(limits: &Limits) -> Vec<(Controller, &'static str, String)> {
    let mut out = Vec::new();
    if let Some(cpus) = limits.cpus.filter(|c| *c > 0.0) {
        let quota = (cpus * PERIOD_US as f64).round() as u64;
        out.push((Controller::Cpu, "cpu.cfs_period_us", PERIOD_US.to_string()));
        out.push((
            Controller::Cpu,
            "cpu.cfs_quota_us",
            quota.max(1000).to_string(),
        ));
    }
    if let Some(bytes) = limits.memory_bytes {
        out.push((
            Controller::Memory,
            "memory.limit_in_bytes",
            bytes.to_string(),
        ));
        // Optional: only where the kernel accounts swap (`swapaccount=1`).
        out.push((
            Controller::Memory,
            "memory.memsw.limit_in_bytes",
            bytes.to_string(),
        ));
    }
    if let Some(pids) = limits.pids.filter(|p| *p > 0) {
        out.push((Controller::Pids, "pids.max", pids.to_string()));
    }
    out
}

impl RunCgroup {
    /// Groups for run `run_id` with `limits`, or why not (nothing is left behind then).
    pub(crate) fn create(run_id: &str, limits: &Limits) -> Result<RunCgroup, String> {
        let name: String = run_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut group = RunCgroup { dirs: Vec::new() };
        for c in Controller::ALL {
            let dir = match c {
                Controller::Cpu => Path::new(ROOT).join("cpu").join(format!("taskc-{name}")),
                _ => Path::new(ROOT).join(c.name()).join("taskc").join(&name),
            };
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            group.dirs.push((c, dir));
        }
        for (c, file, value) in settings(limits) {
            let Some(dir) = group.dir(c) else { continue };
            let path = dir.join(file);
            if file == "memory.memsw.limit_in_bytes" && !path.exists() {
                continue;
            }
            std::fs::write(&path, &value)
                .map_err(|e| format!("cannot write {value} to {}: {e}", path.display()))?;
        }
        Ok(group)
    }

    fn dir(&self, c: Controller) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|(k, _)| *k == c)
            .map(|(_, d)| d.as_path())
    }

    /// `argv` started inside the groups: a `sh` writes its own pid into each group, then
    /// `exec`s it (same pid: nothing the run starts is outside).
    pub(crate) fn wrap(&self, argv: Vec<OsString>) -> Vec<OsString> {
        let mut out: Vec<OsString> = [
            "sh",
            "-c",
            "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit 125; shift; done; shift; exec \"$@\"",
            "taskc-cgroup",
        ]
        .map(OsString::from)
        .to_vec();
        for (_, d) in &self.dirs {
            out.push(d.join("cgroup.procs").into_os_string());
        }
        out.push("--".into());
        out.extend(argv);
        out
    }

    /// How many times the group's OOM killer killed a process of the run.
    pub(crate) fn oom_kills(&self) -> u64 {
        self.dir(Controller::Memory)
            .and_then(|d| std::fs::read_to_string(d.join("memory.oom_control")).ok())
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("oom_kill ")?.trim().parse().ok())
            })
            .unwrap_or(0)
    }

    /// How many forks were refused at the run's process limit.
    pub(crate) fn pids_max_hits(&self) -> u64 {
        self.dir(Controller::Pids)
            .and_then(|d| std::fs::read_to_string(d.join("pids.events")).ok())
            .and_then(|t| {
                t.lines()
                    .find_map(|l| l.strip_prefix("max ")?.trim().parse().ok())
            })
            .unwrap_or(0)
    }

    /// The pids still in the run's groups.
    fn members(&self) -> Vec<i32> {
        let mut pids: Vec<i32> = self
            .dirs
            .iter()
            .filter_map(|(_, d)| std::fs::read_to_string(d.join("cgroup.procs")).ok())
            .flat_map(|t| {
                t.lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect::<Vec<i32>>()
            })
            .collect();
        pids.sort_unstable();
        pids.dedup();
        pids
    }
}

impl Drop for RunCgroup {
    fn drop(&mut self) {
        // Whatever is left (the sandbox's pid namespace normally took it along) is killed;
        // an empty group can be removed.
        for _ in 0..50 {
            let left = self.members();
            if left.is_empty() {
                break;
            }
            for pid in left {
                // SAFETY: kill(2) has no memory-safety preconditions.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        for (_, d) in &self.dirs {
            let _ = std::fs::remove_dir(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_become_the_controllers_values() {
        let s = settings(&Limits {
            memory_bytes: Some(4 << 30),
            cpus: Some(1.5),
            pids: Some(4096),
        });
        let get = |f: &str| {
            s.iter()
                .find(|(_, k, _)| *k == f)
                .map(|(_, _, v)| v.clone())
        };
        assert_eq!(get("cpu.cfs_quota_us").as_deref(), Some("150000"));
        assert_eq!(get("cpu.cfs_period_us").as_deref(), Some("100000"));
        assert_eq!(get("memory.limit_in_bytes").as_deref(), Some("4294967296"));
        assert_eq!(
            get("memory.memsw.limit_in_bytes").as_deref(),
            Some("4294967296")
        );
        assert_eq!(get("pids.max").as_deref(), Some("4096"));
        assert!(settings(&Limits::default()).is_empty());
    }
}
