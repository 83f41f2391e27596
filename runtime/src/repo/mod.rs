//! Materialising a repository at its base as ONE synthetic commit, with no history.
//!
//! Sources: `dir` (a folder, copied without `.git` folders — or, when a base is given and
//! the folder is a git repository, its tree at base), `bundle` (a git bundle, at base) and
//! `git` (a URL, through a bare mirror cache `<cache>/git/<sha256(url)>.git`, fetched only
//! when the base is missing, so cached bases work offline). The result is a fresh repository
//! on branch `main` with one commit `base` by `taskc <taskc@localhost>` dated
//! 2000-01-01T00:00:00Z: its id depends only on the content.
//!
//! A `git` source fetches only what its base needs: the base commit alone (shallow) where
//! the server allows fetching by id, else branches and tags, and `refs/*` only as a last
//! resort (see [`materialize`]). URLs can be rewritten per site ([`Rewrites`]).
//!
//! Every materialised file and folder gets one fixed modification time (see [`mtime`]): the
//! base commit's committer date for git and bundle sources (and folders checked out at a
//! base), [`DIR_MTIME`] for plain folders; never before 1980, so ZIP-based builds work.

mod error;
mod git;
mod materialize;
pub mod mtime;
mod rewrite;

use std::path::{Path, PathBuf};

pub use error::RepoError;
pub(crate) use git::Git;
pub use git::{AUTHOR_EMAIL, AUTHOR_NAME, COMMIT_DATE};
pub use materialize::{materialize, mirror_path};
pub use mtime::{DIR_MTIME, MIN_MTIME};
pub use rewrite::{Rewrites, UrlRewrite};

/// Where a repository's content comes from, with paths resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoSource {
    /// A folder on disk.
    Dir(PathBuf),
    /// A git bundle file.
    Bundle(PathBuf),
    /// A git URL (anything `git fetch` accepts).
    Git(String),
}

impl RepoSource {
    /// Resolves a spec's source against the spec's folder.
    pub fn from_model(source: &taskc_compiler::model::Source, spec_dir: &Path) -> RepoSource {
        use taskc_compiler::model::Source;
        match source {
            Source::Dir { path, .. } => RepoSource::Dir(spec_dir.join(path)),
            Source::Bundle { path, .. } => RepoSource::Bundle(spec_dir.join(path)),
            Source::Git { url } => RepoSource::Git(url.clone()),
        }
    }

    /// Like [`RepoSource::from_model`], with a site's URL `rewrites` applied to git URLs; a
    /// git URL that is a plain relative path (to a local mirror) is taken from `spec_dir`.
    pub fn resolve(
        source: &taskc_compiler::model::Source,
        spec_dir: &Path,
        rewrites: &Rewrites,
    ) -> RepoSource {
        match source {
            taskc_compiler::model::Source::Git { url } => {
                RepoSource::Git(rewrite::resolve_path(&rewrites.apply(url), spec_dir))
            }
            other => RepoSource::from_model(other, spec_dir),
        }
    }

    /// A short description for errors: `dir /x`, `bundle /x.bundle`, `git https://…`.
    pub fn describe(&self) -> String {
        match self {
            RepoSource::Dir(p) => format!("folder `{}`", p.display()),
            RepoSource::Bundle(p) => format!("bundle `{}`", p.display()),
            RepoSource::Git(url) => format!("git repository `{url}`"),
        }
    }
}

/// A materialised repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Materialized {
    /// The repository's folder (work tree with `.git`).
    pub path: PathBuf,
    /// The synthetic commit id (deterministic for a given content).
    pub commit: String,
    /// The modification time of every file, seconds since the epoch (see [`mtime`]).
    pub mtime: i64,
}
