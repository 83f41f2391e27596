//! Content ids: sha256 over a canonical encoding (compact JSON of a tagged value whose maps
//! are all `BTreeMap`s, so key order is fixed), shown short as `<prefix>-<first 16 hex>`.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Lowercase hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Digest of `value` under `tag` (a schema tag such as `taskc.run/1`, so two kinds of
/// values never share a digest).
pub fn canonical_digest<T: Serialize + ?Sized>(tag: &str, value: &T) -> String {
    let mut h = Sha256::new();
    h.update(tag.as_bytes());
    h.update([0]);
    // Serialising plain data (strings, integers, vectors, BTreeMaps) cannot fail; an
    // error would mean a type with a non-string map key, which plans do not have.
    match serde_json::to_vec(value) {
        Ok(bytes) => h.update(&bytes),
        Err(e) => h.update(e.to_string().as_bytes()),
    }
    hex::encode(h.finalize())
}

/// `prefix-<first 16 hex of digest>`, e.g. `img-3f0c…`.
pub fn short_id(prefix: &str, digest: &str) -> String {
    let n = digest.len().min(16);
    format!("{prefix}-{}", &digest[..n])
}

/// A file's mode as a tree digest sees it: only the executable bit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileMode {
    Regular,
    Executable,
}

impl FileMode {
    /// The git spelling, which is what the digest hashes.
    pub fn as_str(self) -> &'static str {
        match self {
            FileMode::Regular => "100644",
            FileMode::Executable => "100755",
        }
    }
}

/// One file of a folder's tree: its path relative to the folder (`/`-separated), its mode
/// and its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeEntry<'a> {
    pub path: &'a str,
    pub mode: FileMode,
    pub bytes: &'a [u8],
}

/// Whether `path` (relative, `/`-separated) is part of a folder's tree: everything but what
/// lies in a `.git` folder (documented in `docs/language.md`, `dir(…)` parameters).
pub fn in_tree(path: &str) -> bool {
    !path.split('/').any(|c| c == ".git")
}

/// The digest of a folder's tree: every entry [`in_tree`], sorted by path bytes, as
/// path, NUL, mode, NUL, length (u64 little-endian), bytes. Lowercase hex sha256. The one
/// digest of a folder, whichever loader read it.
pub fn folder_digest(entries: &[TreeEntry<'_>]) -> String {
    let mut sorted: Vec<&TreeEntry<'_>> = entries.iter().filter(|e| in_tree(e.path)).collect();
    sorted.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let mut h = Sha256::new();
    for e in sorted {
        h.update(e.path.as_bytes());
        h.update([0]);
        h.update(e.mode.as_str().as_bytes());
        h.update([0]);
        h.update((e.bytes.len() as u64).to_le_bytes());
        h.update(e.bytes);
    }
    hex::encode(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(path: &'a str, mode: FileMode, bytes: &'a [u8]) -> TreeEntry<'a> {
        TreeEntry { path, mode, bytes }
    }

    #[test]
    fn folder_digests_ignore_order_and_git_folders_but_not_modes_paths_or_bytes() {
        use FileMode::{Executable, Regular};
        let base = folder_digest(&[entry("a.txt", Regular, b"x"), entry("a/b", Regular, b"y")]);
        let same = [
            vec![entry("a/b", Regular, b"y"), entry("a.txt", Regular, b"x")],
            vec![
                entry("a/b", Regular, b"y"),
                entry(".git/HEAD", Regular, b"ref"),
                entry("a.txt", Regular, b"x"),
                entry("sub/.git/config", Regular, b"c"),
            ],
        ];
        for tree in same {
            assert_eq!(base, folder_digest(&tree), "{tree:?}");
        }
        let other = [
            vec![
                entry("a.txt", Executable, b"x"),
                entry("a/b", Regular, b"y"),
            ],
            vec![entry("a.txt", Regular, b"xy"), entry("a/b", Regular, b"")],
            vec![entry("a.txt", Regular, b"x"), entry("a/c", Regular, b"y")],
            // `.gitignore` is an ordinary file.
            vec![
                entry("a.txt", Regular, b"x"),
                entry("a/b", Regular, b"y"),
                entry(".gitignore", Regular, b""),
            ],
        ];
        for tree in other {
            assert_ne!(base, folder_digest(&tree), "{tree:?}");
        }
        assert_eq!(folder_digest(&[]), sha256_hex(b""));
    }

    #[test]
    fn digests_are_tagged_and_short_ids_are_16_hex() {
        let a = canonical_digest("a/1", &vec!["x"]);
        let b = canonical_digest("b/1", &vec!["x"]);
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert_eq!(short_id("run", &a).len(), 4 + 16);
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
