//! Named images — `python:3.12-bookworm` as a recipe choice names it, `postgres:16` as a
//! service names it, a `FROM` line of an imported Dockerfile — resolved on the session's
//! backend before lowering: the image the engine holds under that name, or the local image
//! a site's `[images.map]` names to stand in for it (`docs/cli.md`, "taskc.toml"). The one
//! resolution function every caller uses is [`resolve_named_image`]; the compiler gets the
//! outcome as data (`LowerOptions::stand_ins`), as it gets the base image's content id.

use std::collections::BTreeMap;

use taskc_compiler::codes::Code;

use super::PipelineError;
use crate::backend::{Backend, BackendError};

/// `[images.map]` of `taskc.toml`: a named image → the local image that stands in for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageMap {
    entries: BTreeMap<String, String>,
}

impl ImageMap {
    pub fn new(entries: BTreeMap<String, String>) -> ImageMap {
        ImageMap { entries }
    }

    /// The stand-in the site names for `name`, if any.
    pub fn stand_in(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Where a named image came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// The engine holds it under the name the spec gives (pulled before, or built locally).
    Engine,
    /// The site's `[images.map]` names this local image for it.
    StandIn(String),
}

/// A named image resolved on a backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedImage {
    /// The name as the spec (or Dockerfile) gives it.
    pub requested: String,
    /// The name to build `FROM`: `requested`, or its stand-in.
    pub used: String,
    /// The engine's content id of `used` (`None` on backends without engine images).
    pub content_id: Option<String>,
    pub source: ImageSource,
}

/// Why a named image cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageMapError {
    #[error("{code}: the image `{name}` is not on the engine, and `[images.map]` names no stand-in for it", code = Code::ImageUnresolved.as_str())]
    Unresolved { name: String },
    #[error("{code}: `[images.map]` names `{stand_in}` to stand in for `{name}`, but the engine has no image `{stand_in}`", code = Code::ImageUnresolved.as_str())]
    StandInMissing { name: String, stand_in: String },
}

impl ImageMapError {
    pub fn hint(&self) -> String {
        match self {
            ImageMapError::Unresolved { name } => format!(
                "where a registry is reachable, `docker pull {name}`; on a site without one, name a \
                 local image for it in taskc.toml:\n    [images.map]\n    \"{name}\" = \"<local image>\"\n  \
                 (scripts/standins/build.sh builds stand-ins for the python and rust images from \
                 this machine's toolchains and prints these lines with --print-map)"
            ),
            ImageMapError::StandInMissing { stand_in, .. } => format!(
                "build it (`scripts/standins/build.sh` builds the taskc-standin/* images), or correct \
                 the `[images.map]` line that names `{stand_in}`"
            ),
        }
    }
}

/// `name` resolved on `backend` through `map`: a stand-in the map names wins (the site
/// chose it; it must exist), else the image the engine holds under `name`, else E1700.
/// Nothing is pulled: `docker pull` a named image first where a registry is reachable.
pub async fn resolve_named_image(
    backend: &dyn Backend,
    map: &ImageMap,
    name: &str,
) -> Result<ResolvedImage, PipelineError> {
    if let Some(stand_in) = map.stand_in(name) {
        return match backend.image_content_id(stand_in).await {
            Ok(content_id) => Ok(ResolvedImage {
                requested: name.to_string(),
                used: stand_in.to_string(),
                content_id,
                source: ImageSource::StandIn(stand_in.to_string()),
            }),
            Err(BackendError::ImageMissing { .. }) => Err(ImageMapError::StandInMissing {
                name: name.to_string(),
                stand_in: stand_in.to_string(),
            }
            .into()),
            Err(e) => Err(e.into()),
        };
    }
    match backend.image_content_id(name).await {
        Ok(content_id) => Ok(ResolvedImage {
            requested: name.to_string(),
            used: name.to_string(),
            content_id,
            source: ImageSource::Engine,
        }),
        Err(BackendError::ImageMissing { .. }) => Err(ImageMapError::Unresolved {
            name: name.to_string(),
        }
        .into()),
        Err(e) => Err(e.into()),
    }
}
