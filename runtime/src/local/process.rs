//! Running one script as its own process group, with a timeout that kills the whole group.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How a local script ended.
pub(crate) struct Finished {
    pub exit_code: Option<i64>,
    pub timed_out: bool,
}

/// Kills a process group when dropped (also when the run's future is cancelled).
struct GroupGuard(Option<i32>);

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            // SAFETY: kill(2) has no memory-safety preconditions; a negative pid names a group.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Runs `[prefix…] bash -euo pipefail -c script` in `cwd` with exactly `env`, both output
/// streams written to `log`; kills the process group on timeout and after exit (no leftovers).
/// `prefix` is a wrapper that execs its arguments (e.g. `unshare --net --`).
pub(crate) async fn run_script(
    prefix: &[String],
    script: &str,
    cwd: &Path,
    env: &[(String, String)],
    log: &Path,
    timeout: Duration,
) -> std::io::Result<Finished> {
    let out = std::fs::File::create(log)?;
    let err = out.try_clone()?;
    let mut cmd = match prefix.split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg("bash");
            cmd
        }
        None => Command::new("bash"),
    };
    cmd.args(["-euo", "pipefail", "-c", script])
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let mut guard = GroupGuard(child.id().map(|p| p as i32));
    let finished = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => {
            let status = status?;
            let code = status.code().map(i64::from).or_else(|| {
                use std::os::unix::process::ExitStatusExt;
                status.signal().map(|s| 128 + i64::from(s))
            });
            Finished {
                exit_code: code,
                timed_out: false,
            }
        }
        Err(_) => {
            guard.kill();
            let _ = child.wait().await;
            Finished {
                exit_code: None,
                timed_out: true,
            }
        }
    };
    guard.kill();
    Ok(finished)
}

/// A wrapper that puts a command in a new network namespace with only loopback, if this
/// host allows it (`unshare --net` as root, `unshare --map-root-user --net` otherwise).
pub(crate) fn probe_network_isolation() -> Option<Vec<String>> {
    let candidates: [&[&str]; 2] = [
        &["unshare", "--net", "--"],
        &["unshare", "--map-root-user", "--net", "--"],
    ];
    candidates.iter().find_map(|prefix| {
        let works = std::process::Command::new(prefix[0])
            .args(&prefix[1..])
            .arg("true")
            .env_clear()
            .env("PATH", super::DEFAULT_PATH)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        works.then(|| prefix.iter().map(|s| s.to_string()).collect())
    })
}
