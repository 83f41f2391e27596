//! Base images pinned by registry digest (`docs/lock.md`, `[base-images]`): each `FROM`
//! image of a curator's Dockerfile (`env dockerfile`) that `[images.map]` does not stand in
//! for and that comes from a registry is pulled by its tag, and the build starts from
//! `<name>@<digest>`; the lock records the digest. A build with a lock uses the locked
//! digest, and a tag that now names another digest is a stale lock (E1800), never a silent
//! change. An image built or imported locally (no registry digest) is used as it is, and on
//! a site without a registry an image the engine already holds by digest is pinned to it.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::codes::Code;
use taskc_compiler::image_ref::ImageRef;
use taskc_compiler::lock::{lock_path_for, parse_lock};
use taskc_compiler::lower::{environment_images, LowerOptions};
use taskc_compiler::model::Task;

use super::{PipelineError, Site};
use crate::backend::{Backend, BackendError};

/// Why a base image cannot be pinned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BasePinError {
    #[error("{code}: the lock pins `{name}` to {locked}, but its registry now names {current} for that tag", code = Code::BaseTagMoved.as_str())]
    TagMoved {
        name: String,
        locked: String,
        current: String,
    },
    #[error("{code}: the lock pins `{name}` to {locked}, which can neither be pulled ({detail}) nor found on the engine", code = Code::BasePinUnavailable.as_str())]
    Unavailable {
        name: String,
        locked: String,
        detail: String,
    },
}

impl BasePinError {
    pub fn hint(&self) -> String {
        match self {
            BasePinError::TagMoved { name, .. } => format!(
                "the oracle was derived on the locked image; to derive it again on the image the \
                 tag names now, remove the `\"{name}\"` line of `[base-images]` from the lock (or \
                 the lock) and re-run `taskc verify`; to keep the locked image, push it again \
                 under the tag"
            ),
            BasePinError::Unavailable { name, locked, .. } => format!(
                "make `{}` reachable (its registry), or load it into the engine; on a site without \
                 a registry, name a local image for `{name}` in `[images.map]` of taskc.toml",
                ImageRef::parse(name).with_digest(locked)
            ),
        }
    }
}

/// The `[base-images]` of the lock beside `spec_path` (empty without a readable lock: a
/// lock that does not parse is reported by `check` and by scoring, not here).
pub fn locked_base_digests(spec_path: &Path) -> BTreeMap<String, String> {
    let lock = lock_path_for(&spec_path.to_string_lossy());
    std::fs::read_to_string(lock)
        .ok()
        .and_then(|text| parse_lock(&text).ok())
        .map(|l| l.base_images)
        .unwrap_or_default()
}

/// `out.base_digests` set to the digest each registry `FROM` image of the task's Dockerfile
/// is built from, checked against `locked` (what the lock pinned).
pub(crate) async fn pin_bases(
    backend: &dyn Backend,
    site: &Site,
    task: &Task,
    locked: &BTreeMap<String, String>,
    out: &mut LowerOptions,
) -> Result<(), PipelineError> {
    out.base_digests.clear();
    // Its `FROM` images and image contexts (`contexts { dep image("…") }`).
    for name in environment_images(&task.env) {
        if site.image_map.stand_in(&name).is_some() || ImageRef::parse(&name).digest.is_some() {
            continue;
        }
        if let Some(digest) = pin_one(backend, &name, locked.get(&name)).await? {
            out.base_digests.insert(name, digest);
        }
    }
    Ok(())
}

/// The digest `name` is built from, or `None` to build from `name` as it is.
async fn pin_one(
    backend: &dyn Backend,
    name: &str,
    locked: Option<&String>,
) -> Result<Option<String>, PipelineError> {
    let held = match backend.image_registry_digest(name).await {
        Ok(d) => Some(d),
        Err(BackendError::ImageMissing { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    // Built or imported locally (`taskc/base:bookworm`, a stand-in): nothing to pull, no
    // registry to ask. Backends without engine images answer the same.
    if matches!(held, Some(None)) && locked.is_none() {
        return Ok(None);
    }
    match backend.pull_image(name).await {
        Ok(Some(current)) => match locked {
            Some(l) if *l != current => Err(BasePinError::TagMoved {
                name: name.to_string(),
                locked: l.clone(),
                current,
            }
            .into()),
            _ => Ok(Some(current)),
        },
        Ok(None) => Ok(None),
        // No registry reached: the locked digest if the engine has it (or can pull it by
        // digest), else what the engine holds under the name, else the build reports it.
        Err(pull) => match locked {
            Some(l) => {
                let by_digest = ImageRef::parse(name).with_digest(l);
                if backend.image_registry_digest(&by_digest).await.is_ok()
                    || backend.pull_image(&by_digest).await.is_ok()
                {
                    Ok(Some(l.clone()))
                } else {
                    Err(BasePinError::Unavailable {
                        name: name.to_string(),
                        locked: l.clone(),
                        detail: pull.to_string(),
                    }
                    .into())
                }
            }
            None => Ok(held.flatten()),
        },
    }
}
