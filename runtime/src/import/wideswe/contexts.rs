//! The build contexts of WideSWE's image recipes as named build contexts of the spec.
//!
//! WideSWE builds a deps image (`benchmark/images/deps/<name>/Dockerfile`) with the case's
//! workspace as its build context — the repositories checked out at their base commits under
//! their `local_path` (`repos/<owner>/<name>`) — and the repository's path as a build
//! argument (`--build-arg ECOSYNC_REPO_PATH=repos/…`), or with the repository's own folder
//! as the context (`ECOSYNC_REPO_PATH=.`); its `COPY ${ECOSYNC_REPO_PATH}/go.mod ./go.mod`
//! takes the repository's manifest and lock files at base. Each such `COPY` is rewritten to
//! read a named context that is that repository at its base commit
//! (`COPY --from=repo-<name> go.mod ./go.mod`, `contexts { repo-<name> repo(<name>) }`), so
//! the deps stage builds as WideSWE builds it. Which repository: the one whose `local_path`
//! the source starts with; else (the path is `.` or a build argument the importer has no
//! value for) the repository named by the `ECOSYNC_REPO` build argument, else the profile's
//! own repository (a W1108 note says so). A source no repository explains stays as it was.

use super::case::Case;
use super::graph::Graph;

/// A named context the rewritten recipes read: its name and the repository (WideSWE name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoContext {
    pub name: String,
    pub repo: String,
}

/// What routing the chain's `COPY` lines did.
#[derive(Debug, Default)]
pub struct Routed {
    /// The contexts the chain now reads, in order of first use.
    pub contexts: Vec<RepoContext>,
    /// Copies routed to the profile's repository by assumption: (recipe, source, repo).
    pub assumed: Vec<(String, String, String)>,
}

/// The context name of repository `repo` (WideSWE name).
fn context_name(repo: &str) -> String {
    format!("repo-{}", crate::import::names::repo_name(repo))
}

/// `ARG K=V` defaults of `text`.
fn arg_defaults(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if !words.first().is_some_and(|w| w.eq_ignore_ascii_case("ARG")) {
            continue;
        }
        if let Some((k, v)) = words.get(1).and_then(|a| a.split_once('=')) {
            out.push((k.to_string(), v.trim_matches('"').to_string()));
        }
    }
    out
}

/// `source` with the `ARG` values substituted; `None` when it reads an argument without one.
fn substitute(source: &str, args: &[(String, String)]) -> (String, bool) {
    let mut s = source.to_string();
    for (k, v) in args {
        s = s
            .replace(&format!("${{{k}}}"), v)
            .replace(&format!("${k}"), v);
    }
    let unresolved = s.contains('$');
    (s, unresolved)
}

/// `path` without a leading `${VAR}`/`$VAR` (an argument without a value), `./` or `/`.
fn strip_unresolved(path: &str) -> String {
    let mut p = path.to_string();
    while let Some(start) = p.find('$') {
        let rest = &p[start + 1..];
        let len = if let Some(inner) = rest.strip_prefix('{') {
            inner.find('}').map_or(rest.len(), |k| k + 2)
        } else {
            rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len())
        };
        p.replace_range(start..start + 1 + len, "");
    }
    let mut p = p.as_str();
    loop {
        if let Some(r) = p.strip_prefix("./") {
            p = r;
        } else if let Some(r) = p.strip_prefix('/') {
            p = r;
        } else {
            break;
        }
    }
    if p.is_empty() || p == "." {
        ".".to_string()
    } else {
        p.to_string()
    }
}

/// The repository `ECOSYNC_REPO` names (`owner/name`, or the case's own name), if any.
fn named_repo(case: &Case, args: &[(String, String)]) -> Option<String> {
    let (_, v) = args.iter().find(|(k, _)| k == "ECOSYNC_REPO")?;
    case.repos
        .iter()
        .find(|r| {
            r.name == *v
                || r.url.trim_end_matches(".git").ends_with(&format!("/{v}"))
                || r.local_path.ends_with(&format!("/{v}"))
        })
        .map(|r| r.name.clone())
}

/// Rewrite the `COPY` lines of `graph`'s deps recipes that read a repository from the
/// build context to read its named context instead; `profile_repo` is the repository of the
/// profile whose image the chain builds.
pub fn route(graph: &mut Graph, case: &Case, profile_repo: Option<&str>) -> Routed {
    let mut routed = Routed::default();
    for st in &mut graph.stages {
        // Only the recipes WideSWE builds from the workspace (deps); a base recipe's build
        // context is its own folder.
        if !st.recipe.contains("/deps/") {
            continue;
        }
        st.text = route_text(&st.text, &st.recipe, case, profile_repo, true, &mut routed);
        st.copies = super::graph::context_copies(&st.text);
    }
    routed
}

/// [`route`] for the case's own Dockerfile `text` (`label`, as `run_profile.sh` builds it
/// with the workspace as its context): only a source under a repository's `local_path` or
/// reading a build argument it has no value for (`${ECOSYNC_REPO_PATH}/…`) is a
/// repository's; a plain relative source may be a file of the case's own folder.
pub fn route_dockerfile(
    text: &str,
    label: &str,
    case: &Case,
    profile_repo: Option<&str>,
) -> (String, Routed) {
    let mut routed = Routed::default();
    let out = route_text(text, label, case, profile_repo, false, &mut routed);
    (out, routed)
}

/// `text` with each `COPY` whose sources all come from one repository reading its named
/// context; `relative`: whether a `.`-relative or absolute source is the repository's too
/// (a deps recipe's context is the repository's workspace).
fn route_text(
    text: &str,
    label: &str,
    case: &Case,
    profile_repo: Option<&str>,
    relative: bool,
    routed: &mut Routed,
) -> String {
    let args = arg_defaults(text);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match route_line(line, &args, case, profile_repo, relative) {
            Some((rewritten, ctx, assumed)) => {
                if !routed.contexts.iter().any(|c| c.name == ctx.name) {
                    routed.contexts.push(ctx.clone());
                }
                if let Some(sources) = assumed {
                    routed
                        .assumed
                        .push((label.to_string(), sources, ctx.repo.clone()));
                }
                out.push_str(&rewritten);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// One `COPY` line rewritten to read a repository's context, the context, and (when the
/// repository was taken to be the profile's) the sources as written.
fn route_line(
    line: &str,
    args: &[(String, String)],
    case: &Case,
    profile_repo: Option<&str>,
    relative: bool,
) -> Option<(String, RepoContext, Option<String>)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let is_copy = words
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("COPY"));
    if !is_copy || words.iter().any(|w| w.starts_with("--from=")) || words.len() < 3 {
        return None;
    }
    let (flags, rest): (Vec<&str>, Vec<&str>) =
        words[1..].iter().partition(|w| w.starts_with("--"));
    let (dest, sources) = rest.split_last()?;
    // Every source of the line must come from one repository.
    let mut repo: Option<String> = None;
    let mut paths = Vec::new();
    let mut assumed = false;
    for src in sources {
        let (s, unresolved) = substitute(src, args);
        let by_path = case.repos.iter().find_map(|r| {
            let lp = r.local_path.trim_end_matches('/');
            s.strip_prefix(&format!("{lp}/"))
                .map(|rest| (r.name.clone(), rest.to_string()))
        });
        let (r, p) = match by_path {
            Some(found) => found,
            None => {
                let outside = unresolved
                    || (relative && (s.starts_with("./") || s == "." || s.starts_with('/')));
                if !outside {
                    return None;
                }
                let r = match named_repo(case, args) {
                    Some(r) => r,
                    None => {
                        assumed = true;
                        profile_repo?.to_string()
                    }
                };
                (r, strip_unresolved(&s))
            }
        };
        if repo.as_ref().is_some_and(|x| *x != r) {
            return None;
        }
        repo = Some(r);
        paths.push(p);
    }
    let repo = repo?;
    let ctx = RepoContext {
        name: context_name(&repo),
        repo,
    };
    let mut w: Vec<String> = vec![words[0].to_string(), format!("--from={}", ctx.name)];
    w.extend(flags.iter().map(|f| f.to_string()));
    w.extend(paths);
    w.push(dest.to_string());
    let assumed = assumed.then(|| sources.join(" "));
    Some((w.join(" ") + "\n", ctx, assumed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unresolved_arguments_and_leading_dots_are_left_out() {
        assert_eq!(strip_unresolved("${ECOSYNC_REPO_PATH}/go.mod"), "go.mod");
        assert_eq!(strip_unresolved("$P/a/b"), "a/b");
        assert_eq!(strip_unresolved("./package.json"), "package.json");
        assert_eq!(strip_unresolved("${P}"), ".");
    }
}
