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

#[cfg(test)]
mod tests {
    use super::*;

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
