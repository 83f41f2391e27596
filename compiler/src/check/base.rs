//! Checks against each repository's tree at base, where the caller's [`Loader`] can read
//! it (a folder, a bundle, a cached git mirror): the base commit exists (E0305), the gold
//! patch applies at base (E0404–E0406), and so does the hidden test patch. A repository the loader cannot read is skipped with a note (N0306),
//! never failed.
//!
//! [`Loader`]: crate::loader::Loader

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::loader::{BaseTree, RepoSource, Tree};
use crate::model::Source;
use crate::patch::apply::{ApplyProblem, Overlay};
use crate::patch::LineKind;
use crate::span::Span;

use super::patches::{header_line, LoadedPatch};
use super::repo::RepoDraft;
use super::{suggest, Cx};

/// The base trees that could be read, by repository name.
pub(crate) struct BaseTrees {
    pub trees: Vec<(String, Box<dyn Tree>)>,
    /// Repositories whose tree at base could not be read (N0306): what is not found in
    /// `trees` may still be in them.
    pub unreadable: Vec<String>,
}

/// Read every repository's base tree and check its patches against it.
pub(crate) fn check_bases(cx: &mut Cx<'_>, drafts: &[RepoDraft]) -> BaseTrees {
    let mut trees = Vec::new();
    let mut unreadable: Vec<(&RepoDraft, String)> = Vec::new();
    for d in drafts {
        let Some(source) = &d.source else {
            continue;
        };
        // A base that is missing or malformed has its own error already.
        let needs_base = !matches!(source, Source::Dir { .. });
        if d.base.is_none() && (needs_base || d.base_span.is_some()) {
            continue;
        }
        let src = match source {
            Source::Dir { path, .. } => RepoSource::Dir(path),
            Source::Bundle { path, .. } => RepoSource::Bundle(path),
            Source::Git { url } => RepoSource::Git(url),
        };
        match cx.loader.base_tree(&src, d.base.as_deref()) {
            BaseTree::Readable(tree) => {
                check_patches(cx, d, tree.as_ref());
                trees.push((d.name.clone(), tree));
            }
            BaseTree::NoSuchCommit { why } => {
                let at = d.base_span.unwrap_or(d.source_span);
                cx.emit(
                    Diagnostic::new(
                        Code::BaseNotInSource,
                        format!(
                            "the base of `{}` is not in its {} source: {why}",
                            d.name,
                            source.kind()
                        ),
                        cx.label(at, "no such commit in the source"),
                    )
                    .with_label(cx.label(d.source_span, "source"))
                    .with_help("check the commit id (`git rev-parse <ref>` in the repository the patches were written against) and that the source holds it (`git bundle list-heads`, `git branch --contains`)"),
                );
            }
            BaseTree::Unreadable { why } => unreadable.push((d, why)),
        }
    }
    // One note, and only on a spec without errors: a spec with errors is checked again.
    if let Some(((first, why), rest)) = unreadable.split_first() {
        if !cx.diags.has_errors() {
            let names = suggest::list(unreadable.iter().map(|(d, _)| d.name.as_str()));
            let mut d = Diagnostic::new(
                Code::BaseUnreadable,
                format!(
                    "{names} cannot be read at base here, so {} not checked",
                    if rest.is_empty() { "its base commit and patches were" } else { "their base commits and patches were" }
                ),
                cx.label(first.source_span, why.clone()),
            )
            .with_help("`taskc verify` fetches git sources into its cache and applies the patches; later checks read the cached mirror");
            for (r, why) in rest {
                d = d.with_label(cx.label(r.source_span, why.clone()));
            }
            cx.emit(d);
        }
    }
    BaseTrees {
        trees,
        unreadable: unreadable.iter().map(|(d, _)| d.name.clone()).collect(),
    }
}

fn check_patches(cx: &mut Cx<'_>, d: &RepoDraft, tree: &dyn Tree) {
    if let Some(g) = &d.gold {
        let problems = Overlay::new(tree).apply(&g.file.patch);
        report(cx, d, tree, g, "gold patch", &problems);
    }
    // Runs restore every file the hidden tests touch to base before applying them, so
    // they apply at base whatever the gold (or an agent's) patch did.
    // Stacked hidden test patches apply in order, each on top of the ones before.
    if let Some(t) = &d.test {
        let mut overlay = Overlay::new(tree);
        for (i, p) in t.parts.iter().enumerate() {
            let problems = overlay.apply(&p.file.patch);
            let what = if i == 0 {
                "hidden test patch".to_string()
            } else {
                format!("hidden test patch (stacked, number {})", i + 1)
            };
            report(cx, d, tree, p, &what, &problems);
            // Unit tests beside the code: changed only inside `#[cfg(test)]` modules, or
            // the file is restored whole (W0401).
            let alone = t.parts.len() == 1;
            for f in p
                .file
                .patch
                .files
                .iter()
                .filter(|f| alone && crate::inline_tests::candidate(f))
            {
                let base = tree
                    .read(f.path())
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok());
                let why = match base {
                    Some(text) => crate::inline_tests::inline_file(&text, f).err(),
                    None => Some("it cannot be read at base as UTF-8 text".to_string()),
                };
                if let Some(why) = why {
                    cx.lint_inline_tests(&d.name, p, f, &why);
                }
            }
        }
    }
}

fn report(
    cx: &mut Cx<'_>,
    d: &RepoDraft,
    tree: &dyn Tree,
    p: &LoadedPatch,
    what: &str,
    problems: &[ApplyProblem],
) {
    let repo = &d.name;
    let patch = &p.file.path;
    for problem in problems {
        let diag = match problem {
            ApplyProblem::Missing { file, path } => {
                let header = file_header(p, *file);
                let help = match suggest::closest(path, tree.paths().iter().map(String::as_str)) {
                    Some(c) => format!("did you mean `{c}`? the patch's paths are relative to the repository's root; regenerate it with `git diff <base>`"),
                    None => "the patch's paths are relative to the repository's root; regenerate the patch against the base commit with `git diff <base>`".to_string(),
                };
                Diagnostic::new(
                    Code::PatchFileMissing,
                    format!("the {what} `{patch}` changes `{path}`, which does not exist in `{repo}` at base"),
                    Label::new(p.source, header, "no such file"),
                )
                .with_label(cx.label(p.named_at, format!("{what} of `{repo}`")))
                .with_help(help)
            }
            ApplyProblem::Exists { file, path } => Diagnostic::new(
                Code::PatchFileExists,
                format!("the {what} `{patch}` creates `{path}`, which already exists in `{repo}` at base"),
                Label::new(p.source, file_header(p, *file), "created here"),
            )
            .with_label(cx.label(p.named_at, format!("{what} of `{repo}`")))
            .with_help("regenerate the patch against the base commit (`git diff <base>`): a file that exists at base is changed, not created"),
            ApplyProblem::Context {
                file,
                hunk,
                line,
                at,
                found,
            } => {
                let Some(fp) = p.file.patch.files.get(*file) else {
                    continue;
                };
                let Some(h) = fp.hunks.get(*hunk) else {
                    continue;
                };
                let hunk_line = h.lines.get(*line);
                let span = hunk_line.map_or(h.span, |l| l.span);
                let verb = match hunk_line.map(|l| l.kind) {
                    Some(LineKind::Removed) => "removes",
                    _ => "expects",
                };
                let has = match found {
                    Some(t) => format!("`{}` has `{}` there", fp.path(), shorten(t)),
                    None => format!("`{}` ends before it", fp.path()),
                };
                Diagnostic::new(
                    Code::PatchDoesNotApply,
                    format!(
                        "the {what} `{patch}` does not apply to `{repo}` at base: hunk {} of `{}` matches nowhere in the file",
                        hunk + 1,
                        fp.path()
                    ),
                    Label::new(p.source, span, format!("{verb} this at line {at}; {has}")),
                )
                .with_label(cx.label(p.named_at, format!("{what} of `{repo}`")))
                .with_help("regenerate the patch against the base commit (`git diff <base>`): taskc applies patches with exact context, no fuzz, as `git apply` does")
            }
        };
        cx.emit(diag);
    }
}

/// The header line of file patch `file` of `p` (or the patch's start).
fn file_header(p: &LoadedPatch, file: usize) -> Span {
    p.file
        .patch
        .files
        .get(file)
        .map_or(Span::at(0), |f| header_line(&p.file.text, f.span))
}

/// A line of a file for a message, at most 60 characters.
fn shorten(t: &str) -> String {
    let t = t.trim_end();
    if t.chars().count() <= 60 {
        t.to_string()
    } else {
        format!("{}…", t.chars().take(59).collect::<String>())
    }
}
