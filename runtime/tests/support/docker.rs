//! Guards for the Docker objects a test creates: each removes its object when dropped, so
//! a test that fails (panics) leaves nothing behind either. CI machines keep their Docker
//! state between runs: what a test leaves accumulates.

use std::process::Command;

/// `docker <args>`, its standard output (empty when the CLI does not run).
fn docker(args: &[&str]) -> String {
    Command::new("docker")
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// Removes container `name` (`docker rm -f`) when dropped — a `docker run --rm` whose
/// client was interrupted leaves its container running.
pub struct RemoveContainer(pub String);

impl Drop for RemoveContainer {
    fn drop(&mut self) {
        let _ = Command::new("docker").args(["rm", "-f", &self.0]).output();
    }
}

/// The tags (`repository:tag`) the engine holds in `repository`.
pub fn image_tags(repository: &str) -> Vec<String> {
    docker(&[
        "image",
        "ls",
        "--format",
        "{{.Repository}}:{{.Tag}}",
        repository,
    ])
    .lines()
    .filter(|l| !l.ends_with(":<none>"))
    .map(str::to_string)
    .collect()
}

/// Untags every tag of `repository` (`docker rmi`, never forced: an image other names or
/// containers use stays) now and when dropped.
pub struct UntagRepository(pub String);

impl UntagRepository {
    /// Clears `repository` of what an earlier, interrupted run left, and guards it.
    pub fn new(repository: &str) -> Self {
        let guard = Self(repository.to_string());
        guard.untag();
        guard
    }

    fn untag(&self) {
        for tag in image_tags(&self.0) {
            docker(&["rmi", &tag]);
        }
    }
}

impl Drop for UntagRepository {
    fn drop(&mut self) {
        self.untag();
    }
}

/// Removes images `tags` (`docker rmi -f`, each tag's image unless another tag names it)
/// when dropped: the images a test builds go however it ends.
pub struct RemoveImages(pub Vec<String>);

impl Drop for RemoveImages {
    fn drop(&mut self) {
        for tag in &self.0 {
            docker(&["rmi", "-f", tag]);
        }
    }
}

/// The engine, or `None` when the suite is told to skip Docker (`TASKC_SKIP_DOCKER=1`);
/// a Docker that does not answer fails the test loudly.
pub async fn connect_or_skip() -> Option<taskc_runtime::docker::DockerBackend> {
    if std::env::var("TASKC_SKIP_DOCKER").as_deref() == Ok("1") {
        eprintln!("TASKC_SKIP_DOCKER=1: skipping a Docker test");
        return None;
    }
    match taskc_runtime::docker::DockerBackend::connect().await {
        Ok(d) => Some(d),
        Err(e) => panic!("Docker is required for this test (set TASKC_SKIP_DOCKER=1 to skip): {e}"),
    }
}

/// `script` in a container of image `tag` (run id `<prefix>-<tag>`, session `session`), which
/// must succeed within two minutes; its log.
pub async fn run_script(
    docker: &taskc_runtime::docker::DockerBackend,
    tag: &str,
    prefix: &str,
    session: &str,
    script: &str,
) -> String {
    use taskc_runtime::backend::{Backend, RunRequest};
    let mut req = RunRequest::new(
        tag,
        format!("{prefix}-{}", tag.replace([':', '/'], "-")),
        session,
        script,
    );
    req.timeout = std::time::Duration::from_secs(120);
    let out = docker.run(&req).await.unwrap();
    assert!(out.succeeded(), "{}", out.log_text());
    out.log_text()
}
