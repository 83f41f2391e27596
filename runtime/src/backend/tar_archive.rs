//! Deterministic tar archives for build contexts and uploads, and reading archives back.

use std::collections::BTreeMap;
use std::io::Read;

/// One file to put in an archive: relative path, bytes, permission bits, modification time.
pub(crate) struct TarFile<'a> {
    pub path: &'a str,
    pub bytes: &'a [u8],
    pub mode: u32,
    /// Seconds since the epoch (negative clamps to 0).
    pub mtime: i64,
}

/// Builds an uncompressed tar with fixed owner (0:0), in the given order. Each file's parent
/// folders come first, as entries of their own (mode 0755) with the time of the first file
/// under them, so extracting gives folders a fixed time too, not the time of extraction.
pub(crate) fn build_tar(files: &[TarFile<'_>]) -> std::io::Result<Vec<u8>> {
    let mut builder = tar::Builder::new(Vec::new());
    let mut folders = std::collections::BTreeSet::new();
    for file in files {
        let mtime = u64::try_from(file.mtime).unwrap_or(0);
        let mut parent = String::new();
        let parts: Vec<&str> = file.path.split('/').collect();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            if part.is_empty() {
                continue;
            }
            parent.push_str(part);
            parent.push('/');
            if folders.insert(parent.clone()) {
                let mut header = tar::Header::new_gnu();
                header.set_size(0);
                header.set_mode(0o755);
                header.set_uid(0);
                header.set_gid(0);
                header.set_mtime(mtime);
                header.set_entry_type(tar::EntryType::Directory);
                builder.append_data(&mut header, &parent, std::io::empty())?;
            }
        }
        let mut header = tar::Header::new_gnu();
        header.set_size(file.bytes.len() as u64);
        header.set_mode(file.mode);
        header.set_uid(0);
        header.set_gid(0);
        header.set_mtime(mtime);
        header.set_entry_type(tar::EntryType::Regular);
        builder.append_data(&mut header, file.path, file.bytes)?;
    }
    builder.into_inner()
}

/// Uploads as archive entries at their paths (relative to `/`), dated 2000-01-01 like
/// materialised folders (not 1970, which ZIP-based builds refuse).
pub(crate) fn upload_files(uploads: &[super::Upload]) -> Vec<TarFile<'_>> {
    uploads
        .iter()
        .map(|u| TarFile {
            path: u.path.trim_start_matches('/'),
            bytes: &u.bytes,
            mode: u.mode,
            mtime: crate::repo::DIR_MTIME,
        })
        .collect()
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
            mtime: 946_684_800,
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
    fn files_and_their_folders_carry_the_given_time() {
        let files = [
            TarFile {
                path: "work/r/a/x.py",
                bytes: b"1",
                mode: 0o644,
                mtime: 1_700_000_000,
            },
            TarFile {
                path: "work/r/a/y.py",
                bytes: b"2",
                mode: 0o644,
                mtime: 1_700_000_000,
            },
        ];
        let tar = build_tar(&files).unwrap();
        let mut archive = tar::Archive::new(&tar[..]);
        let entries: Vec<(String, bool, u64)> = archive
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let h = e.header();
                (
                    e.path().unwrap().to_string_lossy().into_owned(),
                    h.entry_type().is_dir(),
                    h.mtime().unwrap(),
                )
            })
            .collect();
        let t = 1_700_000_000;
        assert_eq!(
            entries,
            [
                ("work/".to_string(), true, t),
                ("work/r/".to_string(), true, t),
                ("work/r/a/".to_string(), true, t),
                ("work/r/a/x.py".to_string(), false, t),
                ("work/r/a/y.py".to_string(), false, t),
            ]
        );
    }

    #[test]
    fn top_level_file_keys_from_root() {
        let files = [TarFile {
            path: "x",
            bytes: b"1",
            mode: 0o600,
            mtime: 0,
        }];
        let got = read_collected("/x", &build_tar(&files).unwrap()).unwrap();
        assert!(got.contains_key("/x"));
    }
}
