//! The name a service gives its image: on one node the engine's image id (the engine then
//! never tries to pull); on more, the image pushed once per content id to `[cluster]
//! registry` and named by digest, so every node runs the same bytes.

use bollard::image::{PushImageOptions, RemoveImageOptions, TagImageOptions};
use futures_util::StreamExt;

use super::SwarmBackend;
use crate::backend::{Backend, BackendError};

/// Repository images are pushed to under the registry (tags: the content id's hex).
const PUSH_REPOSITORY: &str = "taskc/run-image";

impl SwarmBackend {
    /// The image reference for the service of a run on `tag`.
    pub(super) async fn image_ref(&self, tag: &str) -> Result<String, BackendError> {
        let id = self
            .engine
            .image_content_id(tag)
            .await
            .map_err(|e| match e {
                BackendError::ImageMissing { tag, .. } => BackendError::ImageMissing {
                    tag,
                    help: "build it first (ensure_image), or run `taskc image bootstrap` for \
                           the base image"
                        .into(),
                },
                other => other,
            })?
            .unwrap_or_else(|| tag.to_string());
        let _pushing = self.pushing.lock().await;
        if let Some(found) = self.refs.lock().ok().and_then(|r| r.get(&id).cloned()) {
            return Ok(found);
        }
        let reference = match &self.registry {
            None => {
                // Only this engine has the image: any other node that may run tasks (also
                // the only one, when this manager is drained) needs a registry.
                let nodes = self.schedulable_nodes().await?;
                let others = nodes.iter().filter(|n| **n != self.local_node).count();
                if others > 0 {
                    return Err(BackendError::Docker {
                        op: "swarm: distribute the image",
                        target: tag.to_string(),
                        detail: format!(
                            "{others} node(s) of the swarm besides this engine's may run \
                             tasks ({} may in all) and no registry is configured, so they \
                             cannot get the image",
                            nodes.len()
                        ),
                        help: "set `[cluster] registry = \"host:port\"` in taskc.toml (a \
                               registry every node can pull from)"
                            .into(),
                    });
                }
                id.clone()
            }
            // One more try: a registry's transient error (a 500) must not fail the run.
            Some(registry) => match self.push(tag, &id, registry).await {
                Ok(reference) => reference,
                Err(_) => self.push(tag, &id, registry).await?,
            },
        };
        if let Ok(mut refs) = self.refs.lock() {
            refs.insert(id, reference.clone());
        }
        Ok(reference)
    }

    /// Pushes image `id` (built as `tag`) to `registry` (once per process and content id:
    /// the caller caches the answer; layers the registry holds are not sent again) and
    /// returns `registry/repo@sha256:…`. A digest the engine remembers from an earlier
    /// push is not trusted: that registry may have lost it. A push that fails takes back
    /// the tag it gave the image (a failed run leaves no `registry/taskc/run-image:*` tag;
    /// one an earlier push left is kept).
    async fn push(&self, tag: &str, id: &str, registry: &str) -> Result<String, BackendError> {
        let client = self.engine.client();
        let repo = format!("{registry}/{PUSH_REPOSITORY}");
        let version = id.trim_start_matches("sha256:");
        let version = version.get(..40).unwrap_or(version).to_string();
        let reference = format!("{repo}:{version}");
        let tagged_before = client.inspect_image(&reference).await.is_ok();
        client
            .tag_image(
                id,
                Some(TagImageOptions {
                    repo: repo.clone(),
                    tag: version.clone(),
                }),
            )
            .await
            .map_err(|e| crate::docker::docker_error("tag image", tag, e))?;
        let pushed = self.push_tagged(&repo, &version, registry).await;
        if pushed.is_err() && !tagged_before {
            self.untag(id, &reference).await;
        }
        pushed
    }

    /// Pushes `repo:version` (tagged by [`Self::push`]) and returns `repo@sha256:…`.
    async fn push_tagged(
        &self,
        repo: &str,
        version: &str,
        registry: &str,
    ) -> Result<String, BackendError> {
        let refused = |detail: String| BackendError::Docker {
            op: "swarm: push the image to the registry",
            target: format!("{repo}:{version}"),
            detail,
            help: format!(
                "check that the registry `{registry}` runs and accepts pushes from this \
                 engine (an HTTP registry must be in the engine's `insecure-registries`; \
                 127.0.0.0/8 is by default)"
            ),
        };
        let mut stream = self.engine.client().push_image(
            repo,
            Some(PushImageOptions {
                tag: version.to_string(),
            }),
            None,
        );
        // The push reports `<tag>: digest: sha256:… size: N` for what it pushed.
        let mut pushed = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(info) => {
                    if let Some(error) = info.error {
                        return Err(refused(error));
                    }
                    if let Some(digest) = info.status.as_deref().and_then(pushed_digest) {
                        pushed = Some(digest.to_string());
                    }
                }
                Err(e) => return Err(refused(e.to_string())),
            }
        }
        pushed
            .map(|digest| format!("{repo}@{digest}"))
            .ok_or_else(|| refused("the push ended without a digest for the image".into()))
    }

    /// Takes the tag `reference` back from image `id` — only while the image has another
    /// name, so that the image itself is never removed. Best effort: the push's error is
    /// what the caller reports.
    async fn untag(&self, id: &str, reference: &str) {
        let client = self.engine.client();
        let other_names = client.inspect_image(id).await.ok().is_some_and(|image| {
            image
                .repo_tags
                .unwrap_or_default()
                .iter()
                .any(|t| t != reference && t != "<none>:<none>")
        });
        if other_names {
            let options = RemoveImageOptions {
                force: false,
                noprune: true,
            };
            let _ = client.remove_image(reference, Some(options), None).await;
        }
    }
}

/// The digest in a push's last status line (`v1: digest: sha256:… size: 1234`).
fn pushed_digest(status: &str) -> Option<&str> {
    let rest = status.split("digest: ").nth(1)?;
    let digest = rest.split_whitespace().next()?;
    digest.starts_with("sha256:").then_some(digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_read_from_the_push_status() {
        assert_eq!(
            pushed_digest("abc: digest: sha256:0123 size: 529"),
            Some("sha256:0123")
        );
        assert_eq!(pushed_digest("Pushed"), None);
    }
}
