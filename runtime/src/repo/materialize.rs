//! The materialisation steps: content at base into a folder, then one synthetic commit.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::io;
use super::mtime::{base_mtime, set_tree_mtime, DIR_MTIME};
use super::{Git, Materialized, RepoError, RepoSource};

/// The bare mirror cache folder of `url` under `cache`.
pub fn mirror_path(cache: &Path, url: &str) -> PathBuf {
    let digest = hex::encode(Sha256::digest(url.as_bytes()));
    cache.join("git").join(format!("{digest}.git"))
}

/// Materialises `source` at `base` into `dest` (created; must be absent or empty) as one
/// synthetic commit. `cache` holds git mirrors and temporary repositories.
pub fn materialize(
    source: &RepoSource,
    base: Option<&str>,
    dest: &Path,
    cache: &Path,
) -> Result<Materialized, RepoError> {
    if let Some(base) = base {
        if base.len() != 40 || !base.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(RepoError::BadBase {
                base: base.to_string(),
            });
        }
    }
    prepare_dest(dest)?;
    let mtime = match (source, base) {
        (RepoSource::Dir(dir), Some(base)) if dir.join(".git").exists() => {
            let repo = Git::new(dir);
            checkout(&repo, base, dest, cache, source)?;
            base_mtime(&repo, base)?
        }
        (RepoSource::Dir(dir), _) => {
            copy_without_git(dir, dest)?;
            DIR_MTIME
        }
        (RepoSource::Bundle(bundle), base) => {
            let base = require_base(source, base)?;
            let tmp = temp_in(cache)?;
            let repo = Git::new(tmp.path());
            repo.run(&["init", "--quiet", "--bare", "--template="])?;
            let bundle_arg = absolute(bundle)?;
            repo.run(&[
                "fetch",
                "--quiet",
                "--no-tags",
                &bundle_arg.to_string_lossy(),
                "+refs/*:refs/taskc/*",
            ])?;
            checkout(&repo, base, dest, cache, source)?;
            base_mtime(&repo, base)?
        }
        (RepoSource::Git(url), base) => {
            let base = require_base(source, base)?;
            let repo = fetch_base(cache, url, base)?;
            checkout(&repo, base, dest, cache, source)?;
            base_mtime(&repo, base)?
        }
    };
    set_tree_mtime(dest, mtime)?;
    commit(dest, mtime)
}

/// Makes sure the cached mirror of `url` holds `base`, fetching no more than needed, and
/// returns it. Checks only the mirror when it already holds `base` (offline).
pub(crate) fn fetch_base(cache: &Path, url: &str, base: &str) -> Result<Git, RepoError> {
    let mirror = mirror_path(cache, url);
    let repo = ensure_mirror(&mirror, url)?;
    if repo.has_commit(base) {
        return Ok(repo);
    }
    // Keep what is fetched reachable from a ref of its own, so no gc drops it.
    let keep = format!("+{base}:refs/taskc/base/{base}");
    // 1. The base commit alone, shallow (servers that allow fetching by id, e.g. GitHub
    //    and every git >= 2.18 speaking protocol v2); 2. by id with history; 3. branches and
    //    tags only, never `refs/*` (a mirror's unrelated `refs/pull/*` may lack objects);
    //    4. every ref, for a base reachable only from elsewhere.
    let attempts: [&[&str]; 4] = [
        &["fetch", "--quiet", "--no-tags", "--depth=1", url, &keep],
        &["fetch", "--quiet", "--no-tags", url, &keep],
        &[
            "fetch",
            "--quiet",
            "--no-tags",
            url,
            "+refs/heads/*:refs/taskc/heads/*",
            "+refs/tags/*:refs/taskc/tags/*",
        ],
        &[
            "fetch",
            "--quiet",
            "--no-tags",
            url,
            "+refs/*:refs/taskc/all/*",
        ],
    ];
    let mut tried = Vec::new();
    for args in attempts {
        match repo.run(args) {
            Ok(_) if repo.has_commit(base) => return Ok(repo),
            Ok(_) => tried.push(format!("`git {}`: no such commit", args.join(" "))),
            Err(e) => tried.push(e.to_string()),
        }
    }
    Err(RepoError::BaseMissing {
        source_desc: format!("git repository `{url}`"),
        base: base.to_string(),
        help: format!(
            "check the `base` commit id and that `{url}` holds it (`git ls-remote`); a local \
             mirror can be named by `file://` URL or path, or through `[sources] rewrite` in \
             taskc.toml. Tried:\n    {}",
            tried.join("\n    ")
        ),
    })
}

fn require_base<'a>(source: &RepoSource, base: Option<&'a str>) -> Result<&'a str, RepoError> {
    base.ok_or_else(|| RepoError::BaseMissing {
        source_desc: source.describe(),
        base: "(none given)".into(),
        help: "git and bundle sources need `base \"<40-hex commit>\"`".into(),
    })
}

fn prepare_dest(dest: &Path) -> Result<(), RepoError> {
    match fs::read_dir(dest) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(RepoError::DestinationNotEmpty {
                    path: dest.to_path_buf(),
                });
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(dest).map_err(|e| io("create folder", dest, e))
        }
        Err(e) => Err(io("read folder", dest, e)),
    }
}

fn absolute(path: &Path) -> Result<PathBuf, RepoError> {
    fs::canonicalize(path).map_err(|e| io("find", path, e))
}

fn temp_in(cache: &Path) -> Result<tempfile::TempDir, RepoError> {
    let tmp = cache.join("tmp");
    fs::create_dir_all(&tmp).map_err(|e| io("create folder", &tmp, e))?;
    tempfile::Builder::new()
        .prefix("repo-")
        .tempdir_in(&tmp)
        .map_err(|e| io("create a temporary folder in", &tmp, e))
}

/// Opens (creating if needed) the bare mirror of `url`.
fn ensure_mirror(mirror: &Path, url: &str) -> Result<Git, RepoError> {
    let repo = Git::new(mirror);
    if !mirror.join("HEAD").is_file() {
        fs::create_dir_all(mirror).map_err(|e| io("create folder", mirror, e))?;
        repo.run(&["init", "--quiet", "--bare", "--template="])?;
        repo.run(&["remote", "add", "origin", url])?;
    }
    Ok(repo)
}

/// Writes the tree of `base` from `repo` into `dest` through a private index.
fn checkout(
    repo: &Git,
    base: &str,
    dest: &Path,
    cache: &Path,
    source: &RepoSource,
) -> Result<(), RepoError> {
    if !repo.has_commit(base) {
        return Err(RepoError::BaseMissing {
            source_desc: source.describe(),
            base: base.to_string(),
            help: "check the `base` commit id, and that the source contains it \
                   (`git bundle list-heads`, `git ls-remote`)"
                .into(),
        });
    }
    let tmp = temp_in(cache)?;
    let index = tmp.path().join("index");
    let repo_dir = repo_git_dir(repo)?;
    let work = absolute(dest)?;
    let git = Git::new(&work).with_index(&index);
    let git_dir = format!("--git-dir={}", repo_dir.display());
    let work_tree = format!("--work-tree={}", work.display());
    git.run(&[&git_dir, &work_tree, "read-tree", base])?;
    git.run(&[&git_dir, &work_tree, "checkout-index", "--all", "--force"])?;
    Ok(())
}

fn repo_git_dir(repo: &Git) -> Result<PathBuf, RepoError> {
    let dir = repo.read(&["rev-parse", "--absolute-git-dir"])?;
    Ok(PathBuf::from(dir))
}

/// Copies a folder, skipping every `.git` entry, keeping symlinks and permission bits.
fn copy_without_git(from: &Path, to: &Path) -> Result<(), RepoError> {
    let entries = fs::read_dir(from).map_err(|e| io("read folder", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io("read folder", from, e))?;
        if entry.file_name() == ".git" {
            continue;
        }
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| io("read", &src, e))?;
        if kind.is_symlink() {
            let target = fs::read_link(&src).map_err(|e| io("read link", &src, e))?;
            std::os::unix::fs::symlink(target, &dst).map_err(|e| io("create link", &dst, e))?;
        } else if kind.is_dir() {
            fs::create_dir(&dst).map_err(|e| io("create folder", &dst, e))?;
            copy_without_git(&src, &dst)?;
        } else if kind.is_file() {
            fs::copy(&src, &dst).map_err(|e| io("copy", &src, e))?;
        }
    }
    Ok(())
}

/// Turns `dest` into a fresh repository with one commit of everything in it.
fn commit(dest: &Path, mtime: i64) -> Result<Materialized, RepoError> {
    let git = Git::new(dest);
    git.run(&["init", "--quiet", "--template=", "--initial-branch=main"])?;
    git.run(&["add", "--all", "--force", "."])?;
    git.run(&[
        "commit",
        "--quiet",
        "--no-verify",
        "--allow-empty",
        "-m",
        "base",
    ])?;
    let commit = git.read(&["rev-parse", "HEAD"])?;
    Ok(Materialized {
        path: dest.to_path_buf(),
        commit,
        mtime,
    })
}
