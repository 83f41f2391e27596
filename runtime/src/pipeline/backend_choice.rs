//! Choosing the backend: Docker when the engine answers, else the local backend.

use std::path::Path;
use std::sync::Arc;

use crate::backend::{Backend, BackendError};
use crate::docker::DockerBackend;
use crate::local::LocalBackend;
use crate::swarm::{OfflineNetwork, SwarmBackend};

/// `--backend auto|docker|local|swarm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// Docker if the engine answers, else local (and say so).
    Auto,
    Docker,
    Local,
    /// A Docker Swarm this engine manages; `[cluster] registry` from the working
    /// directory's `taskc.toml` when the swarm has more than one node.
    Swarm,
}

/// Open the chosen backend. With `Auto`, the returned note explains a fall-back to local.
pub async fn open_backend(
    choice: BackendChoice,
    cache: &Path,
) -> Result<(Arc<dyn Backend>, Option<String>), BackendError> {
    // The local backend runs the user's own toolchains: it keeps the caller's PATH (HOME,
    // TMPDIR and everything else are still redirected into each run's workspace).
    let path = std::env::var("PATH").unwrap_or_else(|_| crate::local::DEFAULT_PATH.to_string());
    // Runs never see the cache (results, mirrors, other images) nor the folder taskc was
    // started in (typically the spec's).
    let hidden: Vec<std::path::PathBuf> = std::iter::once(cache.to_path_buf())
        .chain(std::env::current_dir().ok())
        .collect();
    let local = || {
        let backend = LocalBackend::new(cache.join("local"))
            .with_path(path.clone())
            .with_hidden(hidden.clone());
        let note = match backend.sandbox_status() {
            crate::local::SandboxStatus::Sandboxed { .. } => None,
            crate::local::SandboxStatus::Unsandboxed { reason } => Some(format!(
                "the local backend runs unsandboxed ({reason}): only the gold/empty baselines \
                 may be scored on it"
            )),
        };
        (Arc::new(backend) as Arc<dyn Backend>, note)
    };
    match choice {
        BackendChoice::Local => Ok(local()),
        BackendChoice::Docker => Ok((Arc::new(DockerBackend::connect().await?), None)),
        BackendChoice::Swarm => {
            let cluster = super::project::cluster().map_err(|e| BackendError::InvalidRequest {
                run_id: "taskc.toml".into(),
                detail: format!("{e} ({})", e.hint),
            })?;
            let network = match cluster.network {
                super::project::ClusterNetwork::Internal => OfflineNetwork::Internal,
                super::project::ClusterNetwork::None => OfflineNetwork::None,
            };
            let swarm = SwarmBackend::connect(cluster.registry, network).await?;
            Ok((Arc::new(swarm), None))
        }
        BackendChoice::Auto => match DockerBackend::connect().await {
            Ok(d) => Ok((Arc::new(d), None)),
            Err(e) => {
                let (backend, sandbox) = local();
                let fallback = fallback_note(&e);
                let note = match sandbox {
                    Some(s) => format!("{fallback}; {s}"),
                    None => fallback,
                };
                Ok((backend, Some(note)))
            }
        },
    }
}

/// One line saying that `--backend auto` fell back to local, and why.
fn fallback_note(e: &BackendError) -> String {
    let why = e.to_string();
    let why = why.lines().next().unwrap_or("").trim();
    format!("the Docker Engine does not answer ({why}); running on the local backend")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_note_is_one_line() {
        let e = BackendError::DockerUnreachable {
            detail: "connection refused".into(),
        };
        let note = fallback_note(&e);
        assert!(!note.contains('\n'), "{note}");
        assert_eq!(
            note,
            "the Docker Engine does not answer (cannot reach the Docker daemon (connection \
             refused)); running on the local backend"
        );
    }
}
