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
         chroots)\n  help: run `sudo taskc image bootstrap`"
    )]
    NotRoot,

    #[error(
        "`debootstrap` is not installed\n  help: `apt-get install -y debootstrap` (Debian/Ubuntu)"
    )]
    NoDebootstrap,

    #[error(
        "debootstrap failed ({status})\n--- last output ---\n{log_tail}\n  help: check that the \
         mirror is reachable (`curl -I http://deb.debian.org/debian/dists/bookworm/Release`)"
    )]
    Debootstrap { status: String, log_tail: String },

    #[error("{op} `{}`: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(
        "Docker imported `{tag}` but the image lacks the content-id label\n  help: the daemon \
         may not support LABEL in import changes; run `taskc image bootstrap --force`"
    )]
    ImportLostLabel { tag: String },
}
