//! Backend errors: each names the operation that failed and what to do about it.

use std::path::PathBuf;

/// Why a backend could not do what was asked (as opposed to a run that failed).
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    /// The Docker daemon did not answer.
    #[error("cannot reach the Docker daemon ({detail})")]
    DockerUnreachable { detail: String },

    /// A Docker API call failed.
    #[error("Docker {op} failed for `{target}`: {detail}")]
    Docker {
        /// The Docker operation, e.g. `create container`.
        op: &'static str,
        /// The image or container concerned.
        target: String,
        detail: String,
        help: String,
    },

    /// An image build reported an error. `log` is the whole build output; the message shows
    /// its first error lines (the pipeline also keeps the whole log in the cache).
    #[error(
        "building image `{tag}` failed: {detail}{}",
        super::build_log::excerpt_block(log)
    )]
    ImageBuild {
        tag: String,
        detail: String,
        log: String,
    },

    /// A run named an image that was never built.
    #[error("image `{tag}` does not exist")]
    ImageMissing { tag: String, help: String },

    /// The local backend needs a program that is not on `PATH`.
    #[error("image `{tag}` needs the program `{program}`, which is not on PATH")]
    MissingProgram { tag: String, program: String },

    /// A local image setup command failed.
    #[error("preparing local image `{tag}`: command `{command}` failed ({status})\n{output}")]
    LocalSetup {
        tag: String,
        command: String,
        status: String,
        output: String,
    },

    /// A file-system or process operation failed.
    #[error("{op} `{}`: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A prediction's code would run on the host: the local backend cannot sandbox here.
    #[error(
        "the local backend refuses to run the code of prediction run `{run_id}` unsandboxed: \
         {reason}"
    )]
    Unsandboxed { run_id: String, reason: String },

    /// This backend cannot do what was asked (e.g. tag an image on the local backend).
    #[error("the {backend} backend cannot {op}")]
    Unsupported {
        backend: &'static str,
        op: String,
        help: String,
    },

    /// The request itself is malformed (e.g. a relative upload path).
    #[error("invalid run request for `{run_id}`: {detail}")]
    InvalidRequest { run_id: String, detail: String },
}

impl BackendError {
    /// What to do about it (the CLI shows it as `help:`), when something is known.
    pub fn hint(&self) -> Option<String> {
        match self {
            BackendError::DockerUnreachable { .. } => Some(
                "start Docker and check that /var/run/docker.sock (or DOCKER_HOST) is \
                 reachable by this user, or run with `--backend local`"
                    .to_string(),
            ),
            BackendError::Docker { help, .. }
            | BackendError::ImageMissing { help, .. }
            | BackendError::Unsupported { help, .. } => Some(help.clone()),
            BackendError::MissingProgram { program, .. } => Some(format!(
                "install `{program}` on this machine, or use `--backend docker`"
            )),
            BackendError::Unsandboxed { .. } => Some(
                "install bubblewrap (`apt-get install bubblewrap`; scripts/setup.sh does), \
                 score on `--backend docker`, or score only the `gold`/`empty` baselines"
                    .to_string(),
            ),
            _ => None,
        }
    }

    /// Builds a [`BackendError::Io`].
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> BackendError {
        BackendError::Io {
            op,
            path: path.into(),
            source,
        }
    }
}
