//! Turning bollard errors into [`BackendError`]s that say which operation failed.

use crate::backend::BackendError;

/// Maps a bollard error of operation `op` on `target`; transport failures become
/// [`BackendError::DockerUnreachable`].
pub(crate) fn docker_error(
    op: &'static str,
    target: &str,
    e: bollard::errors::Error,
) -> BackendError {
    use bollard::errors::Error as E;
    match e {
        E::IOError { .. }
        | E::HyperResponseError { .. }
        | E::HyperLegacyError { .. }
        | E::SocketNotFoundError(_) => BackendError::DockerUnreachable {
            detail: format!("{op} `{target}`: {e}"),
        },
        E::RequestTimeoutError => BackendError::Docker {
            op,
            target: target.to_string(),
            detail: "the daemon did not answer in time".into(),
            help: "check that the Docker daemon is healthy (`docker info`) and not overloaded"
                .into(),
        },
        E::DockerResponseServerError {
            status_code,
            message,
        } => BackendError::Docker {
            op,
            target: target.to_string(),
            detail: format!("status {status_code}: {}", message.trim()),
            help: help_for_status(status_code).into(),
        },
        other => BackendError::Docker {
            op,
            target: target.to_string(),
            detail: other.to_string(),
            help: "check the Docker daemon's logs (`journalctl -u docker`)".into(),
        },
    }
}

fn help_for_status(status: u16) -> &'static str {
    match status {
        404 => "the object does not exist; it may have been removed by another process",
        409 => "the object is in use or in the wrong state; retry, or run `taskc gc`",
        500 => "the daemon failed internally; check `journalctl -u docker` and free disk space",
        _ => "check the Docker daemon's logs (`journalctl -u docker`)",
    }
}

/// Whether the daemon answered 404.
pub(crate) fn is_not_found(e: &bollard::errors::Error) -> bool {
    matches!(
        e,
        bollard::errors::Error::DockerResponseServerError {
            status_code: 404,
            ..
        }
    )
}
