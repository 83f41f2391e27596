//! The compiler's [`Loader`] over the real file system, rooted at a spec's folder.

use std::path::{Path, PathBuf};

use taskc_compiler::loader::{BaseTree, EntryKind, LoadError, Loader, RepoSource};
use taskc_compiler::plan::digest::{folder_digest, FileMode, TreeEntry};

use crate::base_tree;
use crate::repo::Rewrites;

/// Reads files below `root` (a spec's folder); refuses anything that resolves outside it.
/// Repositories at base are read from folders, bundles and, with a cache, cached git
/// mirrors, never fetched.
#[derive(Debug, Clone)]
pub struct FsLoader {
    root: PathBuf,
    cache: Option<PathBuf>,
    rewrites: Rewrites,
}

impl FsLoader {
    pub fn new(root: impl Into<PathBuf>) -> FsLoader {
        FsLoader {
            root: root.into(),
            cache: None,
            rewrites: Rewrites::none(),
        }
    }

    /// Reads `git` sources from where the site's URL rewrites (`[sources] rewrite` in
    /// `taskc.toml`) point them, as `verify` fetches them.
    pub fn with_rewrites(mut self, rewrites: Rewrites) -> FsLoader {
        self.rewrites = rewrites;
        self
    }

    /// Reads `git` sources at base from the mirrors cached under `cache` (read-only).
    pub fn with_cache(mut self, cache: impl Into<PathBuf>) -> FsLoader {
        self.cache = Some(cache.into());
        self
    }

    fn resolve(&self, rel: &str) -> Result<PathBuf, LoadError> {
        let path = self.root.join(rel);
        let canon = path.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LoadError::NotFound,
            _ => LoadError::Other(e.to_string()),
        })?;
        let root = self
            .root
            .canonicalize()
            .map_err(|e| LoadError::Other(e.to_string()))?;
        if !canon.starts_with(&root) {
            return Err(LoadError::Escapes);
        }
        Ok(canon)
    }
}

fn io_err(e: std::io::Error) -> LoadError {
    match e.kind() {
        std::io::ErrorKind::NotFound => LoadError::NotFound,
        _ => LoadError::Other(e.to_string()),
    }
}

impl Loader for FsLoader {
    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        let p = self.resolve(path)?;
        if p.is_dir() {
            return Err(LoadError::Other("is a folder, not a file".into()));
        }
        std::fs::read(p).map_err(io_err)
    }

    fn kind(&self, path: &str) -> Result<EntryKind, LoadError> {
        let p = self.resolve(path)?;
        let md = std::fs::metadata(p).map_err(io_err)?;
        Ok(if md.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::File
        })
    }

    fn dir_digest(&self, path: &str) -> Result<String, LoadError> {
        let root = self.resolve(path)?;
        let mut files = Vec::new();
        walk(&root, &root, &mut files).map_err(io_err)?;
        let mut read = Vec::with_capacity(files.len());
        for rel in files {
            let full = root.join(&rel);
            let bytes = std::fs::read(&full).map_err(io_err)?;
            let mode = if is_executable(&full) {
                FileMode::Executable
            } else {
                FileMode::Regular
            };
            read.push((rel.to_string_lossy().replace('\\', "/"), mode, bytes));
        }
        let entries: Vec<TreeEntry<'_>> = read
            .iter()
            .map(|(path, mode, bytes)| TreeEntry {
                path,
                mode: *mode,
                bytes,
            })
            .collect();
        Ok(folder_digest(&entries))
    }

    fn list_dir(&self, path: &str) -> Result<Vec<String>, LoadError> {
        let dir = if path.is_empty() {
            self.root.clone()
        } else {
            self.resolve(path)?
        };
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map_err(io_err)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        Ok(names)
    }

    fn base_tree(&self, source: &RepoSource<'_>, base: Option<&str>) -> BaseTree {
        let unreadable = |e: LoadError| BaseTree::Unreadable {
            why: match e {
                LoadError::NotFound => "not found".into(),
                LoadError::Escapes => "it leaves the spec's folder".into(),
                LoadError::Other(m) => m,
            },
        };
        match (source, base) {
            (RepoSource::Dir(path), base) => match self.resolve(path) {
                Ok(dir) => base_tree::dir(&dir, base),
                Err(e) => unreadable(e),
            },
            (RepoSource::Bundle(path), Some(base)) => match self.resolve(path) {
                Ok(file) => base_tree::bundle(&file, base),
                Err(e) => unreadable(e),
            },
            (RepoSource::Git(url), Some(base)) => {
                let model = taskc_compiler::model::Source::Git {
                    url: url.to_string(),
                };
                match crate::repo::RepoSource::resolve(&model, &self.root, &self.rewrites) {
                    crate::repo::RepoSource::Git(resolved) => {
                        base_tree::git(self.cache.as_deref(), &resolved, base)
                    }
                    _ => BaseTree::Unreadable {
                        why: "not a git URL".into(),
                    },
                }
            }
            (_, None) => BaseTree::Unreadable {
                why: "no base commit".into(),
            },
        }
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        let path = entry.path();
        if ty.is_dir() {
            // Not part of the tree (`folder_digest` would leave it out): not read either.
            if entry.file_name() == ".git" {
                continue;
            }
            walk(root, &path, out)?;
        } else if ty.is_file() {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskc_compiler::loader::MemLoader;

    /// Files whose order differs between path-component and byte order (`a.txt` < `a/b`
    /// by bytes), nested folders, and `.git` folders at the top and below.
    const TREE: &[(&str, &str)] = &[
        ("ctx/a.txt", "x"),
        ("ctx/a/b", "y"),
        ("ctx/a-b/c.py", "print(1)\n"),
        ("ctx/.gitignore", "target/\n"),
        ("ctx/.git/HEAD", "ref: refs/heads/main\n"),
        ("ctx/sub/.git/config", "[core]\n"),
        ("ctx/sub/keep", ""),
    ];

    fn on_disk(tree: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in tree {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn in_memory(tree: &[(&str, &str)]) -> MemLoader {
        tree.iter()
            .fold(MemLoader::new(), |m, (path, text)| m.with(path, *text))
    }

    #[test]
    fn both_loaders_give_one_digest_for_one_tree_without_its_git_folders() {
        let dir = on_disk(TREE);
        let fs = FsLoader::new(dir.path()).dir_digest("ctx").unwrap();
        let mem = in_memory(TREE).dir_digest("ctx").unwrap();
        assert_eq!(fs, mem);
        // `.git` content is not part of the tree, in either loader.
        let without_git: Vec<(&str, &str)> = TREE
            .iter()
            .copied()
            .filter(|(p, _)| !p.contains("/.git/"))
            .collect();
        assert_eq!(in_memory(&without_git).dir_digest("ctx").unwrap(), mem);
        assert_eq!(
            FsLoader::new(on_disk(&without_git).path())
                .dir_digest("ctx")
                .unwrap(),
            fs
        );
        // Any other byte does count.
        let mut changed = TREE.to_vec();
        changed[0] = ("ctx/a.txt", "z");
        assert_ne!(in_memory(&changed).dir_digest("ctx").unwrap(), mem);
    }

    #[cfg(unix)]
    #[test]
    fn the_executable_bit_enters_the_file_system_digest() {
        use std::os::unix::fs::PermissionsExt;
        let dir = on_disk(TREE);
        let before = FsLoader::new(dir.path()).dir_digest("ctx").unwrap();
        let p = dir.path().join("ctx/a-b/c.py");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_ne!(FsLoader::new(dir.path()).dir_digest("ctx").unwrap(), before);
    }
}
