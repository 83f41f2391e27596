//! Image builds through the engine's own BuildKit (`POST /build?version=2`), spoken as plain
//! HTTP/1.1 to the engine's unix socket (the engine client of `socket.rs`; bollard 0.18
//! builds with BuildKit only through a gRPC session, which needs none here: the context is
//! the request's tar body).
//!
//! BuildKit is what makes `RUN --mount=type=cache,…` work: the recipes keep the package
//! managers' downloads (apt, uv/pip, npm, go, cargo) in cache mounts the engine holds
//! outside every image, so rebuilding a layer does not download again what it downloaded
//! before. Where the engine has no BuildKit (or taskc cannot reach it as a unix socket), the
//! classic builder builds the same Dockerfile with its cache mounts taken out
//! ([`without_cache_mounts`]): the same image content, without the cache.
//!
//! BuildKit reports progress as `moby.buildkit.trace` messages: base64 protobuf
//! `StatusResponse`s (vertexes, statuses, logs), decoded here just enough to write a build
//! log like the classic builder's (one `#N <step>` line per step, then its output).

use std::collections::BTreeMap;

use futures_util::StreamExt;

use super::socket::{chunks, percent_encode, EngineSocket, SocketError};

/// Which builder the engine builds taskc's images with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builder {
    /// The engine's BuildKit (`version=2`): cache mounts kept across builds.
    BuildKit,
    /// The classic builder: cache mounts taken out of the Dockerfile.
    Classic,
}

/// What a BuildKit build gave.
#[derive(Debug)]
pub(super) enum Outcome {
    /// Built; the log as text.
    Built { log: String },
    /// The build failed (a step's error); the error and the log so far.
    Failed { error: String, log: String },
    /// The engine cannot build with BuildKit (or is not reachable as a unix socket): why.
    Unavailable(String),
    /// The socket did not answer or the answer broke off.
    Transport(String),
}

/// The query of one build.
pub(super) struct Request<'a> {
    pub tag: &'a str,
    pub dockerfile: &'a str,
    pub labels: &'a BTreeMap<String, String>,
    /// `Some("none")`: the build's steps have no network.
    pub network: Option<&'a str>,
}

/// Builds the context `tar` (its Dockerfile named `req.dockerfile`) with BuildKit.
pub(super) async fn build(req: &Request<'_>, tar: Vec<u8>) -> Outcome {
    let Ok(engine) = EngineSocket::from_env() else {
        return Outcome::Unavailable(
            "DOCKER_HOST is not a unix socket, which taskc's BuildKit client needs".into(),
        );
    };
    let labels = match serde_json::to_string(req.labels) {
        Ok(l) => l,
        Err(e) => return Outcome::Transport(e.to_string()),
    };
    let mut query = format!(
        "/build?version=2&rm=1&forcerm=1&t={}&dockerfile={}&labels={}",
        percent_encode(req.tag),
        percent_encode(req.dockerfile),
        percent_encode(&labels)
    );
    if let Some(net) = req.network {
        query.push_str(&format!("&networkmode={}", percent_encode(net)));
    }
    let sent = engine
        .send(hyper::Method::POST, &query, Some("application/x-tar"), tar)
        .await;
    let response = match sent {
        Ok(r) => r,
        Err(SocketError::Transport(detail)) => return Outcome::Transport(detail),
        Err(SocketError::Status { status, message }) => {
            return if unsupported(&message) || status == 404 {
                Outcome::Unavailable(format!("status {status}: {}", message.trim()))
            } else {
                Outcome::Failed {
                    error: format!("status {status}: {}", message.trim()),
                    log: String::new(),
                }
            };
        }
    };
    let mut body = chunks(response);
    let mut pending: Vec<u8> = Vec::new();
    let mut log = Log::default();
    let mut error: Option<String> = None;
    let mut traced = false;
    while let Some(chunk) = body.next().await {
        let data = match chunk {
            Ok(d) => d,
            Err(SocketError::Transport(e) | SocketError::Status { message: e, .. }) => {
                return Outcome::Transport(e)
            }
        };
        pending.extend_from_slice(&data);
        // One JSON message per line; a line may arrive in pieces.
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let Ok(msg) = serde_json::from_slice::<serde_json::Value>(&line) else {
                continue;
            };
            if let Some(e) = msg.get("error").and_then(|e| e.as_str()) {
                error.get_or_insert_with(|| e.to_string());
            }
            if let Some(s) = msg.get("stream").and_then(|s| s.as_str()) {
                log.text.push_str(s);
            }
            if msg.get("id").and_then(|i| i.as_str()) == Some("moby.buildkit.trace") {
                traced = true;
                if let Some(aux) = msg.get("aux").and_then(|a| a.as_str()) {
                    use base64::Engine as _;
                    if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(aux) {
                        log.status(&bytes);
                    }
                }
            }
        }
    }
    let text = log.text;
    match error {
        // An engine that ignored `version=2` parsed the Dockerfile as the classic builder.
        Some(e) if !traced && unsupported(&e) => Outcome::Unavailable(e),
        Some(e) => Outcome::Failed {
            error: e,
            log: text,
        },
        None => Outcome::Built { log: text },
    }
}

/// Whether an engine's message says it cannot build with BuildKit (or parsed a BuildKit-only
/// flag with the classic builder).
fn unsupported(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    (m.contains("buildkit") && (m.contains("not supported") || m.contains("not enabled")))
        || m.contains("unknown flag: mount")
}

/// The build log being written from BuildKit's status messages.
#[derive(Default)]
struct Log {
    text: String,
    /// Step numbers by vertex digest, in the order they were first seen.
    steps: BTreeMap<String, usize>,
    /// Vertex digest → (name, whether `CACHED` was written).
    names: BTreeMap<String, (String, bool)>,
    /// The vertex whose output was written last (a header is repeated on a change).
    last: Option<String>,
}

impl Log {
    fn step(&mut self, digest: &str) -> usize {
        let next = self.steps.len() + 1;
        *self.steps.entry(digest.to_string()).or_insert(next)
    }

    fn header(&mut self, digest: &str) {
        if self.last.as_deref() == Some(digest) {
            return;
        }
        let n = self.step(digest);
        let name = self
            .names
            .get(digest)
            .map(|v| v.0.clone())
            .unwrap_or_default();
        self.text.push_str(&format!("#{n} {name}\n"));
        self.last = Some(digest.to_string());
    }

    /// One `StatusResponse`: vertexes (1), statuses (2), logs (3).
    fn status(&mut self, bytes: &[u8]) {
        for (field, value) in proto::fields(bytes) {
            match (field, value) {
                (1, proto::Value::Bytes(v)) => self.vertex(v),
                (3, proto::Value::Bytes(v)) => self.vertex_log(v),
                _ => {}
            }
        }
    }

    /// `Vertex`: digest (1), name (3), cached (4), completed (6), error (7).
    fn vertex(&mut self, bytes: &[u8]) {
        let mut digest = String::new();
        let mut name = String::new();
        let mut cached = false;
        let mut error = String::new();
        for (field, value) in proto::fields(bytes) {
            match (field, value) {
                (1, proto::Value::Bytes(v)) => digest = String::from_utf8_lossy(v).into_owned(),
                (3, proto::Value::Bytes(v)) => name = String::from_utf8_lossy(v).into_owned(),
                (4, proto::Value::Varint(v)) => cached = v != 0,
                (7, proto::Value::Bytes(v)) => error = String::from_utf8_lossy(v).into_owned(),
                _ => {}
            }
        }
        if digest.is_empty() {
            return;
        }
        self.step(&digest);
        let entry = self
            .names
            .entry(digest.clone())
            .or_insert_with(|| (name.clone(), false));
        if entry.0.is_empty() {
            entry.0 = name;
        }
        if cached && !entry.1 {
            entry.1 = true;
            self.header(&digest);
            self.text.push_str("CACHED\n");
        }
        if !error.is_empty() {
            self.header(&digest);
            self.text.push_str(&format!("ERROR: {error}\n"));
        }
    }

    /// `VertexLog`: vertex (1), msg (4).
    fn vertex_log(&mut self, bytes: &[u8]) {
        let mut vertex = String::new();
        let mut msg: &[u8] = &[];
        for (field, value) in proto::fields(bytes) {
            match (field, value) {
                (1, proto::Value::Bytes(v)) => vertex = String::from_utf8_lossy(v).into_owned(),
                (4, proto::Value::Bytes(v)) => msg = v,
                _ => {}
            }
        }
        // A message may end mid-line; the next one of the same step continues it.
        self.header(&vertex);
        self.text.push_str(&String::from_utf8_lossy(msg));
    }
}

/// The protobuf wire format, as far as reading BuildKit's status takes it.
mod proto {
    pub(super) enum Value<'a> {
        Varint(u64),
        Bytes(&'a [u8]),
        Other,
    }

    fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *bytes.get(*at)?;
            *at += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    /// The fields of one message, in order; stops at the first malformed one.
    pub(super) fn fields(bytes: &[u8]) -> Vec<(u64, Value<'_>)> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let Some(key) = varint(bytes, &mut at) else {
                break;
            };
            let value = match key & 7 {
                0 => match varint(bytes, &mut at) {
                    Some(v) => Value::Varint(v),
                    None => break,
                },
                1 => {
                    at += 8;
                    Value::Other
                }
                2 => {
                    let Some(len) = varint(bytes, &mut at) else {
                        break;
                    };
                    let Ok(len) = usize::try_from(len) else {
                        break;
                    };
                    let Some(v) = at.checked_add(len).and_then(|end| bytes.get(at..end)) else {
                        break;
                    };
                    at += len;
                    Value::Bytes(v)
                }
                5 => {
                    at += 4;
                    Value::Other
                }
                _ => break,
            };
            if at > bytes.len() {
                break;
            }
            out.push((key >> 3, value));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    fn bytes_field(field: u64, v: &[u8], out: &mut Vec<u8>) {
        varint(field << 3 | 2, out);
        varint(v.len() as u64, out);
        out.extend_from_slice(v);
    }

    #[test]
    fn buildkit_status_becomes_a_log_of_steps_and_their_output() {
        let mut vertex = Vec::new();
        bytes_field(1, b"sha256:aa", &mut vertex);
        bytes_field(3, b"[2/3] RUN echo hi", &mut vertex);
        let mut cached = Vec::new();
        bytes_field(1, b"sha256:bb", &mut cached);
        bytes_field(3, b"[1/3] RUN apt-get update", &mut cached);
        varint(4 << 3, &mut cached);
        varint(1, &mut cached);
        let mut vlog = Vec::new();
        bytes_field(1, b"sha256:aa", &mut vlog);
        varint(3 << 3, &mut vlog);
        varint(1, &mut vlog);
        bytes_field(4, b"hi\n", &mut vlog);
        let mut status = Vec::new();
        bytes_field(1, &cached, &mut status);
        bytes_field(1, &vertex, &mut status);
        bytes_field(3, &vlog, &mut status);
        let mut log = Log::default();
        log.status(&status);
        assert_eq!(
            log.text,
            "#1 [1/3] RUN apt-get update\nCACHED\n#2 [2/3] RUN echo hi\nhi\n"
        );
        // Garbage is ignored, never a panic.
        log.status(&[0xff, 0xff, 0x02, 0x99]);
    }
}
