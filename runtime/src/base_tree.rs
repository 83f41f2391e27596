//! Repository trees at base for `check`, read-only: a folder as it is, or a commit of a
//! git repository (a folder's own `.git`, a bundle unpacked into a temporary repository, a
//! cached mirror). Nothing here fetches: a mirror that is not cached, or lacks the commit,
//! is [`BaseTree::Unreadable`] (the checks are skipped), never an error.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use taskc_compiler::loader::{BaseTree, LoadError, Tree};

use crate::repo::{mirror_path, Git};

/// A folder's files (`.git` folders and symbolic links left out).
pub(crate) struct DirTree {
    root: PathBuf,
    paths: Vec<String>,
}

impl DirTree {
    pub(crate) fn read_folder(root: &Path) -> BaseTree {
        let mut paths = Vec::new();
        if let Err(e) = walk(root, root, &mut paths) {
            return BaseTree::Unreadable {
                why: format!("reading `{}`: {e}", root.display()),
            };
        }
        paths.sort();
        BaseTree::Readable(Box::new(DirTree {
            root: root.to_path_buf(),
            paths,
        }))
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        let path = entry.path();
        if ty.is_dir() {
            if entry.file_name() != ".git" {
                walk(root, &path, out)?;
            }
        } else if ty.is_file() {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    Ok(())
}

impl Tree for DirTree {
    fn paths(&self) -> &[String] {
        &self.paths
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        // Only listed files: a patch's path never reaches the file system unchecked.
        if !listed(&self.paths, path) {
            return Err(LoadError::NotFound);
        }
        std::fs::read(self.root.join(path)).map_err(|e| LoadError::Other(e.to_string()))
    }
}

/// Whether `path` is one of the sorted `paths` a tree lists.
fn listed(paths: &[String], path: &str) -> bool {
    paths.binary_search_by(|p| p.as_str().cmp(path)).is_ok()
}

/// A commit's tree in a git repository.
pub(crate) struct GitTree {
    git: Git,
    base: String,
    paths: Vec<String>,
    /// A temporary repository (an unpacked bundle), removed with the tree.
    _tmp: Option<tempfile::TempDir>,
}

impl GitTree {
    /// The tree of `base` in the repository at `dir`; `missing` says what a missing commit
    /// means (an error for a folder or a bundle, a skip for a mirror that may lack it yet).
    fn open(
        dir: &Path,
        base: &str,
        tmp: Option<tempfile::TempDir>,
        missing: fn(()) -> BaseTree,
    ) -> BaseTree {
        let git = Git::new(dir);
        if !git.has_commit(base) {
            return missing(());
        }
        let out = match git.run(&["ls-tree", "-r", "-z", "--full-tree", base]) {
            Ok(o) => o,
            Err(e) => return BaseTree::Unreadable { why: e.to_string() },
        };
        let mut paths: Vec<String> = out
            .stdout
            .split(|&b| b == 0)
            .filter_map(|entry| {
                let entry = std::str::from_utf8(entry).ok()?;
                let (meta, path) = entry.split_once('\t')?;
                // Blobs only: submodules (`commit`) have no content here.
                meta.split(' ').nth(1).filter(|t| *t == "blob")?;
                Some(path.to_string())
            })
            .collect();
        paths.sort();
        BaseTree::Readable(Box::new(GitTree {
            git,
            base: base.to_string(),
            paths,
            _tmp: tmp,
        }))
    }
}

impl Tree for GitTree {
    fn paths(&self) -> &[String] {
        &self.paths
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, LoadError> {
        if !listed(&self.paths, path) {
            return Err(LoadError::NotFound);
        }
        let spec = format!("{}:{path}", self.base);
        self.git
            .run(&["cat-file", "blob", &spec])
            .map(|o| o.stdout)
            .map_err(|e| LoadError::Other(e.to_string()))
    }

    /// One `git cat-file --batch` for all of them.
    fn read_many(&self, paths: &[&str]) -> Vec<Result<Vec<u8>, LoadError>> {
        if paths.len() < 4 || paths.iter().any(|p| p.contains('\n')) {
            return paths.iter().map(|p| self.read(p)).collect();
        }
        match self.batch(paths) {
            Ok(all) => all,
            Err(e) => paths
                .iter()
                .map(|_| Err(LoadError::Other(e.to_string())))
                .collect(),
        }
    }
}

impl GitTree {
    fn batch(&self, paths: &[&str]) -> std::io::Result<Vec<Result<Vec<u8>, LoadError>>> {
        let mut child = self
            .git
            .command()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut input = String::new();
        for p in paths {
            input.push_str(&format!("{}:{p}\n", self.base));
        }
        let mut stdin = child.stdin.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let stdout = child.stdout.take().ok_or(std::io::ErrorKind::BrokenPipe)?;
        let mut out = BufReader::new(stdout);
        let mut results = Vec::with_capacity(paths.len());
        for _ in paths {
            let mut header = String::new();
            out.read_line(&mut header)?;
            let mut parts = header.split_whitespace();
            let (_, kind, size) = (parts.next(), parts.next(), parts.next());
            match (kind, size.and_then(|s| s.parse::<usize>().ok())) {
                (Some("blob"), Some(size)) => {
                    let mut bytes = vec![0; size];
                    out.read_exact(&mut bytes)?;
                    let mut nl = [0u8; 1];
                    out.read_exact(&mut nl)?;
                    results.push(Ok(bytes));
                }
                (Some(_), Some(size)) => {
                    // Not a blob (a tree, a submodule): skip its content.
                    let mut skip = vec![0; size + 1];
                    out.read_exact(&mut skip)?;
                    results.push(Err(LoadError::NotFound));
                }
                _ => results.push(Err(LoadError::NotFound)),
            }
        }
        let _ = writer.join();
        let _ = child.wait();
        Ok(results)
    }
}

/// A folder source: its own tree, or with a base and a `.git`, that commit (as
/// materialising does).
pub(crate) fn dir(root: &Path, base: Option<&str>) -> BaseTree {
    match base {
        Some(base) if root.join(".git").exists() => {
            GitTree::open(root, base, None, |_| BaseTree::NoSuchCommit {
                why: "the folder's git repository holds no such commit".into(),
            })
        }
        _ => DirTree::read_folder(root),
    }
}

/// A bundle, unpacked into a temporary repository.
pub(crate) fn bundle(path: &Path, base: &str) -> BaseTree {
    let unreadable = |why: String| BaseTree::Unreadable { why };
    let tmp = match tempfile::Builder::new().prefix("taskc-check-").tempdir() {
        Ok(t) => t,
        Err(e) => return unreadable(format!("a temporary folder: {e}")),
    };
    let abs = match path.canonicalize() {
        Ok(p) => p,
        Err(e) => return unreadable(format!("`{}`: {e}", path.display())),
    };
    let git = Git::new(tmp.path());
    let unpacked = git
        .run(&["init", "--quiet", "--bare", "--template="])
        .and_then(|_| {
            git.run(&[
                "fetch",
                "--quiet",
                "--no-tags",
                &abs.to_string_lossy(),
                "+refs/*:refs/taskc/*",
            ])
        });
    if let Err(e) = unpacked {
        return unreadable(format!("the bundle cannot be read: {e}"));
    }
    let dir = tmp.path().to_path_buf();
    GitTree::open(&dir, base, Some(tmp), |_| BaseTree::NoSuchCommit {
        why: "the bundle holds no such commit".into(),
    })
}

/// A git source at `url` (rewritten and resolved as `verify` fetches it): its cached
/// mirror under `cache` when that holds `base`, else, for a local repository (a path or a
/// `file://` URL), that repository itself. A remote that is not cached cannot be read.
pub(crate) fn git(cache: Option<&Path>, url: &str, base: &str) -> BaseTree {
    let mut why = "not in the mirror cache";
    if let Some(cache) = cache {
        let dir = mirror_path(cache, url);
        if dir.join("HEAD").is_file() {
            if Git::new(&dir).has_commit(base) {
                return GitTree::open(&dir, base, None, |_| BaseTree::Unreadable {
                    why: "the cached mirror lost the base commit".into(),
                });
            }
            why = "the cached mirror does not hold the base commit yet";
        }
    }
    let local = url.strip_prefix("file://").unwrap_or(url);
    // `file://…` is local; `host:path` only without a scheme (`file:` is no host).
    let is_remote = if url.contains("://") {
        !url.starts_with("file://")
    } else {
        scp_like(url)
    };
    if is_remote {
        return BaseTree::Unreadable { why: why.into() };
    }
    let dir = Path::new(local);
    if !dir.exists() {
        return BaseTree::Unreadable {
            why: format!("the local repository `{local}` does not exist here"),
        };
    }
    GitTree::open(dir, base, None, |_| BaseTree::NoSuchCommit {
        why: "the local repository holds no such commit".into(),
    })
}

/// `user@host:path` (a colon before the first slash).
fn scp_like(s: &str) -> bool {
    match (s.find(':'), s.find('/')) {
        (Some(colon), Some(slash)) => colon < slash && colon > 1,
        (Some(colon), None) => colon > 1,
        _ => false,
    }
}
