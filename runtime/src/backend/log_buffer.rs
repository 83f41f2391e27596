//! A byte buffer that keeps at most [`LOG_CAP`] bytes of a run's output.

/// Maximum bytes of combined output kept per run (64 MiB).
pub const LOG_CAP: usize = 64 * 1024 * 1024;

/// Appended once when output was cut.
pub const TRUNCATION_MARKER: &[u8] = b"\n[taskc: output truncated, limit reached]\n";

/// Collects output up to a cap, then counts what it drops.
#[derive(Debug, Clone)]
pub struct LogBuffer {
    bytes: Vec<u8>,
    cap: usize,
    dropped: u64,
}

impl LogBuffer {
    /// A buffer keeping at most `cap` bytes.
    pub fn new(cap: usize) -> LogBuffer {
        LogBuffer {
            bytes: Vec::new(),
            cap,
            dropped: 0,
        }
    }

    /// Appends what fits; drops the rest.
    pub fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        let take = room.min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..take]);
        self.dropped += (chunk.len() - take) as u64;
    }

    /// Whether anything was dropped.
    pub fn truncated(&self) -> bool {
        self.dropped > 0
    }

    /// The kept bytes, plus the marker if anything was dropped.
    pub fn finish(mut self) -> (Vec<u8>, bool) {
        let truncated = self.truncated();
        if truncated {
            self.bytes.extend_from_slice(TRUNCATION_MARKER);
        }
        (self.bytes, truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_up_to_cap_and_marks_truncation() {
        let mut b = LogBuffer::new(4);
        b.push(b"ab");
        b.push(b"cdef");
        let (bytes, truncated) = b.finish();
        assert!(truncated);
        assert!(bytes.starts_with(b"abcd"));
        assert!(bytes.ends_with(TRUNCATION_MARKER));
    }

    #[test]
    fn no_marker_when_it_fits() {
        let mut b = LogBuffer::new(4);
        b.push(b"abcd");
        assert_eq!(b.finish(), (b"abcd".to_vec(), false));
    }
}
