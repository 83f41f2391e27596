//! Pulling a named base image from its registry and reading the registry digest the engine
//! holds for it (`RepoDigests`), for base images pinned by digest
//! (`pipeline/base_pins.rs`).

use bollard::image::CreateImageOptions;
use futures_util::StreamExt;
use taskc_compiler::image_ref::ImageRef;

use super::{docker_error, is_not_found, DockerBackend};
use crate::backend::BackendError;

impl DockerBackend {
    /// Pulls `reference` (`name:tag` or `name@sha256:…`) and returns the registry digest
    /// the engine now holds for its repository.
    pub(crate) async fn pull_reference(&self, reference: &str) -> Result<String, BackendError> {
        let r = ImageRef::parse(reference);
        let tag = r
            .digest
            .clone()
            .unwrap_or_else(|| r.tag_or_latest().to_string());
        let opts = CreateImageOptions {
            from_image: r.repository.clone(),
            tag,
            ..Default::default()
        };
        let refused = |detail: String| BackendError::Docker {
            op: "pull image",
            target: reference.to_string(),
            detail,
            help: "check that the image's registry is reachable from this engine (an HTTP \
                   registry must be in the engine's `insecure-registries`; 127.0.0.0/8 is by \
                   default); on a site without a registry, name a local image for it in \
                   `[images.map]` of taskc.toml"
                .into(),
        };
        let mut stream = self.client().create_image(Some(opts), None, None);
        while let Some(item) = stream.next().await {
            match item {
                Ok(info) => {
                    if let Some(error) = info.error {
                        return Err(refused(error));
                    }
                }
                Err(e) => return Err(refused(e.to_string())),
            }
        }
        let pulled = match &r.digest {
            Some(d) => r.with_digest(d),
            None => reference.to_string(),
        };
        self.registry_digest(&pulled).await?.ok_or_else(|| {
            refused("the engine records no registry digest for the pulled image".into())
        })
    }

    /// The registry digest the engine holds for `reference`'s repository (`None`: the image
    /// was built or imported locally, never pulled or pushed under that repository); a
    /// missing image is [`BackendError::ImageMissing`].
    pub(crate) async fn registry_digest(
        &self,
        reference: &str,
    ) -> Result<Option<String>, BackendError> {
        let image = match self.client().inspect_image(reference).await {
            Ok(image) => image,
            Err(e) if is_not_found(&e) => {
                return Err(BackendError::ImageMissing {
                    tag: reference.to_string(),
                    help: "pull it where its registry is reachable, or name a local image for \
                           it in `[images.map]` of taskc.toml"
                        .into(),
                })
            }
            Err(e) => return Err(docker_error("inspect image", reference, e)),
        };
        let wanted = ImageRef::parse(reference);
        Ok(image.repo_digests.unwrap_or_default().iter().find_map(|d| {
            let r = ImageRef::parse(d);
            (r.normalized_repository() == wanted.normalized_repository())
                .then_some(r.digest)
                .flatten()
        }))
    }
}
