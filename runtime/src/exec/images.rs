//! The plan's two images as backend builds: the environment image (the recipe's rendered
//! Dockerfile, or its local variant) and the task image (every repository materialised at
//! base under `/work/<name>`, then the setup commands). Both Dockerfiles are lowered by the
//! compiler and hashed into their image ids; this module only gathers their build contexts.
//! Neither holds a gold patch or a hidden test: those are uploaded into runs only.

use std::collections::BTreeMap;
use std::path::Path;

use taskc_compiler::plan::{
    service_image_tag, BuildContext, ContextTree, EnvImage, Plan, CONTEXT_TREE,
};

use super::script::sh_quote;
use crate::backend::{ContextFile, ImageBuild, IMAGE_LABEL};
use crate::repo::Materialized;

/// The environment image build of `plan`.
pub fn env_build(plan: &Plan, base_image: &str) -> ImageBuild {
    let env = &plan.images.environment;
    let mut labels = BTreeMap::new();
    labels.insert(IMAGE_LABEL.to_string(), env.id.clone());
    labels.insert("taskc.recipe".to_string(), env.recipe.clone());
    labels.insert("taskc.base".to_string(), base_image.to_string());
    ImageBuild {
        tag: env.tag(),
        dockerfile: env.dockerfile.clone(),
        context: Vec::new(),
        labels,
        local_setup: env.local.setup.clone(),
        local_requires: env.local.requires.clone(),
    }
}

/// The files of the environment image's build context (a `dir("…")` recipe parameter),
/// read from `spec_dir` and checked against the digest the plan was lowered with: a context
/// that changed since is an error, never a silently different image. The digest is taken
/// over the very files sent (`folder_digest`, as the checker's loader takes it), so what is
/// checked is what is built.
pub fn env_context(plan: &Plan, spec_dir: &Path) -> std::io::Result<Vec<ContextFile>> {
    image_context(&plan.images.environment, spec_dir)
}

/// The builds of the plan's service images (`images.services`), contexts read and checked
/// as [`env_context`] does, tagged `taskc/service:<id>`.
pub fn service_builds(plan: &Plan, spec_dir: &Path) -> std::io::Result<Vec<ImageBuild>> {
    let mut out = Vec::new();
    for (id, img) in &plan.images.services {
        let mut labels = BTreeMap::new();
        labels.insert(IMAGE_LABEL.to_string(), id.clone());
        labels.insert("taskc.recipe".to_string(), img.recipe.clone());
        labels.insert("taskc.base".to_string(), img.base_image.clone());
        out.push(ImageBuild {
            tag: service_image_tag(id),
            dockerfile: img.dockerfile.clone(),
            context: image_context(img, spec_dir)?,
            labels,
            local_setup: img.local.setup.clone(),
            local_requires: img.local.requires.clone(),
        });
    }
    Ok(out)
}

fn image_context(image: &EnvImage, spec_dir: &Path) -> std::io::Result<Vec<ContextFile>> {
    context_files(image.context.as_ref(), spec_dir)
}

/// The builds of the plan's image nodes (`images.nodes`), each tagged `taskc/node:<id>`,
/// in dependency order: every node after the nodes it needs (its parent, those it copies
/// from). A node that reads the build context gets it, checked as [`env_context`] does.
///
/// A context node (`ImageNode::tree`: a named build context) gets its tree under `tree/`:
/// a folder beside the spec, checked as [`env_context`] does, or a repository as
/// materialised at base in `repos` (its work tree; the synthetic commit's `.git` left out).
pub fn node_builds(
    plan: &Plan,
    spec_dir: &Path,
    repos: &BTreeMap<String, Materialized>,
) -> std::io::Result<Vec<ImageBuild>> {
    let nodes = &plan.images.nodes;
    for node in nodes.values() {
        if let Some(missing) = node.needs().find(|n| !nodes.contains_key(*n)) {
            return Err(std::io::Error::other(format!(
                "image node `{}` needs `{missing}`, which the plan does not hold",
                node.id
            )));
        }
    }
    let mut out = Vec::new();
    for node in taskc_compiler::plan::build_order(nodes) {
        let mut labels = BTreeMap::new();
        labels.insert(IMAGE_LABEL.to_string(), node.id.clone());
        labels.insert("taskc.stage".to_string(), node.stage.clone());
        let context = match &node.tree {
            None => context_files(node.context.as_ref(), spec_dir)?,
            Some(tree) => tree_files(tree, spec_dir, repos)?,
        };
        out.push(ImageBuild {
            tag: node.tag(),
            dockerfile: node.dockerfile.clone(),
            context,
            labels,
            local_setup: Vec::new(),
            local_requires: Vec::new(),
        });
    }
    Ok(out)
}

/// The files of a context node's tree, under [`CONTEXT_TREE`]`/`.
fn tree_files(
    tree: &ContextTree,
    spec_dir: &Path,
    repos: &BTreeMap<String, Materialized>,
) -> std::io::Result<Vec<ContextFile>> {
    let mut files = match tree {
        ContextTree::Dir { path, digest } => {
            let ctx = BuildContext {
                path: path.clone(),
                digest: digest.clone(),
            };
            let mut files = context_files(Some(&ctx), spec_dir)?;
            // As a `dir` source is materialised: a fixed time after 1980, never the epoch.
            for f in &mut files {
                f.mtime = crate::repo::DIR_MTIME;
            }
            files
        }
        ContextTree::Repo { name, .. } => {
            let Some(m) = repos.get(name) else {
                return Err(std::io::Error::other(format!(
                    "repository `{name}`, a named build context, was not materialised"
                )));
            };
            let mut files = Vec::new();
            collect(&m.path, &m.path, "", m.mtime, &mut files)?;
            // The synthetic commit is taskc's, not the repository's: a repository context is
            // its work tree at base.
            files.retain(|f| f.path != ".git" && !f.path.starts_with(".git/"));
            files
        }
    };
    for f in &mut files {
        f.path = format!("{CONTEXT_TREE}/{}", f.path);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

fn context_files(ctx: Option<&BuildContext>, spec_dir: &Path) -> std::io::Result<Vec<ContextFile>> {
    use taskc_compiler::loader::Loader;
    use taskc_compiler::plan::digest::{folder_digest, in_tree, FileMode, TreeEntry};
    let Some(ctx) = ctx else {
        return Ok(Vec::new());
    };
    // Refuses a context that leaves the spec's folder (through a symbolic link).
    crate::fs_loader::FsLoader::new(spec_dir)
        .kind(&ctx.path)
        .map_err(|e| {
            std::io::Error::other(format!(
                "the build context `{}` cannot be read: {e:?}",
                ctx.path
            ))
        })?;
    let root = spec_dir.join(&ctx.path);
    let mut files = Vec::new();
    // A fixed modification time: the image depends on the bytes only.
    collect(&root, &root, "", 0, &mut files)?;
    // The digest leaves `.git` folders out; so does the context.
    files.retain(|f| in_tree(&f.path));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let entries: Vec<TreeEntry<'_>> = files
        .iter()
        .map(|f| TreeEntry {
            path: &f.path,
            mode: if f.mode & 0o111 != 0 {
                FileMode::Executable
            } else {
                FileMode::Regular
            },
            bytes: &f.bytes,
        })
        .collect();
    let now = folder_digest(&entries);
    if now != ctx.digest {
        return Err(std::io::Error::other(format!(
            "the build context `{}` changed since the plan was made (tree {} now, {} in the plan); re-run to lower the spec again",
            ctx.path,
            &now[..12.min(now.len())],
            &ctx.digest[..12.min(ctx.digest.len())]
        )));
    }
    Ok(files)
}

/// The task image build of `plan`, from repositories already materialised (one synthetic
/// commit each) in the given folders. Every file keeps its repository's fixed modification
/// time (the base commit's date, see `repo::mtime`).
pub fn task_build(
    plan: &Plan,
    repos: &BTreeMap<String, Materialized>,
) -> std::io::Result<ImageBuild> {
    let img = &plan.images.task;
    let mut context = Vec::new();
    for r in &img.repos {
        let Some(m) = repos.get(&r.name) else {
            return Err(std::io::Error::other(format!(
                "repository `{}` was not materialised",
                r.name
            )));
        };
        let prefix = format!("work/{}", r.name);
        collect(&m.path, &m.path, &prefix, m.mtime, &mut context)?;
    }
    context.sort_by(|a, b| a.path.cmp(&b.path));
    // The local backend runs the setup commands itself, in the run's copy of `work/`.
    let local_setup = img
        .repos
        .iter()
        .flat_map(|r| {
            r.setup
                .iter()
                .map(|cmd| format!("cd work/{} && {}", sh_quote(&r.name), cmd))
        })
        .collect();
    let mut labels = BTreeMap::new();
    labels.insert(IMAGE_LABEL.to_string(), img.id.clone());
    labels.insert("taskc.task".to_string(), plan.task.id.clone());
    Ok(ImageBuild {
        tag: img.tag(),
        dockerfile: img.dockerfile.clone(),
        context,
        labels,
        local_setup,
        local_requires: plan.images.environment.local.requires.clone(),
    })
}

fn collect(
    root: &Path,
    dir: &Path,
    prefix: &str,
    mtime: i64,
    out: &mut Vec<ContextFile>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let ty = entry.file_type()?;
        let path = entry.path();
        if ty.is_dir() {
            collect(root, &path, prefix, mtime, out)?;
        } else if ty.is_file() {
            let rel = path
                .strip_prefix(root)
                .map_err(std::io::Error::other)?
                .to_string_lossy()
                .replace('\\', "/");
            let mode = file_mode(&entry.metadata()?);
            out.push(ContextFile {
                path: if prefix.is_empty() {
                    rel
                } else {
                    format!("{prefix}/{rel}")
                },
                bytes: std::fs::read(&path)?,
                mode,
                mtime,
            });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn file_mode(md: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    if md.permissions().mode() & 0o111 != 0 {
        0o755
    } else {
        0o644
    }
}

#[cfg(not(unix))]
fn file_mode(_: &std::fs::Metadata) -> u32 {
    0o644
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskc_compiler::check::check_spec;
    use taskc_compiler::lower::{lower_verify, LowerOptions};

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }

    #[test]
    fn the_build_context_sent_is_the_one_checked_and_a_changed_one_is_refused() {
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/dockerfile-env");
        let dir = tempfile::tempdir().unwrap();
        copy(&fixture, dir.path());
        let loader = crate::fs_loader::FsLoader::new(dir.path());
        let spec = std::fs::read(dir.path().join("dockerfile-env.task")).unwrap();
        let checked = check_spec("dockerfile-env.task", &spec, &loader);
        let task = checked.task.expect("the fixture checks");
        let plan = lower_verify(&task, &LowerOptions::default()).unwrap();
        let files = env_context(&plan, dir.path()).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["Dockerfile", "files/expected"]);
        // A `.git` folder is not part of the context, sent or hashed.
        std::fs::create_dir_all(dir.path().join("env/.git")).unwrap();
        std::fs::write(dir.path().join("env/.git/HEAD"), "ref").unwrap();
        assert_eq!(env_context(&plan, dir.path()).unwrap(), files);
        // Any other change is refused until the spec is lowered again.
        std::fs::write(dir.path().join("env/files/expected"), "changed\n").unwrap();
        let err = env_context(&plan, dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("changed since the plan was made"),
            "{err}"
        );
    }
}
