//! The swarm endpoints bollard 0.18 does not wrap (configs, tasks, service logs, the swarm
//! itself), spoken as plain HTTP/1.1 to the engine's unix socket (the engine client of
//! `docker/socket.rs`). Bodies are the engine's JSON (typed by `bollard::models`); errors
//! name the swarm operation.

use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use hyper::body::Bytes;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::backend::BackendError;
pub(super) use crate::docker::socket::percent_encode;
use crate::docker::socket::{self, EngineSocket, SocketError};

/// A raw client of one engine's API (the swarm manager's).
#[derive(Clone, Debug)]
pub(super) struct Api {
    engine: EngineSocket,
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

impl From<SocketError> for ApiError {
    fn from(e: SocketError) -> Self {
        match e {
            SocketError::Transport(detail) => ApiError::Transport(detail),
            SocketError::Status { status, message } => ApiError::Status { status, message },
        }
    }
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
        let engine = EngineSocket::from_env().map_err(|h| BackendError::Unsupported {
            backend: "swarm",
            op: format!("reach the engine at DOCKER_HOST={h}"),
            help: "run taskc on a swarm manager with a unix socket \
                   (DOCKER_HOST=unix:///path or unset)"
                .into(),
        })?;
        Ok(Api { engine })
    }

    async fn body(
        &self,
        method: hyper::Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Bytes, ApiError> {
        let content_type = body.as_ref().map(|_| "application/json");
        let response = self
            .engine
            .send(method, path, content_type, body.unwrap_or_default())
            .await?;
        Ok(socket::body(response).await?)
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
        let response = self
            .engine
            .send(hyper::Method::GET, path, None, Vec::new())
            .await?;
        Ok(socket::chunks(response)
            .map(|chunk| chunk.map_err(ApiError::from))
            .boxed())
    }
}

/// `filters={"label":["k=v"]}` for a query string.
pub(super) fn label_filter(key: &str, label: &str) -> String {
    let json = serde_json::json!({ key: [label] }).to_string();
    format!("filters={}", percent_encode(&json))
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
