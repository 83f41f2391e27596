//! Bootstrapping the base image `taskc/base:bookworm` with debootstrap, with no registry.
//!
//! The image is identified by a content id (a hash of suite, mirror, variant and package
//! list) stored as a label: if an image with the tag and the same content id exists, the
//! bootstrap does nothing. Needs root and `debootstrap` on the host
//! (`apt-get install -y debootstrap`).

pub mod ca;
mod error;
mod rootfs_tar;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use bollard::image::CreateImageOptions;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};

use crate::docker::{docker_error, DockerBackend};
pub use error::BootstrapError;

/// The tag every taskc environment image builds `FROM`.
pub const BASE_IMAGE: &str = "taskc/base:bookworm";
/// Label holding the bootstrap content id.
pub const CONTENT_ID_LABEL: &str = "taskc.base.content-id";
/// Label holding the comma-separated package list.
pub const PACKAGES_LABEL: &str = "taskc.base.packages";

/// Packages installed on top of debootstrap's `minbase` variant.
pub const BASE_PACKAGES: &[&str] = &[
    "python3",
    "python3-pytest",
    "python3-venv",
    "python3-pip",
    "git",
    "ca-certificates",
    "patch",
];

/// What to bootstrap and where.
#[derive(Debug, Clone)]
pub struct BootstrapOptions {
    /// Image tag, `repo:tag`.
    pub tag: String,
    /// Debian suite.
    pub suite: String,
    /// Debian mirror URL.
    pub mirror: String,
    /// Packages on top of `minbase`.
    pub packages: Vec<String>,
    /// Rebuild even if an image with the same content id exists.
    pub force: bool,
    /// Folder for the temporary root file system (default: the system temp folder).
    pub work_dir: Option<PathBuf>,
    /// CA certificate files (PEM) added to the image's trust store (their bytes enter the
    /// content id).
    pub ca_certificates: Vec<PathBuf>,
}

impl Default for BootstrapOptions {
    fn default() -> BootstrapOptions {
        BootstrapOptions {
            tag: BASE_IMAGE.into(),
            suite: "bookworm".into(),
            mirror: "http://deb.debian.org/debian".into(),
            packages: BASE_PACKAGES.iter().map(|p| p.to_string()).collect(),
            force: false,
            work_dir: None,
            ca_certificates: Vec::new(),
        }
    }
}

impl BootstrapOptions {
    /// The content id with CA certificates (sha256 each): the plain id when there are none.
    pub fn content_id_with(&self, certs: &[ca::CaCertificate]) -> String {
        let plain = self.content_id();
        if certs.is_empty() {
            return plain;
        }
        let digests: Vec<&str> = certs.iter().map(|c| c.digest.as_str()).collect();
        let text = format!("{plain}\nca-certificates={}\n", digests.join(","));
        hex::encode(Sha256::digest(text.as_bytes()))
    }

    /// The content id of the debootstrapped image (without CA certificates): what it is made
    /// of, independent of when it was made.
    pub fn content_id(&self) -> String {
        let mut packages = self.packages.clone();
        packages.sort();
        let recipe = format!(
            "taskc-base-v1\nsuite={}\nmirror={}\nvariant=minbase\npackages={}\n",
            self.suite,
            self.mirror,
            packages.join(",")
        );
        hex::encode(Sha256::digest(recipe.as_bytes()))
    }
}

/// The bootstrapped (or reused) image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageInfo {
    pub tag: String,
    /// Docker's image id (`sha256:…`).
    pub image_id: String,
    pub content_id: String,
    pub packages: Vec<String>,
    /// `true` when an existing image was reused and nothing was built.
    pub reused: bool,
    pub duration: Duration,
    /// Time per phase (`debootstrap`, `archive`, `import`); empty when reused.
    pub phases: Vec<(&'static str, Duration)>,
}

/// Connects to Docker and bootstraps the base image (see the module docs).
pub async fn bootstrap_base_image(opts: &BootstrapOptions) -> Result<ImageInfo, BootstrapError> {
    let docker = DockerBackend::connect().await?;
    bootstrap_base_image_with(&docker, opts).await
}

/// Bootstraps the base image through an existing connection.
pub async fn bootstrap_base_image_with(
    docker: &DockerBackend,
    opts: &BootstrapOptions,
) -> Result<ImageInfo, BootstrapError> {
    let started = Instant::now();
    let certs = ca::read_ca_certificates(&opts.ca_certificates)?;
    let plain_id = opts.content_id();
    let content_id = opts.content_id_with(&certs);
    if !opts.force {
        if let Some(image_id) = existing(docker, &opts.tag, &content_id).await? {
            return Ok(ImageInfo {
                tag: opts.tag.clone(),
                image_id,
                content_id,
                packages: opts.packages.clone(),
                reused: true,
                duration: started.elapsed(),
                phases: Vec::new(),
            });
        }
    }
    let mut phases = Vec::new();
    // With CA certificates, an existing plain image (same packages, no certificates) is
    // layered on, not debootstrapped again.
    let reusable = match (certs.is_empty(), opts.force) {
        (false, false) => existing(docker, &opts.tag, &plain_id).await?,
        _ => None,
    };
    let mut image_id = match reusable {
        Some(id) => id,
        None => debootstrap_and_import(docker, opts, &plain_id, &mut phases).await?,
    };
    if !certs.is_empty() {
        let phase = Instant::now();
        let mut build = ca::ca_layer(
            &image_id,
            &certs,
            &[
                (CONTENT_ID_LABEL, content_id.as_str()),
                (PACKAGES_LABEL, opts.packages.join(",").as_str()),
            ],
        );
        build.tag = opts.tag.clone();
        docker.build_image(&build).await?;
        image_id = existing(docker, &opts.tag, &content_id)
            .await?
            .ok_or_else(|| BootstrapError::ImportLostLabel {
                tag: opts.tag.clone(),
            })?;
        phases.push(("ca-certificates", phase.elapsed()));
    }
    Ok(ImageInfo {
        tag: opts.tag.clone(),
        image_id,
        content_id,
        packages: opts.packages.clone(),
        reused: false,
        duration: started.elapsed(),
        phases,
    })
}

/// debootstrap a root file system and import it as `opts.tag` labelled `content_id`.
async fn debootstrap_and_import(
    docker: &DockerBackend,
    opts: &BootstrapOptions,
    content_id: &str,
    phases: &mut Vec<(&'static str, Duration)>,
) -> Result<String, BootstrapError> {
    check_host()?;
    let work_dir = opts.work_dir.clone().unwrap_or_else(std::env::temp_dir);
    let tmp = tempfile::Builder::new()
        .prefix("taskc-bootstrap-")
        .tempdir_in(&work_dir)
        .map_err(|e| BootstrapError::Io {
            op: "create a temporary folder in",
            path: work_dir.clone(),
            source: e,
        })?;
    let rootfs = tmp.path().join("rootfs");
    let mut phase = Instant::now();
    run_debootstrap(opts, &rootfs)?;
    phases.push(("debootstrap", phase.elapsed()));
    phase = Instant::now();
    rootfs_tar::clean_apt(&rootfs)?;
    let archive = rootfs_tar::tar_rootfs(&rootfs)?;
    drop(tmp);
    phases.push(("archive", phase.elapsed()));
    phase = Instant::now();
    let image_id = import(docker, opts, content_id, archive).await?;
    phases.push(("import", phase.elapsed()));
    Ok(image_id)
}

/// The image id of `tag` if it exists with `content_id`.
async fn existing(
    docker: &DockerBackend,
    tag: &str,
    content_id: &str,
) -> Result<Option<String>, BootstrapError> {
    match docker.client().inspect_image(tag).await {
        Ok(image) => {
            let labels = image.config.and_then(|c| c.labels).unwrap_or_default();
            if labels.get(CONTENT_ID_LABEL).map(String::as_str) == Some(content_id) {
                Ok(Some(image.id.unwrap_or_default()))
            } else {
                Ok(None)
            }
        }
        Err(e) if crate::docker::is_not_found(&e) => Ok(None),
        Err(e) => Err(docker_error("inspect image", tag, e).into()),
    }
}

fn check_host() -> Result<(), BootstrapError> {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(BootstrapError::NotRoot);
    }
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("debootstrap").is_file()))
        .unwrap_or(false)
        || std::path::Path::new("/usr/sbin/debootstrap").is_file();
    if !found {
        return Err(BootstrapError::NoDebootstrap);
    }
    Ok(())
}

fn run_debootstrap(
    opts: &BootstrapOptions,
    rootfs: &std::path::Path,
) -> Result<(), BootstrapError> {
    let mut cmd = Command::new("debootstrap");
    cmd.arg("--variant=minbase")
        .arg(format!("--include={}", opts.packages.join(",")))
        .arg(&opts.suite)
        .arg(rootfs)
        .arg(&opts.mirror);
    // debootstrap lives in /usr/sbin, which may be missing from a non-login root PATH.
    let path = std::env::var("PATH").unwrap_or_default();
    cmd.env("PATH", format!("{path}:/usr/sbin:/sbin"));
    let output = cmd.output().map_err(|e| BootstrapError::Io {
        op: "start debootstrap for",
        path: rootfs.to_path_buf(),
        source: e,
    })?;
    if !output.status.success() {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        let debootstrap_log =
            std::fs::read_to_string(rootfs.join("debootstrap/debootstrap.log")).unwrap_or_default();
        text.push_str(&debootstrap_log);
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        return Err(BootstrapError::Debootstrap {
            status: output.status.to_string(),
            log_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    Ok(())
}

async fn import(
    docker: &DockerBackend,
    opts: &BootstrapOptions,
    content_id: &str,
    archive: Vec<u8>,
) -> Result<String, BootstrapError> {
    let (repo, tag) = match opts.tag.rsplit_once(':') {
        Some((r, t)) if !t.contains('/') => (r.to_string(), t.to_string()),
        _ => (opts.tag.clone(), "latest".to_string()),
    };
    let label_content = format!("LABEL {CONTENT_ID_LABEL}=\"{content_id}\"");
    let label_packages = format!("LABEL {PACKAGES_LABEL}=\"{}\"", opts.packages.join(","));
    let changes = vec![
        label_content.as_str(),
        label_packages.as_str(),
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "ENV LANG=C.UTF-8",
        "ENV DEBIAN_FRONTEND=noninteractive",
        "CMD [\"bash\"]",
    ];
    let options = CreateImageOptions {
        from_src: "-".to_string(),
        repo,
        tag,
        changes,
        ..Default::default()
    };
    let mut stream = docker
        .client()
        .create_image(Some(options), Some(archive.into()), None);
    while let Some(item) = stream.next().await {
        item.map_err(|e| docker_error("import image", &opts.tag, e))?;
    }
    match existing(docker, &opts.tag, content_id).await? {
        Some(id) => Ok(id),
        None => Err(BootstrapError::ImportLostLabel {
            tag: opts.tag.clone(),
        }),
    }
}
