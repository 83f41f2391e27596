//! Deterministic tar archives for build contexts and uploads, and reading archives back.

use std::collections::BTreeMap;
use std::io::Read;

/// One file to put in an archive: relative path, bytes, permission bits.
pub(crate) struct TarFile<'a> {
    pub path: &'a str,
    pub bytes: &'a [u8],
    pub mode: u32,
}

/// Builds an uncompressed tar with fixed owner (0:0) and mtime (0), in the given order.
pub(crate) fn build_tar(files: &[TarFile<'_>]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    for file in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(file.bytes.len() as u64);
        header.set_mode(file.mode);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(0);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, file.path, file.bytes)?;
    }
    builder.into_inner()
}

/// Reads the regular files of an archive produced by `GET /containers/{id}/archive?path=P`,
/// keyed by absolute container path. Docker names entries relative to P's parent folder.
pub(crate) fn read_collected(
    requested: &str,
    archive: &[u8],
) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    let parent = match requested.trim_end_matches('/').rfind('/') {
        Some(0) | None => "",
        Some(i) => &requested[..i],
    };
    let mut out = BTreeMap::new();
    let mut reader = tar::Archive::new(archive);
    for entry in reader.entries()? {
        let mut entry = entry?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let rel = entry.path()?.to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes)?;
        out.insert(format!("{parent}/{}", rel.trim_start_matches("./")), bytes);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tar_round_trips_and_is_deterministic() {
        let files = [TarFile {
            path: "b/c.txt",
            bytes: b"hi",
            mode: 0o644,
        }];
        let a = build_tar(&files).unwrap();
        assert_eq!(a, build_tar(&files).unwrap());
        let got = read_collected("/work/b", &a).unwrap();
        assert_eq!(
            got.get("/work/b/c.txt").map(Vec::as_slice),
            Some(&b"hi"[..])
        );
    }

    #[test]
    fn top_level_file_keys_from_root() {
        let files = [TarFile {
            path: "x",
            bytes: b"1",
            mode: 0o600,
        }];
        let got = read_collected("/x", &build_tar(&files).unwrap()).unwrap();
        assert!(got.contains_key("/x"));
    }
}
