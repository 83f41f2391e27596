//! How the compiler sees files: through this trait only. The compiler does no I/O itself;
//! the runtime provides a file-system loader, tests and benches an in-memory one.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    NotFound,
    /// The path resolves (through a symbolic link) outside the spec's folder.
    Escapes,
    Other(String),
}

/// Paths given to a loader are relative to the spec's folder, `/`-separated, normalised
/// (no `.` or `..` components, not absolute): the checker rejects anything else first.
pub trait Loader {
    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError>;
    fn kind(&self, path: &str) -> Result<EntryKind, LoadError>;
    /// A digest of a folder's tree: every file's relative path, executable bit and bytes,
    /// `.git` folders left out, as [`crate::plan::digest::folder_digest`] computes it (every
    /// loader must use it, so one tree has one digest).
    fn dir_digest(&self, path: &str) -> Result<String, LoadError>;

    /// The names in a folder (`""` is the spec's folder), sorted; for "did you mean".
    /// A loader that cannot list folders returns `Err` and no suggestion is made.
    fn list_dir(&self, path: &str) -> Result<Vec<String>, LoadError> {
        let _ = path;
        Err(LoadError::Other("this loader lists no folders".into()))
    }

    /// The tree of a repository source at `base`, read-only: a loader never fetches
    /// anything to answer. Sources it cannot read are [`BaseTree::Unreadable`], and the
    /// checks against the base are skipped (with a note), never failed.
    fn base_tree(&self, source: &RepoSource<'_>, base: Option<&str>) -> BaseTree {
        let _ = (source, base);
        BaseTree::Unreadable {
            why: "this loader reads no repositories".into(),
        }
    }
}

/// A repository source as the spec names it (paths relative to the spec's folder).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepoSource<'a> {
    Dir(&'a str),
    Bundle(&'a str),
    Git(&'a str),
}

/// What a loader could read of a repository at its base.
pub enum BaseTree {
    /// The files at base.
    Readable(Box<dyn Tree>),
    /// The source was read, and it holds no commit `base`.
    NoSuchCommit { why: String },
    /// The source cannot be read here (an uncached remote, no git): nothing to check.
    Unreadable { why: String },
}

impl std::fmt::Debug for BaseTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BaseTree::Readable(t) => write!(f, "Readable({} files)", t.paths().len()),
            BaseTree::NoSuchCommit { why } => write!(f, "NoSuchCommit({why:?})"),
            BaseTree::Unreadable { why } => write!(f, "Unreadable({why:?})"),
        }
    }
}

/// A repository's files at base: the list up front, the bytes on demand.
pub trait Tree {
    /// Every file's path, `/`-separated, sorted.
    fn paths(&self) -> &[String];
    /// One file's bytes.
    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError>;
    /// Several files' bytes, in order (a loader may batch this).
    fn read_many(&self, paths: &[&str]) -> Vec<Result<Vec<u8>, LoadError>> {
        paths.iter().map(|p| self.read(p)).collect()
    }
}

/// A tree held in memory.
#[derive(Debug, Clone, Default)]
pub struct MemTree {
    paths: Vec<String>,
    files: BTreeMap<String, Vec<u8>>,
}

impl MemTree {
    pub fn new(files: BTreeMap<String, Vec<u8>>) -> MemTree {
        MemTree {
            paths: files.keys().cloned().collect(),
            files,
        }
    }
}

impl Tree for MemTree {
    fn paths(&self) -> &[String] {
        &self.paths
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        self.files.get(path).cloned().ok_or(LoadError::NotFound)
    }
}

/// An in-memory loader for tests, benches and fuzzing. Folders exist implicitly as the
/// parents of files. A `dir` source's base tree is the files below it; `git` and `bundle`
/// sources are readable when added with [`MemLoader::with_commit`].
#[derive(Debug, Clone, Default)]
pub struct MemLoader {
    pub files: BTreeMap<String, Vec<u8>>,
    /// (source, commit) → files, where source is a git URL or a bundle's path.
    pub commits: BTreeMap<(String, String), BTreeMap<String, Vec<u8>>>,
}

impl MemLoader {
    pub fn new() -> MemLoader {
        MemLoader::default()
    }

    pub fn with(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> MemLoader {
        self.files.insert(path.to_string(), bytes.into());
        self
    }

    /// Makes `source` (a git URL or a bundle's path) readable, holding `commit` with `files`.
    pub fn with_commit(mut self, source: &str, commit: &str, files: &[(&str, &str)]) -> MemLoader {
        let files = files
            .iter()
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        self.commits
            .insert((source.to_string(), commit.to_string()), files);
        self
    }

    fn prefix(path: &str) -> String {
        if path.is_empty() || path == "." {
            String::new()
        } else {
            format!("{}/", path.trim_end_matches('/'))
        }
    }
}

impl Loader for MemLoader {
    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        self.files.get(path).cloned().ok_or(LoadError::NotFound)
    }

    fn kind(&self, path: &str) -> Result<EntryKind, LoadError> {
        if self.files.contains_key(path) {
            return Ok(EntryKind::File);
        }
        let prefix = MemLoader::prefix(path);
        if self.files.keys().any(|k| k.starts_with(&prefix)) {
            Ok(EntryKind::Dir)
        } else {
            Err(LoadError::NotFound)
        }
    }

    fn dir_digest(&self, path: &str) -> Result<String, LoadError> {
        use crate::plan::digest::{folder_digest, FileMode, TreeEntry};
        let prefix = MemLoader::prefix(path);
        let entries: Vec<TreeEntry<'_>> = self
            .files
            .range(prefix.clone()..)
            .map_while(|(k, v)| {
                k.strip_prefix(&prefix).map(|rel| TreeEntry {
                    path: rel,
                    mode: FileMode::Regular,
                    bytes: v,
                })
            })
            .collect();
        if entries.is_empty() {
            return Err(LoadError::NotFound);
        }
        Ok(folder_digest(&entries))
    }

    fn list_dir(&self, path: &str) -> Result<Vec<String>, LoadError> {
        let prefix = MemLoader::prefix(path);
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .filter_map(|rest| rest.split('/').next())
            .map(str::to_string)
            .collect();
        names.dedup();
        if names.is_empty() {
            return Err(LoadError::NotFound);
        }
        Ok(names)
    }

    fn base_tree(&self, source: &RepoSource<'_>, base: Option<&str>) -> BaseTree {
        let key = match source {
            RepoSource::Dir(path) => {
                let prefix = MemLoader::prefix(path);
                let files: BTreeMap<String, Vec<u8>> = self
                    .files
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .map(|(k, v)| (k[prefix.len()..].to_string(), v.clone()))
                    .collect();
                return BaseTree::Readable(Box::new(MemTree::new(files)));
            }
            RepoSource::Bundle(s) | RepoSource::Git(s) => *s,
        };
        if !self.commits.keys().any(|(s, _)| s == key) {
            return BaseTree::Unreadable {
                why: format!("`{key}` is not available"),
            };
        }
        let Some(base) = base else {
            return BaseTree::Unreadable {
                why: "no base commit".into(),
            };
        };
        match self.commits.get(&(key.to_string(), base.to_string())) {
            Some(files) => BaseTree::Readable(Box::new(MemTree::new(files.clone()))),
            None => BaseTree::NoSuchCommit {
                why: format!("`{key}` has no commit {base}"),
            },
        }
    }
}
