//! What to do about a swarm error, by status and the engine's message.

use crate::backend::BackendError;

/// The help line for a failed swarm call.
pub(super) fn help_for(status: u16, message: &str) -> &'static str {
    if message.contains("not a swarm manager") || message.contains("swarm mode") {
        return NOT_A_MANAGER;
    }
    match status {
        404 => "the object does not exist; it may have been removed by another process",
        409 => "the object exists or is in use; retry, or run `taskc gc --backend swarm`",
        503 => NOT_A_MANAGER,
        _ => "check the engine's logs (`journalctl -u docker`) and `docker node ls`",
    }
}

const NOT_A_MANAGER: &str = "run taskc on a swarm manager: `docker swarm init --advertise-addr \
                             127.0.0.1` makes this engine a single-node swarm, or use \
                             `--backend docker`";

/// The engine is not a manager of an active swarm.
pub(super) fn not_in_swarm(state: &str) -> BackendError {
    BackendError::Docker {
        op: "swarm: inspect the swarm",
        target: "this engine".into(),
        detail: format!("the engine is not a swarm manager (swarm state: {state})"),
        help: NOT_A_MANAGER.into(),
    }
}

/// A run's task could not be run by the swarm (rejected by its node `node`, e.g. a node
/// without the image).
pub(super) fn task_rejected(run_id: &str, node: &str, image: &str, reason: &str) -> BackendError {
    if reason.contains("No such image") || reason.contains("not found") {
        return BackendError::Docker {
            op: "swarm: run the job's task",
            target: run_id.to_string(),
            detail: format!("node {node} does not have the image `{image}` ({reason})"),
            help: "every node that may run tasks needs the image: set `[cluster] registry = \
                   \"host:port\"` in taskc.toml (a registry every node can pull from) so \
                   taskc pushes images there, or drain the other nodes \
                   (`docker node update --availability drain <node>`)"
                .into(),
        };
    }
    BackendError::Docker {
        op: "swarm: run the job's task",
        target: run_id.to_string(),
        detail: format!("node {node}: {reason}"),
        help: "check `docker service ps` and `docker node ls`; a node may be short of \
               resources"
            .into(),
    }
}

/// `[cluster] network = "none"` (nodes sharing one kernel, where an overlay network cannot
/// exist twice): a run's services need a private overlay network, so a run with services is
/// refused, naming them. `None` when the run has none.
pub(super) fn refuse_services_without_overlay(
    req: &crate::backend::RunRequest,
) -> Option<BackendError> {
    let first = req.services.first()?;
    let names: Vec<String> = req
        .services
        .iter()
        .map(|s| format!("`{}`", s.name))
        .collect();
    Some(BackendError::Unsupported {
        backend: "swarm",
        op: format!(
            "start service `{}` beside run `{}` without an overlay network (the task's \
             services: {}; `[cluster] network = \"none\"`)",
            first.name,
            req.run_id,
            names.join(", ")
        ),
        help: "a run's services share a private overlay network with it: remove `network = \
               \"none\"` from `[cluster]` in taskc.toml, or use `--backend docker`"
            .into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message and the hint, as the CLI shows them.
    fn shown(e: &BackendError) -> String {
        format!("{e}\nhelp: {}", e.hint().unwrap_or_default())
    }

    #[test]
    fn each_swarm_error_names_the_operation_and_what_to_do() {
        let e = shown(&not_in_swarm("inactive"));
        assert!(e.contains("swarm: inspect the swarm"), "{e}");
        assert!(
            e.contains("docker swarm init --advertise-addr 127.0.0.1"),
            "{e}"
        );
        let e = shown(&task_rejected(
            "run-1",
            "n2",
            "img",
            "No such image: img@sha256:x",
        ));
        assert!(e.contains("swarm: run the job's task"), "{e}");
        assert!(e.contains("node n2 does not have the image"), "{e}");
        assert!(e.contains("[cluster] registry"), "{e}");
        let e = shown(&task_rejected(
            "run-1",
            "n2",
            "img",
            "starting container failed",
        ));
        assert!(e.contains("swarm: run the job's task") && e.contains("docker service ps"));
    }
}
