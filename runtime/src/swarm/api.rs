//! The swarm endpoints bollard 0.18 does not wrap (configs, tasks, service logs, the swarm
//! itself), spoken as plain HTTP/1.1 to the engine's unix socket. Bodies are the engine's
//! JSON (typed by `bollard::models`); errors name the swarm operation.

use std::path::PathBuf;

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use http_body_util::{BodyExt, BodyStream, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyperlocal::{UnixClientExt, UnixConnector};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::backend::BackendError;

/// Where the engine listens when `DOCKER_HOST` does not say.
const DEFAULT_SOCKET: &str = "/var/run/docker.sock";

/// A raw client of one engine's API (the swarm manager's).
#[derive(Clone)]
pub(super) struct Api {
    socket: PathBuf,
    client: Client<UnixConnector, Full<Bytes>>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("socket", &self.socket).finish()
    }
}

/// An engine answer that is not a success.
#[derive(Debug)]
pub(super) enum ApiError {
    /// The socket did not answer.
    Transport(String),
    /// The engine answered with an error status.
    Status { status: u16, message: String },
    /// The answer was not the JSON expected.
    Decode(String),
}

impl ApiError {
    pub(super) fn is_not_found(&self) -> bool {
        matches!(self, ApiError::Status { status: 404, .. })
    }

    /// As a [`BackendError`] naming the swarm operation `op` on `target`.
    pub(super) fn into_backend(self, op: &'static str, target: &str) -> BackendError {
        match self {
            ApiError::Transport(detail) => BackendError::DockerUnreachable {
                detail: format!("swarm {op} `{target}`: {detail}"),
            },
            ApiError::Status {
                status,
                ref message,
            } => BackendError::Docker {
                op,
                target: target.to_string(),
                detail: format!("status {status}: {}", message.trim()),
                help: super::errors::help_for(status, message).into(),
            },
            ApiError::Decode(detail) => BackendError::Docker {
                op,
                target: target.to_string(),
                detail: format!("unexpected answer from the engine: {detail}"),
                help: "check that the engine is Docker 20.10 or newer (`docker version`)".into(),
            },
        }
    }
}

impl Api {
    /// The engine at `DOCKER_HOST` (`unix://…`) or the default socket.
    pub(super) fn from_env() -> Result<Api, BackendError> {
        let socket = match std::env::var("DOCKER_HOST") {
            Ok(h) if !h.is_empty() => match h.strip_prefix("unix://") {
                Some(p) => PathBuf::from(p),
                None => {
                    return Err(BackendError::Unsupported {
                        backend: "swarm",
                        op: format!("reach the engine at DOCKER_HOST={h}"),
                        help: "run taskc on a swarm manager with a unix socket \
                               (DOCKER_HOST=unix:///path or unset)"
                            .into(),
                    })
                }
            },
            _ => PathBuf::from(DEFAULT_SOCKET),
        };
        Ok(Api {
            socket,
            client: Client::unix(),
        })
    }

    fn uri(&self, path: &str) -> hyper::Uri {
        hyperlocal::Uri::new(&self.socket, path).into()
    }

    async fn send(
        &self,
        method: hyper::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, ApiError> {
        let mut builder = hyper::Request::builder().method(method).uri(self.uri(path));
        if body.is_some() {
            builder = builder.header("content-type", "application/json");
        }
        let request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| ApiError::Transport(e.to_string()))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| ApiError::Transport(format!("{} ({})", e, self.socket.display())))?;
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
            return Err(ApiError::Status { status, message });
        }
        Ok(response)
    }

    async fn body(
        &self,
        method: hyper::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Bytes, ApiError> {
        let response = self.send(method, path, body).await?;
        response
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .map_err(|e| ApiError::Transport(e.to_string()))
    }

    /// `GET path` as JSON.
    pub(super) async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ApiError> {
        let bytes = self.body(hyper::Method::GET, path, None).await?;
        serde_json::from_slice(&bytes).map_err(|e| ApiError::Decode(e.to_string()))
    }

    /// `POST path` with a JSON body; the answer as JSON.
    pub(super) async fn post<B: Serialize, T: DeserializeOwned>(
        &self,
        path: &str,
        body: &B,
    ) -> Result<T, ApiError> {
        let body = serde_json::to_vec(body).map_err(|e| ApiError::Decode(e.to_string()))?;
        let bytes = self.body(hyper::Method::POST, path, Some(body)).await?;
        serde_json::from_slice(&bytes).map_err(|e| ApiError::Decode(e.to_string()))
    }

    /// `DELETE path`; a missing object is not an error.
    pub(super) async fn delete(&self, path: &str) -> Result<(), ApiError> {
        match self.body(hyper::Method::DELETE, path, None).await {
            Ok(_) => Ok(()),
            Err(e) if e.is_not_found() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `GET path` as a stream of body chunks (service logs).
    pub(super) async fn stream(
        &self,
        path: &str,
    ) -> Result<BoxStream<'static, Result<Bytes, ApiError>>, ApiError> {
        let response = self.send(hyper::Method::GET, path, None).await?;
        let stream = BodyStream::new(response.into_body()).filter_map(|frame| async move {
            match frame {
                Ok(f) => f.into_data().ok().map(Ok),
                Err(e) => Some(Err(ApiError::Transport(e.to_string()))),
            }
        });
        Ok(stream.boxed())
    }
}

/// `filters={"label":["k=v"]}` for a query string.
pub(super) fn label_filter(key: &str, label: &str) -> String {
    let json = serde_json::json!({ key: [label] }).to_string();
    format!("filters={}", percent_encode(&json))
}

/// Percent-encodes everything but unreserved characters.
pub(super) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
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
    fn filters_are_percent_encoded_json() {
        assert_eq!(
            label_filter("label", "taskc.session=s1"),
            "filters=%7B%22label%22%3A%5B%22taskc.session%3Ds1%22%5D%7D"
        );
    }
}
