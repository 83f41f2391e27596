//! Why the base image could not be bootstrapped.

use std::path::PathBuf;

use crate::backend::BackendError;

/// A failed base image bootstrap, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    #[error(transparent)]
    Backend(#[from] BackendError),

    #[error(transparent)]
    Ca(#[from] super::ca::CaError),

    #[error(
        "bootstrapping the base image needs root (debootstrap creates device nodes and \
         chroots)"
    )]
    NotRoot,

    #[error("`debootstrap` is not installed")]
    NoDebootstrap,

    #[error("debootstrap failed ({status})\n--- last output ---\n{log_tail}")]
    Debootstrap { status: String, log_tail: String },

    #[error("{op} `{}`: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("Docker imported `{tag}` but the image lacks the content-id label")]
    ImportLostLabel { tag: String },
}

impl BootstrapError {
    /// What to do about it (the CLI shows it as `help:`), when something is known.
    pub fn hint(&self) -> Option<String> {
        let text = match self {
            BootstrapError::Backend(e) => return e.hint(),
            BootstrapError::Ca(e) => return e.hint(),
            BootstrapError::NotRoot => "run `sudo taskc image bootstrap`",
            BootstrapError::NoDebootstrap => "`apt-get install -y debootstrap` (Debian/Ubuntu)",
            BootstrapError::Debootstrap { .. } => {
                "check that the mirror is reachable \
                 (`curl -I http://deb.debian.org/debian/dists/bookworm/Release`)"
            }
            BootstrapError::Io { .. } => return None,
            BootstrapError::ImportLostLabel { .. } => {
                "the daemon may not support LABEL in import changes; run \
                 `taskc image bootstrap --force`"
            }
        };
        Some(text.to_string())
    }
}
