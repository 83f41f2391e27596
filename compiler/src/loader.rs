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
    /// in sorted order. Lowercase hex sha256.
    fn dir_digest(&self, path: &str) -> Result<String, LoadError>;
}

/// An in-memory loader for tests, benches and fuzzing. Folders exist implicitly as the
/// parents of files.
#[derive(Debug, Clone, Default)]
pub struct MemLoader {
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemLoader {
    pub fn new() -> MemLoader {
        MemLoader::default()
    }

    pub fn with(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> MemLoader {
        self.files.insert(path.to_string(), bytes.into());
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
        use sha2::{Digest, Sha256};
        let prefix = MemLoader::prefix(path);
        let mut h = Sha256::new();
        let mut any = false;
        for (k, v) in self.files.range(prefix.clone()..) {
            let Some(rel) = k.strip_prefix(&prefix) else {
                break;
            };
            any = true;
            h.update(rel.as_bytes());
            h.update([0]);
            h.update(b"100644");
            h.update([0]);
            h.update((v.len() as u64).to_le_bytes());
            h.update(v);
        }
        if !any {
            return Err(LoadError::NotFound);
        }
        Ok(hex::encode(h.finalize()))
    }
}
