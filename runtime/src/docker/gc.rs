//! `Backend::gc` and `Backend::tag_image` on Docker: containers and networks of this
//! cache's sessions that no longer run, and images this cache's sessions used that no kept
//! plan, no running session of the cache and no container on the engine uses. On a shared
//! engine, every other object (another cache's or user's, a running session's, one taskc
//! did not label) stays; the base image always does.

use bollard::container::{ListContainersOptions, RemoveContainerOptions};
use bollard::image::{ListImagesOptions, RemoveImageOptions, TagImageOptions};

use super::{docker_error, is_not_found, DockerBackend};
use crate::backend::{BackendError, GcItem, GcReport, KeepImages, IMAGE_LABEL, SESSION_LABEL};

impl DockerBackend {
    pub(super) async fn gc_inner(
        &self,
        keep: &KeepImages,
        dry_run: bool,
    ) -> Result<GcReport, BackendError> {
        let mut report = GcReport::new(dry_run);
        let client = self.client();
        // Images any container on the engine that this gc does not remove (running or not,
        // anyone's) was created from: a dry run lists what a real run removes.
        let in_use: std::collections::BTreeSet<String> = client
            .list_containers(Some(ListContainersOptions::<String> {
                all: true,
                ..Default::default()
            }))
            .await
            .map_err(|e| docker_error("list containers", "the engine's containers", e))?
            .into_iter()
            .filter(|c| {
                let session = c.labels.as_ref().and_then(|l| l.get(SESSION_LABEL));
                !session.is_some_and(|s| keep.may_remove_session(s))
            })
            .filter_map(|c| c.image_id)
            .collect();
        let mut others = 0usize;
        let containers = client
            .list_containers(Some(ListContainersOptions::<String> {
                all: true,
                filters: [("label".to_string(), vec![SESSION_LABEL.to_string()])].into(),
                ..Default::default()
            }))
            .await
            .map_err(|e| docker_error("list containers", "taskc containers", e))?;
        for c in containers {
            let (Some(id), Some(session)) = (
                c.id.clone(),
                c.labels
                    .as_ref()
                    .and_then(|l| l.get(SESSION_LABEL))
                    .cloned(),
            ) else {
                continue;
            };
            if !keep.may_remove_session(&session) {
                others += 1;
                continue;
            }
            if !dry_run {
                let options = RemoveContainerOptions {
                    force: true,
                    v: true,
                    ..Default::default()
                };
                if let Err(e) = client.remove_container(&id, Some(options)).await {
                    if !is_not_found(&e) {
                        report
                            .skipped
                            .push((GcItem::Container { id, session }, e.to_string()));
                        continue;
                    }
                }
            }
            report.removed.push(GcItem::Container { id, session });
        }

        // The runs' private networks, once their containers are gone.
        let networks =
            super::services::labelled_networks(client, SESSION_LABEL.to_string()).await?;
        for (name, session) in networks {
            if !keep.may_remove_session(&session) {
                others += 1;
                continue;
            }
            if !dry_run {
                if let Err(e) = super::services::remove_network(client, &name).await {
                    report
                        .skipped
                        .push((GcItem::Network { name, session }, e.to_string()));
                    continue;
                }
            }
            report.removed.push(GcItem::Network { name, session });
        }

        let images = client
            .list_images(Some(ListImagesOptions::<String> {
                all: false,
                filters: [("label".to_string(), vec![IMAGE_LABEL.to_string()])].into(),
                ..Default::default()
            }))
            .await
            .map_err(|e| docker_error("list images", "taskc images", e))?;
        let mut other_images = 0usize;
        let mut used_images = 0usize;
        for image in images {
            let tags: Vec<&String> = image
                .repo_tags
                .iter()
                .filter(|t| t.as_str() != "<none>:<none>")
                .collect();
            // Untagged images and images with a tag gc may not remove are not this gc's:
            // removing the other tags would leave the image anyway.
            if tags.is_empty() || !tags.iter().all(|t| keep.may_remove_image(t)) {
                if !tags.iter().any(|t| keep.keeps(t)) {
                    other_images += 1;
                }
                continue;
            }
            if in_use.contains(&image.id) {
                used_images += 1;
                continue;
            }
            for name in tags.into_iter().cloned() {
                if !dry_run {
                    let options = RemoveImageOptions {
                        force: false,
                        noprune: false,
                    };
                    if let Err(e) = client.remove_image(&name, Some(options), None).await {
                        if !is_not_found(&e) {
                            report.skipped.push((GcItem::Image { name }, e.to_string()));
                            continue;
                        }
                    }
                }
                report.removed.push(GcItem::Image { name });
            }
        }
        if others > 0 {
            report.left_alone.push(format!(
                "{others} container(s) or network(s) of running sessions or of other caches"
            ));
        }
        if used_images > 0 {
            report.left_alone.push(format!(
                "{used_images} image(s) of this cache that a container uses"
            ));
        }
        if other_images > 0 {
            report.left_alone.push(format!(
                "{other_images} taskc image(s) of other caches or of running sessions"
            ));
        }
        Ok(report)
    }

    pub(super) async fn tag_inner(&self, image: &str, name: &str) -> Result<(), BackendError> {
        let (repo, version) = split_tag(name);
        let options = TagImageOptions {
            repo: repo.to_string(),
            tag: version.to_string(),
        };
        self.client()
            .tag_image(image, Some(options))
            .await
            .map_err(|e| docker_error("tag image", image, e))
    }
}

/// `repo[:tag]` → (`repo`, `tag`), `latest` when no tag; a `:` in a registry port is kept.
fn split_tag(tag: &str) -> (&str, &str) {
    match tag.rsplit_once(':') {
        Some((repo, version)) if !version.contains('/') => (repo, version),
        _ => (tag, "latest"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_split_at_the_last_colon_but_not_a_registry_port() {
        assert_eq!(split_tag("agent/task:v1"), ("agent/task", "v1"));
        assert_eq!(split_tag("agent/task"), ("agent/task", "latest"));
        assert_eq!(
            split_tag("localhost:5000/agent/task"),
            ("localhost:5000/agent/task", "latest")
        );
        assert_eq!(
            split_tag("localhost:5000/agent:x"),
            ("localhost:5000/agent", "x")
        );
    }
}
