//! How a swarm task returns its results through its log stream, the only channel out of a
//! task on any node.
//!
//! The task's command is [`WRAPPER`]: it unpacks the run's inputs (configs mounted under
//! [`INPUT_DIR`]), takes the network down for an offline run, runs the script with its
//! stdout and stderr on one pipe (so the log keeps the order the process wrote it in), then
//! writes a trailer: `\n<nonce> exit=<code> oom=<kills>\n`, the collected files as a
//! base64 tar on one line, and `<nonce> end\n`. The nonce is random per attempt and
//! readable by root only inside the task: the test user cannot forge a trailer.
//! [`Splitter`] separates the log from the trailer as the stream arrives.

use std::collections::BTreeMap;

use base64::Engine as _;

/// Where the run's configs are mounted (root-only files).
pub(super) const INPUT_DIR: &str = "/run/taskc-in";
/// Where the inputs unpack the script, nonce and collect list (root-only files).
pub(super) const CONTROL_DIR: &str = "/run/taskc-swarm";

/// Exit status of the wrapper when it cannot prepare the run.
pub(super) const WRAPPER_FAILED: i64 = 125;

/// The task's command (`bash -c WRAPPER`). Runs as the image's user (root).
pub(super) const WRAPPER: &str = r#"set -u
fail() { echo "taskc-swarm: $*" >&2; exit 125; }
S=/run/taskc-swarm
cat /run/taskc-in/part-* | tar -x -p --numeric-owner --no-overwrite-dir -C / \
  || fail "cannot unpack the run's inputs"
N=$(cat "$S/nonce") || fail "the run's inputs have no nonce"
if [ -e "$S/offline" ]; then
  printf 'nameserver 127.0.0.1\n' > /etc/resolv.conf 2>/dev/null
  python3 - <<'PY' || fail "cannot take the run's network down (needs python3 in the image)"
import fcntl, os, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for name in os.listdir('/sys/class/net'):
    if name == 'lo':
        continue
    ifr = struct.pack('16sH', name.encode(), 0)
    flags = struct.unpack('16sH', fcntl.ioctl(s, 0x8913, ifr)[:18])[1]
    fcntl.ioctl(s, 0x8914, struct.pack('16sH', name.encode(), flags & ~1))
PY
fi
bash -euo pipefail -c "$(cat "$S/script")" 2>&1
code=$?
oom=0
if [ -r /sys/fs/cgroup/memory/memory.oom_control ]; then
  oom=$(awk '$1=="oom_kill"{print $2}' /sys/fs/cgroup/memory/memory.oom_control)
elif [ -r /sys/fs/cgroup/memory.events ]; then
  oom=$(awk '$1=="oom_kill"{print $2}' /sys/fs/cgroup/memory.events)
fi
printf '\n%s exit=%s oom=%s\n' "$N" "$code" "${oom:-0}"
list=()
while IFS= read -r p; do
  if [ -n "$p" ] && [ -e "$p" ]; then list+=("${p#/}"); fi
done < "$S/collect"
if [ ${#list[@]} -gt 0 ]; then
  tar -c --numeric-owner -C / -- "${list[@]}" 2>/dev/null | base64 -w 0
fi
printf '\n%s end\n' "$N"
exit 0
"#;

/// What the trailer said.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Trailer {
    pub exit_code: i64,
    pub oom_kills: u64,
    /// Collected files by absolute path.
    pub collected: BTreeMap<String, Vec<u8>>,
}

/// Splits the stream into the log (handed out as it arrives) and the trailer.
#[derive(Debug)]
pub(super) struct Splitter {
    nonce: String,
    /// `\n<nonce> exit=`.
    marker: Vec<u8>,
    /// Bytes that may still begin the marker.
    pending: Vec<u8>,
    /// From the nonce on, once the marker was seen.
    trailer: Option<Vec<u8>>,
}

impl Splitter {
    pub(super) fn new(nonce: &str) -> Splitter {
        Splitter {
            nonce: nonce.to_string(),
            marker: format!("\n{nonce} exit=").into_bytes(),
            pending: Vec::new(),
            trailer: None,
        }
    }

    /// Feeds a chunk; returns the bytes of it (and of earlier chunks) that are log.
    pub(super) fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        if let Some(t) = self.trailer.as_mut() {
            t.extend_from_slice(chunk);
            return Vec::new();
        }
        self.pending.extend_from_slice(chunk);
        if let Some(i) = memchr::memmem::find(&self.pending, &self.marker) {
            let log = self.pending[..i].to_vec();
            self.trailer = Some(self.pending[i + 1..].to_vec());
            self.pending.clear();
            return log;
        }
        let keep = (self.marker.len() - 1).min(self.pending.len());
        let cut = self.pending.len() - keep;
        let log = self.pending[..cut].to_vec();
        self.pending.drain(..cut);
        log
    }

    /// Whether the whole trailer arrived.
    pub(super) fn complete(&self) -> bool {
        let end = format!("\n{} end\n", self.nonce);
        self.trailer
            .as_ref()
            .is_some_and(|t| memchr::memmem::find(t, end.as_bytes()).is_some())
    }

    /// The log bytes still held back (the stream ended without a trailer).
    pub(super) fn rest(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.pending)
    }

    /// The parsed trailer, once [`Splitter::complete`].
    pub(super) fn trailer(&self) -> Result<Trailer, String> {
        let t = self.trailer.as_deref().ok_or("the task wrote no trailer")?;
        let text = std::str::from_utf8(t).map_err(|_| "the trailer is not UTF-8")?;
        let mut lines = text.split('\n');
        let head = lines.next().unwrap_or("");
        let mut exit_code = None;
        let mut oom_kills = 0;
        for word in head.split(' ').skip(1) {
            if let Some(v) = word.strip_prefix("exit=") {
                exit_code = v.parse::<i64>().ok();
            } else if let Some(v) = word.strip_prefix("oom=") {
                oom_kills = v.parse::<u64>().unwrap_or(0);
            }
        }
        let exit_code = exit_code.ok_or_else(|| format!("malformed trailer line `{head}`"))?;
        let archive = lines.next().unwrap_or("");
        let collected = if archive.is_empty() {
            BTreeMap::new()
        } else {
            let tar = base64::engine::general_purpose::STANDARD
                .decode(archive.trim())
                .map_err(|e| format!("the collected files are not base64: {e}"))?;
            crate::backend::tar_archive::read_collected("/", &tar)
                .map_err(|e| format!("the collected files are not a tar archive: {e}"))?
        };
        Ok(Trailer {
            exit_code,
            oom_kills,
            collected,
        })
    }
}

/// Splits an engine log stream (8-byte frame headers) into payloads: (stream, bytes).
#[derive(Debug, Default)]
pub(super) struct Demux {
    buf: Vec<u8>,
}

impl Demux {
    /// Feeds raw bytes; returns the complete frames (1 = stdout, 2 = stderr).
    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut at = 0;
        while self.buf.len() - at >= 8 {
            let h = &self.buf[at..at + 8];
            let size = u32::from_be_bytes([h[4], h[5], h[6], h[7]]) as usize;
            if self.buf.len() - at - 8 < size {
                break;
            }
            out.push((h[0], self.buf[at + 8..at + 8 + size].to_vec()));
            at += 8 + size;
        }
        self.buf.drain(..at);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(s: &mut Splitter, data: &[u8], step: usize) -> Vec<u8> {
        let mut log = Vec::new();
        for chunk in data.chunks(step) {
            log.extend(s.push(chunk));
        }
        log
    }

    #[test]
    fn the_log_is_exact_and_the_trailer_parsed_whatever_the_chunking() {
        let tar = crate::backend::tar_archive::build_tar(&[crate::backend::tar_archive::TarFile {
            path: "taskc/harness/exit",
            bytes: b"3\n",
            mode: 0o600,
            mtime: 0,
        }])
        .unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&tar);
        for log in [&b""[..], b"no newline", b"a\nb\n", b"abc n0nce exit=9\n"] {
            let mut stream = log.to_vec();
            stream.extend(format!("\nn0nce exit=3 oom=1\n{b64}\nn0nce end\n").bytes());
            for step in [1, 3, 7, 1000] {
                let mut s = Splitter::new("n0nce");
                assert_eq!(feed(&mut s, &stream, step), log, "step {step}");
                assert!(s.complete());
                let t = s.trailer().unwrap();
                assert_eq!((t.exit_code, t.oom_kills), (3, 1));
                assert_eq!(t.collected["/taskc/harness/exit"], b"3\n");
            }
        }
    }

    #[test]
    fn a_forged_trailer_with_another_nonce_is_log() {
        let mut s = Splitter::new("real");
        let log = s.push(b"x\nfake exit=0 oom=0\n\nfake end\n");
        assert!(!s.complete());
        let mut all = log;
        all.extend(s.rest());
        assert_eq!(all, b"x\nfake exit=0 oom=0\n\nfake end\n");
    }

    #[test]
    fn frames_are_demultiplexed_across_chunks() {
        let mut raw = vec![1, 0, 0, 0, 0, 0, 0, 3];
        raw.extend(b"abc");
        raw.extend([2, 0, 0, 0, 0, 0, 0, 1]);
        raw.extend(b"e");
        let mut d = Demux::default();
        let mut frames = Vec::new();
        for c in raw.chunks(5) {
            frames.extend(d.push(c));
        }
        assert_eq!(frames, [(1, b"abc".to_vec()), (2, b"e".to_vec())]);
    }
}
