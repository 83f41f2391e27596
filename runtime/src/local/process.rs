//! Running one script as its own process group, with a timeout that kills the whole group,
//! and its output read through a pipe (code in the run cannot seek, truncate or rewrite
//! what taskc already received).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

/// How a local script ended.
pub(crate) struct Finished {
    pub exit_code: Option<i64>,
    pub timed_out: bool,
    /// The output passed the cap: the run was stopped there (killed).
    pub overflowed: bool,
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

/// How long output still in the pipe is read after the script ended and its group was
/// killed (an unsandboxed daemon could hold the pipe open for ever).
const DRAIN: Duration = Duration::from_secs(2);

/// Runs `argv` (the program, then its arguments) in `cwd` with exactly `env`; both output
/// streams go through one pipe into `log` as they arrive. At most `cap` bytes are kept: when
/// the output passes the cap the run is stopped (killed) and `overflowed` set. Kills the
/// process group on timeout, on overflow and after exit (no leftovers).
pub(crate) async fn run_script(
    argv: &[OsString],
    cwd: &Path,
    env: &[(String, String)],
    log: &Path,
    timeout: Duration,
    cap: u64,
) -> std::io::Result<Finished> {
    let Some((program, args)) = argv.split_first() else {
        return Err(std::io::Error::other("no program to run"));
    };
    let (mut reader, writer) = std::io::pipe()?;
    let mut file = std::fs::File::create(log)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer))
        .process_group(0)
        .kill_on_drop(true);
    let spawned = cmd.spawn();
    // The parent's copies of the write end go with `cmd`: EOF comes when the run's close.
    drop(cmd);
    let mut child = spawned?;
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<std::io::Result<()>>();
    let (full_tx, full_rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut kept: u64 = 0;
        let mut full = Some(full_tx);
        let mut buf = vec![0u8; 64 * 1024];
        let result = loop {
            match reader.read(&mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    let room = cap.saturating_sub(kept).min(n as u64) as usize;
                    if room > 0 {
                        if let Err(e) = file.write_all(&buf[..room]) {
                            break Err(e);
                        }
                        kept += room as u64;
                    }
                    if room < n {
                        if let Some(tx) = full.take() {
                            let _ = tx.send(());
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        let _ = done_tx.send(result);
    });
    let mut guard = GroupGuard(child.id().map(|p| p as i32));
    let exit_code = |status: std::process::ExitStatus| {
        use std::os::unix::process::ExitStatusExt;
        status
            .code()
            .map(i64::from)
            .or_else(|| status.signal().map(|s| 128 + i64::from(s)))
    };
    // A closed sender (the reader ended without overflow) must not count as overflow.
    let overflow = async {
        if full_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let finished = tokio::select! {
        status = child.wait() => Finished {
            exit_code: exit_code(status?),
            timed_out: false,
            overflowed: false,
        },
        () = overflow => {
            guard.kill();
            let status = child.wait().await?;
            Finished {
                exit_code: exit_code(status),
                timed_out: false,
                overflowed: true,
            }
        }
        () = tokio::time::sleep(timeout) => {
            guard.kill();
            let _ = child.wait().await;
            Finished {
                exit_code: None,
                timed_out: true,
                overflowed: false,
            }
        }
    };
    guard.kill();
    match tokio::time::timeout(DRAIN, done_rx).await {
        Ok(Ok(Err(e))) => return Err(e),
        Ok(_) => {}
        // Something outside the run still holds the pipe: what arrived so far is the log.
        Err(_) => {}
    }
    Ok(finished)
}

/// A wrapper that puts a command in a new network namespace with only loopback, if this
/// host allows it (`unshare --net` as root, `unshare --map-root-user --net` otherwise).
/// Used only when the sandbox is unavailable.
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
