//! A spec as every entry point past `check` takes it: checked without errors, with where it
//! lives and the project settings (`taskc.toml`) that apply to it.

use std::path::PathBuf;

use taskc_compiler::lower::LowerOptions;
use taskc_compiler::model::Task;

use super::Site;

/// A spec that checked without errors.
#[derive(Debug, Clone)]
pub struct CheckedSpec {
    /// The path as the user gave it, for messages.
    pub name: String,
    pub path: PathBuf,
    /// The spec's folder: its relative paths start here.
    pub dir: PathBuf,
    pub task: Task,
    /// `[images] base` of the nearest `taskc.toml`, if any.
    pub base_image_override: Option<String>,
    /// `[sources]` and `[images] ca_certificates` of the nearest `taskc.toml`.
    pub site: Site,
}

impl CheckedSpec {
    /// The lowering options every plan of this spec starts from.
    pub fn lower_options(&self) -> LowerOptions {
        LowerOptions {
            base_image_override: self.base_image_override.clone(),
            exhaustive: false,
            full: false,
            base_image_id: None,
            stand_ins: Default::default(),
            // The base images the lock beside the spec pinned: a build uses those digests.
            base_digests: super::base_pins::locked_base_digests(&self.path),
            image_ids: Default::default(),
        }
    }
}
