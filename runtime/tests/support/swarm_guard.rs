//! A single-node swarm for tests: `docker swarm init --advertise-addr 127.0.0.1` if the
//! engine is in none, and `docker swarm leave --force` when the last test process using it
//! exits — only if a test initialised it, and only if no service but taskc's is left.
//!
//! Test binaries (and processes) share it through a file lock: each holds a shared lock
//! while it lives; the one that initialised writes the owner file; at exit a process that
//! can take the lock exclusively is the last one and leaves. Included with `#[path]` by
//! every swarm test binary.

#![allow(dead_code)]

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::process::Command;
use std::sync::OnceLock;

const LOCK: &str = "/tmp/taskc-swarm-tests.lock";
/// The line of [`OWNER`] saying the swarm's init created `docker_gwbridge`.
const GWBRIDGE_MADE: &str = "gwbridge";
/// Present while a test initialised the swarm (so a test must leave it).
const OWNER: &str = "/tmp/taskc-swarm-tests.owner";

static HELD: OnceLock<Result<File, String>> = OnceLock::new();

fn flock(f: &File, op: libc::c_int) -> bool {
    // SAFETY: flock on a descriptor this process owns.
    unsafe { libc::flock(f.as_raw_fd(), op) == 0 }
}

fn swarm_state() -> String {
    Command::new("docker")
        .args(["info", "--format", "{{.Swarm.LocalNodeState}}"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Makes sure the engine is a swarm manager for the rest of this process.
pub fn ensure_swarm() -> Result<(), String> {
    HELD.get_or_init(|| {
        let f = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(LOCK)
            .map_err(|e| format!("open {LOCK}: {e}"))?;
        if !flock(&f, libc::LOCK_EX) {
            return Err(format!("lock {LOCK}"));
        }
        let state = swarm_state();
        if state != "active" {
            // `swarm init` creates the `docker_gwbridge` network and `swarm leave` keeps it:
            // remembered so that leaving removes it too when it was not there before.
            let had_gwbridge = Command::new("docker")
                .args(["network", "inspect", "docker_gwbridge"])
                .output()
                .is_ok_and(|o| o.status.success());
            let out = Command::new("docker")
                .args(["swarm", "init", "--advertise-addr", "127.0.0.1"])
                .output()
                .map_err(|e| format!("docker swarm init: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "docker swarm init failed (swarm state was `{state}`): {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            let owner = match had_gwbridge {
                true => std::process::id().to_string(),
                false => format!("{}\n{GWBRIDGE_MADE}", std::process::id()),
            };
            std::fs::write(OWNER, owner).map_err(|e| format!("write {OWNER}: {e}"))?;
        }
        // Shared from now on: other test processes may use the swarm too.
        if !flock(&f, libc::LOCK_SH) {
            return Err(format!("lock {LOCK} shared"));
        }
        // SAFETY: registering a plain `extern "C"` function.
        unsafe { libc::atexit(leave_at_exit) };
        Ok(f)
    })
    .as_ref()
    .map(|_| ())
    .map_err(Clone::clone)
}

/// Whether services other than taskc's (labelled `taskc.session`) exist.
fn foreign_services() -> bool {
    let all = Command::new("docker")
        .args(["service", "ls", "-q"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().count())
        .unwrap_or(1);
    let ours = Command::new("docker")
        .args(["service", "ls", "-q", "--filter", "label=taskc.session"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().count())
        .unwrap_or(0);
    all > ours
}

extern "C" fn leave_at_exit() {
    let Some(Ok(f)) = HELD.get() else { return };
    // The last test process using the swarm takes the lock exclusively.
    if !flock(f, libc::LOCK_EX | libc::LOCK_NB) {
        return;
    }
    if std::path::Path::new(OWNER).exists() && !foreign_services() {
        let _ = Command::new("docker")
            .args(["swarm", "leave", "--force"])
            .output();
        let made = std::fs::read_to_string(OWNER).unwrap_or_default();
        if made.lines().any(|l| l == GWBRIDGE_MADE) {
            let _ = Command::new("docker")
                .args(["network", "rm", "docker_gwbridge"])
                .output();
        }
        let _ = std::fs::remove_file(OWNER);
    }
    flock(f, libc::LOCK_UN);
}
