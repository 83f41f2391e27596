//! Resolving the base image before lowering: its content id enters the environment image's
//! id (a rebuilt base image rebuilds everything on top of it and reruns every run), and a
//! site's CA certificates (`[images] ca_certificates`) are layered on top of it first.

use taskc_compiler::lower::{lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::WorkspaceMode;

use super::build_log::ensure_image_logged;
use super::{PipelineError, Session, Site};
use crate::backend::Backend;
use crate::bootstrap::ca::{ca_layer, read_ca_certificates};

/// `opts` with the base image resolved on the session's backend: its content id in
/// `base_image_id`, and with the site's CA certificates, the base replaced by its CA layer
/// (built if needed). Backends without engine images (local) leave `opts` as they are.
pub async fn resolve_base(
    session: &Session,
    opts: &LowerOptions,
    site: &Site,
    task: &Task,
) -> Result<LowerOptions, PipelineError> {
    // Any plan names the base image; the workspace plan is the cheapest to lower.
    let base = lower_workspace(task, opts, WorkspaceMode::Joint)?
        .images
        .environment
        .base_image;
    let backend: &dyn Backend = session.backend.as_ref();
    let Some(base_id) = backend.image_content_id(&base).await? else {
        return Ok(opts.clone());
    };
    let mut out = opts.clone();
    if site.ca_certificates.is_empty() {
        out.base_image_id = Some(base_id);
        return Ok(out);
    }
    let certs = read_ca_certificates(&site.ca_certificates)?;
    let build = ca_layer(&base_id, &certs, &[("taskc.base", base.as_str())]);
    let exec = super::images::executor_for_images(session);
    ensure_image_logged(&exec, &build, &session.cache).await?;
    let layer_id = backend
        .image_content_id(&build.tag)
        .await?
        .unwrap_or_else(|| build.tag.clone());
    out.base_image_override = Some(build.tag);
    out.base_image_id = Some(layer_id);
    Ok(out)
}

/// `opts` with the base image's content id as [`resolve_base`] would set it, from images
/// that already exist (nothing is built): `None` when the base image (or its CA layer) is
/// absent or the backend has no engine images. For `taskc gc --keep`, whose kept images
/// carry ids that fold the base image in.
pub async fn resolve_existing_base(
    backend: &dyn Backend,
    opts: &LowerOptions,
    site: &Site,
    task: &Task,
) -> Result<Option<LowerOptions>, PipelineError> {
    let base = lower_workspace(task, opts, WorkspaceMode::Joint)?
        .images
        .environment
        .base_image;
    let Ok(Some(base_id)) = backend.image_content_id(&base).await else {
        return Ok(None);
    };
    let mut out = opts.clone();
    if site.ca_certificates.is_empty() {
        out.base_image_id = Some(base_id);
        return Ok(Some(out));
    }
    let certs = read_ca_certificates(&site.ca_certificates)?;
    let tag = ca_layer(&base_id, &certs, &[]).tag;
    let Ok(Some(layer_id)) = backend.image_content_id(&tag).await else {
        return Ok(None);
    };
    out.base_image_override = Some(tag);
    out.base_image_id = Some(layer_id);
    Ok(Some(out))
}
