//! Resolving the base image before lowering: its content id enters the environment image's
//! id (a rebuilt base image rebuilds everything on top of it and reruns every run), and a
//! site's CA certificates (`[images] ca_certificates`) are layered on top of it first.

use std::path::PathBuf;

use sha2::{Digest, Sha256};
use taskc_compiler::lower::{lower_workspace, LowerOptions};
use taskc_compiler::model::Task;
use taskc_compiler::plan::WorkspaceMode;

use super::build_log::ensure_image_logged;
use super::{PipelineError, Session, Site};
use crate::backend::{Backend, ContextFile, ImageBuild, IMAGE_LABEL};

/// Where the CA layer puts certificate files (`update-ca-certificates` reads `*.crt` there).
pub const CA_DIR: &str = "/usr/local/share/ca-certificates";

/// The system trust store `update-ca-certificates` writes, which the layer points tools at.
pub const CA_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// Label of a CA layer: the sha256 of each certificate file, comma-separated.
pub const CA_LABEL: &str = "taskc.base.ca-certificates";

/// One CA certificate file (PEM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaCertificate {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// sha256 of `bytes`, hex.
    pub digest: String,
}

/// Reads CA certificate files; each must hold at least one PEM certificate.
pub fn read_ca_certificates(paths: &[PathBuf]) -> Result<Vec<CaCertificate>, PipelineError> {
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|source| PipelineError::Io {
            what: format!("cannot read the CA certificate {}", path.display()),
            source,
        })?;
        if !String::from_utf8_lossy(&bytes).contains("-----BEGIN CERTIFICATE-----") {
            return Err(PipelineError::Io {
                what: format!("CA certificate {}", path.display()),
                source: std::io::Error::other(
                    "not a PEM certificate (no `-----BEGIN CERTIFICATE-----` line); convert \
                     a DER file with `openssl x509 -inform der -in FILE -out FILE.pem`",
                ),
            });
        }
        let digest = hex::encode(Sha256::digest(&bytes));
        out.push(CaCertificate {
            path: path.clone(),
            bytes,
            digest,
        });
    }
    Ok(out)
}

/// The image build that adds `certs` to the image whose content id is `from_id`: the files
/// under [`CA_DIR`], `update-ca-certificates`, and the variables that make Python's `ssl`,
/// pip, requests, curl and Node.js use the system trust store. Its tag is
/// `taskc/base:ca-<hash of from_id and the certificates>`: content-addressed, and under the
/// base image's name, which `taskc gc` never removes.
pub fn ca_layer(from_id: &str, certs: &[CaCertificate], labels: &[(&str, &str)]) -> ImageBuild {
    let digests: Vec<&str> = certs.iter().map(|c| c.digest.as_str()).collect();
    let mut h = Sha256::new();
    h.update(b"taskc.ca-layer/1\n");
    h.update(from_id.as_bytes());
    for d in &digests {
        h.update(b"\n");
        h.update(d.as_bytes());
    }
    let id = hex::encode(h.finalize());
    let context: Vec<ContextFile> = certs
        .iter()
        .enumerate()
        .map(|(i, c)| ContextFile {
            path: format!("ca/taskc-{i}-{}.crt", &c.digest[..12]),
            bytes: c.bytes.clone(),
            mode: 0o644,
            mtime: crate::repo::DIR_MTIME,
        })
        .collect();
    let dockerfile = format!(
        "FROM {from_id}\nCOPY ca/ {CA_DIR}/\nRUN update-ca-certificates\n\
         ENV SSL_CERT_FILE={CA_BUNDLE} PIP_CERT={CA_BUNDLE} REQUESTS_CA_BUNDLE={CA_BUNDLE} \
         CURL_CA_BUNDLE={CA_BUNDLE} NODE_EXTRA_CA_CERTS={CA_BUNDLE}\n"
    );
    let mut all_labels = std::collections::BTreeMap::new();
    all_labels.insert(IMAGE_LABEL.to_string(), format!("ca-{}", &id[..16]));
    all_labels.insert(CA_LABEL.to_string(), digests.join(","));
    for (k, v) in labels {
        all_labels.insert(k.to_string(), v.to_string());
    }
    ImageBuild {
        tag: format!("taskc/base:ca-{}", &id[..16]),
        dockerfile,
        context,
        labels: all_labels,
        local_setup: Vec::new(),
        local_requires: Vec::new(),
    }
}

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
