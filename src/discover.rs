//! Finding the `.task` files named on the command line.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A path the user named that could not be used.
#[derive(Debug)]
pub struct DiscoverError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for DiscoverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", display(&self.path), self.message)
    }
}

/// Every spec under `paths`: a file is taken as is (whatever its extension); a folder is
/// searched recursively for `*.task`, skipping `target/` and hidden folders. Files found in
/// one folder come sorted; duplicates are removed. Errors are collected, not fatal.
pub fn discover(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<DiscoverError>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(md) if md.is_dir() => {
                let mut here = Vec::new();
                let mut visited = HashSet::new();
                walk(path, &mut here, &mut errors, &mut visited);
                here.sort();
                found.extend(here);
            }
            Ok(_) => found.push(path.clone()),
            Err(e) => errors.push(DiscoverError {
                path: path.clone(),
                message: io_message(&e),
            }),
        }
    }
    let mut seen = HashSet::new();
    found.retain(|p| seen.insert(p.clone()));
    (found, errors)
}

/// `visited` holds the canonical folders already searched, so a symbolic link back up the
/// tree does not send the search round in circles.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<DiscoverError>,
    visited: &mut HashSet<PathBuf>,
) {
    if let Ok(canon) = dir.canonicalize() {
        if !visited.insert(canon) {
            return;
        }
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            errors.push(DiscoverError {
                path: dir.to_path_buf(),
                message: format!("cannot read folder: {}", io_message(&e)),
            });
            return;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                errors.push(DiscoverError {
                    path: dir.to_path_buf(),
                    message: format!("cannot read folder: {}", io_message(&e)),
                });
                continue;
            }
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let path = entry.path();
        // `metadata` follows symbolic links, so a linked folder of specs is searched too.
        let Ok(md) = std::fs::metadata(&path) else {
            continue;
        };
        if md.is_dir() {
            if name.starts_with('.') || name == "target" {
                continue;
            }
            walk(&path, out, errors, visited);
        } else if md.is_file() && name.ends_with(".task") && !name.starts_with('.') {
            out.push(path);
        }
    }
}

/// A path as shown to users: `/`-separated, without a leading `./`.
pub fn display(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// An I/O error in words, without Rust's `(os error 2)` suffix.
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or folder".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
