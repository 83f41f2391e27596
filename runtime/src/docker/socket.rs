//! The engine's API spoken as plain HTTP/1.1 over its unix socket, for what bollard 0.18
//! does not wrap: BuildKit builds (`buildkit.rs`) and the swarm's configs, tasks and
//! service logs (`swarm/api.rs`). One client: where the socket is, one request, the
//! engine's error answer read as its `message`.

use std::path::PathBuf;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use http_body_util::{BodyExt, BodyStream, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyperlocal::{UnixClientExt, UnixConnector};

/// Where the engine listens when `DOCKER_HOST` does not say.
const DEFAULT_SOCKET: &str = "/var/run/docker.sock";

/// A raw client of one engine's unix socket.
#[derive(Clone)]
pub(crate) struct EngineSocket {
    socket: PathBuf,
    client: Client<UnixConnector, Full<Bytes>>,
}

impl std::fmt::Debug for EngineSocket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineSocket")
            .field("socket", &self.socket)
            .finish()
    }
}

/// A request that got no success from the engine.
#[derive(Debug)]
pub(crate) enum SocketError {
    /// The socket did not answer (or the request could not be made).
    Transport(String),
    /// The engine answered with an error status and this message.
    Status { status: u16, message: String },
}

/// A response's body as a stream of chunks.
pub(crate) type Chunks = BoxStream<'static, Result<Bytes, SocketError>>;

impl EngineSocket {
    /// The engine at `DOCKER_HOST` (`unix://…`) or the default socket; `Err` with the
    /// `DOCKER_HOST` value when it names another transport (tcp, ssh), which this client
    /// does not speak.
    pub(crate) fn from_env() -> Result<EngineSocket, String> {
        let socket = match std::env::var("DOCKER_HOST") {
            Ok(h) if !h.is_empty() => match h.strip_prefix("unix://") {
                Some(p) => PathBuf::from(p),
                None => return Err(h),
            },
            _ => PathBuf::from(DEFAULT_SOCKET),
        };
        Ok(EngineSocket {
            socket,
            client: Client::unix(),
        })
    }

    /// `method path_and_query` with `body` (of `content_type`, when given): the response
    /// of a success status, else the engine's error message.
    pub(crate) async fn send(
        &self,
        method: hyper::Method,
        path_and_query: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, SocketError> {
        let uri: hyper::Uri = hyperlocal::Uri::new(&self.socket, path_and_query).into();
        let mut builder = hyper::Request::builder().method(method).uri(uri);
        if let Some(content_type) = content_type {
            builder = builder.header("content-type", content_type);
        }
        let request = builder
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| SocketError::Transport(e.to_string()))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| SocketError::Transport(format!("{e} ({})", self.socket.display())))?;
        let status = response.status().as_u16();
        if status >= 400 {
            let bytes = response
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            let message = serde_json::from_slice::<serde_json::Value>(&bytes)
                .ok()
                .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(String::from))
                .unwrap_or_else(|| String::from_utf8_lossy(&bytes).into_owned());
            return Err(SocketError::Status { status, message });
        }
        Ok(response)
    }
}

/// The whole body of `response`.
pub(crate) async fn body(
    response: hyper::Response<hyper::body::Incoming>,
) -> Result<Bytes, SocketError> {
    response
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .map_err(|e| SocketError::Transport(e.to_string()))
}

/// The body of `response` as it arrives, chunk by chunk.
pub(crate) fn chunks(response: hyper::Response<hyper::body::Incoming>) -> Chunks {
    BodyStream::new(response.into_body())
        .filter_map(|frame| async move {
            match frame {
                Ok(f) => f.into_data().ok().map(Ok),
                Err(e) => Some(Err(SocketError::Transport(e.to_string()))),
            }
        })
        .boxed()
}

/// Percent-encodes `s` for a query string (everything but unreserved characters).
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_unreserved_characters_stay_as_they_are() {
        assert_eq!(percent_encode("a-Z_0.~"), "a-Z_0.~");
        assert_eq!(percent_encode("t=a b/é"), "t%3Da%20b%2F%C3%A9");
    }
}
