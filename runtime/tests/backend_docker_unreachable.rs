//! A daemon that does not answer is reported as such, suggesting `--backend local`.
// Test code: an unwrap/expect/panic that fires is a failed test (the workspace lints deny
// them outside tests; clippy's `allow-*-in-tests` does not reach integration-test helpers).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use taskc_runtime::backend::BackendError;
use taskc_runtime::docker::DockerBackend;

#[tokio::test]
async fn an_unreachable_daemon_suggests_the_local_backend() {
    // The only test of this binary, so changing the environment races with nothing.
    std::env::set_var("DOCKER_HOST", "unix:///nonexistent/taskc-test.sock");
    let err = DockerBackend::connect().await.expect_err("no daemon there");
    assert!(
        matches!(err, BackendError::DockerUnreachable { .. }),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(text.contains("cannot reach the Docker daemon"), "{text}");
    // What to do is data, not baked into the message: the CLI renders it as `help:`.
    assert!(!text.contains("help:"), "{text}");
    let hint = err.hint().unwrap_or_default();
    assert!(hint.contains("--backend local"), "{hint}");
}
