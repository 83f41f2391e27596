//! Resolving the base image before lowering: its content id enters the environment image's
//! id (a rebuilt base image rebuilds everything on top of it and reruns every run), and a
//! site's CA certificates (`[images] ca_certificates`) are layered on top of it first.

use taskc_compiler::lower::{lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::WorkspaceMode;

use taskc_compiler::service::ServiceImage;

use super::build_log::ensure_image_logged;
use super::{resolve_named_image, PipelineError, Session, Site};
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
    let mut out = resolve_recipe_base(session, opts, site, task).await?;
    let backend: &dyn Backend = session.backend.as_ref();
    let ids = from_stand_ins(backend, site, task, &mut out, true).await?;
    fold_ids(&mut out, ids);
    // What the lock pinned (`CheckedSpec::lower_options`), checked against the registry.
    let locked = opts.base_digests.clone();
    super::base_pins::pin_bases(backend, site, task, &locked, &mut out).await?;
    Ok(out)
}

/// The `FROM` images of a curator's Dockerfile (`env dockerfile`, as `taskc import` writes
/// them) that the site's `[images.map]` names, resolved (E1700 when a stand-in is not on the
/// engine; with `strict` false, such an image is skipped): each stand-in in `out.stand_ins`,
/// for the lowering to rewrite the `FROM` line; their content ids, in `FROM` order.
async fn from_stand_ins(
    backend: &dyn Backend,
    site: &Site,
    task: &Task,
    out: &mut LowerOptions,
    strict: bool,
) -> Result<Vec<String>, PipelineError> {
    if task.env.recipe != "dockerfile" || site.image_map.is_empty() {
        return Ok(Vec::new());
    }
    // The curator's Dockerfile as written (the plan's holds only the last stage once the
    // others are image nodes): its `FROM` images and image contexts.
    let mut ids = Vec::new();
    for image in taskc_compiler::lower::environment_images(&task.env) {
        if site.image_map.stand_in(&image).is_none() {
            continue;
        }
        let resolved = match resolve_named_image(backend, &site.image_map, &image).await {
            Ok(r) => r,
            Err(e) if strict => return Err(e),
            Err(_) => continue,
        };
        ids.extend(resolved.content_id.clone());
        if let Some(id) = &resolved.content_id {
            out.image_ids.insert(resolved.used.clone(), id.clone());
        }
        out.stand_ins.insert(resolved.requested, resolved.used);
    }
    Ok(ids)
}

/// The stand-ins' content ids folded into the environment's base image id, so a rebuilt
/// stand-in rebuilds the environment (and reruns every run on it).
fn fold_ids(out: &mut LowerOptions, ids: Vec<String>) {
    if ids.is_empty() {
        return;
    }
    let joined = ids.join("+");
    out.base_image_id = Some(match out.base_image_id.take() {
        Some(b) => format!("{b}+{joined}"),
        None => joined,
    });
}

/// [`resolve_base`] for the image the recipe builds on.
async fn resolve_recipe_base(
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
    let mut out = opts.clone();
    service_stand_ins(backend, site, task, &mut out).await?;
    if names_an_image(task) {
        return resolve_named_base(session, &mut out, site, &base)
            .await
            .map(|()| out);
    }
    let Some(base_id) = backend.image_content_id(&base).await? else {
        return Ok(out);
    };
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

/// Whether the task's environment builds on a named image a recipe choice names
/// (`env python { version "3.12" }` → `python:3.12-bookworm`), not on the recipe's base
/// image (which `[images] base` replaces).
fn names_an_image(task: &Task) -> bool {
    taskc_compiler::recipe::recipe(&task.env.recipe)
        .is_some_and(|r| r.base_image_for(&task.env.params) != r.base_image)
}

/// The named base image resolved through the site's `[images.map]` (E1700 when neither
/// the engine nor the map has it): its content id in `base_image_id`, a stand-in in
/// `stand_ins`; with the site's CA certificates, a CA layer on it stands in instead.
async fn resolve_named_base(
    session: &Session,
    out: &mut LowerOptions,
    site: &Site,
    base: &str,
) -> Result<(), PipelineError> {
    let backend: &dyn Backend = session.backend.as_ref();
    let resolved = resolve_named_image(backend, &site.image_map, base).await?;
    if resolved.used != resolved.requested {
        out.stand_ins
            .insert(resolved.requested.clone(), resolved.used.clone());
    }
    let Some(id) = resolved.content_id else {
        return Ok(());
    };
    if site.ca_certificates.is_empty() {
        out.base_image_id = Some(id);
        return Ok(());
    }
    let certs = read_ca_certificates(&site.ca_certificates)?;
    let build = ca_layer(&id, &certs, &[("taskc.base", resolved.used.as_str())]);
    let exec = super::images::executor_for_images(session);
    ensure_image_logged(&exec, &build, &session.cache).await?;
    let layer_id = backend
        .image_content_id(&build.tag)
        .await?
        .unwrap_or_else(|| build.tag.clone());
    out.stand_ins.insert(resolved.requested, build.tag);
    out.base_image_id = Some(layer_id);
    Ok(())
}

/// The stand-ins `[images.map]` names for the task's services' named images (`image
/// "postgres:16"`), each checked to exist; a named image the map does not name is built
/// `FROM` as it is.
async fn service_stand_ins(
    backend: &dyn Backend,
    site: &Site,
    task: &Task,
    out: &mut LowerOptions,
) -> Result<(), PipelineError> {
    if site.image_map.is_empty() {
        return Ok(());
    }
    for s in &task.services {
        let ServiceImage::Named(name) = &s.image else {
            continue;
        };
        if site.image_map.stand_in(name).is_none() {
            continue;
        }
        let resolved = resolve_named_image(backend, &site.image_map, name).await?;
        out.stand_ins.insert(resolved.requested, resolved.used);
    }
    Ok(())
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
    let Some(mut out) = resolve_existing_recipe_base(backend, opts, site, task).await? else {
        return Ok(None);
    };
    let ids = from_stand_ins(backend, site, task, &mut out, false).await?;
    fold_ids(&mut out, ids);
    Ok(Some(out))
}

async fn resolve_existing_recipe_base(
    backend: &dyn Backend,
    opts: &LowerOptions,
    site: &Site,
    task: &Task,
) -> Result<Option<LowerOptions>, PipelineError> {
    let base = lower_workspace(task, opts, WorkspaceMode::Joint)?
        .images
        .environment
        .base_image;
    let mut out = opts.clone();
    let base = if names_an_image(task) {
        let Ok(resolved) = resolve_named_image(backend, &site.image_map, &base).await else {
            return Ok(None);
        };
        if resolved.used != resolved.requested {
            out.stand_ins
                .insert(resolved.requested.clone(), resolved.used.clone());
        }
        resolved.used
    } else {
        base
    };
    let Ok(Some(base_id)) = backend.image_content_id(&base).await else {
        return Ok(None);
    };
    if site.ca_certificates.is_empty() {
        out.base_image_id = Some(base_id);
        return Ok(Some(out));
    }
    let certs = read_ca_certificates(&site.ca_certificates)?;
    let tag = ca_layer(&base_id, &certs, &[]).tag;
    let Ok(Some(layer_id)) = backend.image_content_id(&tag).await else {
        return Ok(None);
    };
    if names_an_image(task) {
        let requested = lower_workspace(task, opts, WorkspaceMode::Joint)?
            .images
            .environment
            .base_image;
        out.stand_ins.insert(requested, tag);
        out.base_image_id = Some(layer_id);
        return Ok(Some(out));
    }
    out.base_image_override = Some(tag);
    out.base_image_id = Some(layer_id);
    Ok(Some(out))
}
