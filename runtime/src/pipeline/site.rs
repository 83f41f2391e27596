//! How one site fetches sources and builds images: settings of the project's `taskc.toml`
//! that are not part of any spec and never change what a task means.

use std::path::PathBuf;

use super::ImageMap;
use crate::repo::Rewrites;

/// A site's settings for running tasks (`[sources]`, `[images] ca_certificates` and `[images.map]` of `taskc.toml`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Site {
    /// URL rewrites of `git` sources (`[sources] rewrite`).
    pub rewrites: Rewrites,
    /// CA certificate files (PEM) added to the base image (`[images] ca_certificates`),
    /// absolute or relative to the working directory.
    pub ca_certificates: Vec<PathBuf>,
    /// Named images → the local images that stand in for them (`[images.map]`).
    pub image_map: ImageMap,
}
