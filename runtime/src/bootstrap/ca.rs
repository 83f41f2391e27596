//! CA certificates for the base image (sites behind a TLS-intercepting proxy): read and
//! checked from files, and layered onto an image by one content-addressed build, used by
//! `[images] ca_certificates` (on the resolved base image) and `taskc image bootstrap
//! --ca-cert` (on the bootstrapped image).

use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::backend::{ContextFile, ImageBuild, IMAGE_LABEL};

/// A CA certificate file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CaError {
    #[error("cannot read the CA certificate `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "CA certificate `{}` is not a PEM certificate (no `-----BEGIN CERTIFICATE-----` line)",
        path.display()
    )]
    NotPem { path: PathBuf },
}

impl CaError {
    /// What to do about it (the CLI shows it as `help:`), when something is known.
    pub fn hint(&self) -> Option<String> {
        match self {
            CaError::Read { .. } => None,
            CaError::NotPem { .. } => Some(
                "convert a DER file with `openssl x509 -inform der -in FILE -out FILE.pem`"
                    .to_string(),
            ),
        }
    }
}

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
pub fn read_ca_certificates(paths: &[PathBuf]) -> Result<Vec<CaCertificate>, CaError> {
    let mut out = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|source| CaError::Read {
            path: path.clone(),
            source,
        })?;
        if !String::from_utf8_lossy(&bytes).contains("-----BEGIN CERTIFICATE-----") {
            return Err(CaError::NotPem { path: path.clone() });
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
