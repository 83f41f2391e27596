//! A failed image build keeps its whole log in the cache (`<cache>/logs/images/<tag>.log`),
//! and its error shows the first error lines and the log's path.

use std::path::{Path, PathBuf};

use super::PipelineError;
use crate::backend::{BackendError, ImageBuild};
use crate::exec::{ExecError, Executor};

/// The cache file holding the last failed build log of image `tag`.
pub fn build_log_path(cache: &Path, tag: &str) -> PathBuf {
    let name: String = tag
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    cache
        .join("logs")
        .join("images")
        .join(format!("{name}.log"))
}

/// Builds `build` unless present; a failed build's log is written to the cache first.
pub(crate) async fn ensure_image_logged(
    exec: &Executor,
    build: &ImageBuild,
    cache: &Path,
) -> Result<(), PipelineError> {
    match exec.ensure_image(build).await {
        Ok(()) => Ok(()),
        Err(ExecError::Backend(BackendError::ImageBuild { tag, detail, log })) => {
            Err(failed(cache, tag, detail, log))
        }
        Err(ExecError::Backend(BackendError::LocalSetup {
            tag,
            command,
            status,
            output,
        })) => Err(failed(
            cache,
            tag,
            format!("command `{command}` failed ({status})"),
            output,
        )),
        Err(e) => Err(e.into()),
    }
}

fn failed(cache: &Path, tag: String, detail: String, log: String) -> PipelineError {
    let path = build_log_path(cache, &tag);
    let saved = save(&path, &log);
    PipelineError::ImageBuild {
        tag,
        detail,
        excerpt: crate::backend::build_log::excerpt_block(&log),
        log_path: match saved {
            Ok(()) => path.display().to_string(),
            Err(e) => format!("(not kept: cannot write {}: {e})", path.display()),
        },
    }
}

/// Writes `text` to `path` atomically, creating its folder.
fn save(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    crate::atomic::write_atomic(path, text.as_bytes())
}
