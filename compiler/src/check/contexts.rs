//! `contexts { <name> dir("…") | image("…") | repo(<name>) … }`: the named build contexts of
//! an `env dockerfile` / `image dockerfile` (`docs/language.md`, "Named build contexts").
//! Each is typed (`model::ContextSource`); names are unique (E1910) and never a build
//! stage's (E1911); a `--from=` naming neither a stage nor a context is W1910 (the builder
//! would pull it from Docker Hub); a context nothing reads is W1911; a `repo(…)` naming no
//! repository of the task is E0205.

use crate::codes::Code;
use crate::diagnostic::{Diagnostic, Label};
use crate::model::{ContextSource, Environment, NamedContext, ParamValue};
use crate::recipe::ParamType;
use crate::span::{SourceId, Span};
use crate::syntax::ast::{Statement, Value};

use super::repo::RepoDraft;
use super::{suggest, Cx};

const EXAMPLE: &str = "contexts {\n  task_ctx dir(\"environment/task_ctx\")\n  dep_0 image(\"ecosyncbench/deps/x:1\")\n  src repo(api)\n}";

/// The `contexts { … }` parameter `p` of recipe `recipe`, or `None` (reported).
pub(crate) fn read(cx: &mut Cx<'_>, recipe: &str, p: &Statement) -> Option<ParamValue> {
    let pname = p.name.name.as_str();
    if let Some(v) = p.args.first() {
        cx.emit(
            Diagnostic::new(
                Code::InvalidContext,
                format!("`{pname}` of recipe `{recipe}` takes a `{{ … }}` block, not a value"),
                cx.label(v.span(), "a value"),
            )
            .with_help(format!("write one context per line:\n{EXAMPLE}")),
        );
        return None;
    }
    let Some(block) = &p.block else {
        cx.emit(
            Diagnostic::new(
                Code::InvalidContext,
                format!("`{pname}` of recipe `{recipe}` needs a `{{ … }}` block"),
                cx.label(p.name.span, "no block"),
            )
            .with_help(format!("write one context per line:\n{EXAMPLE}")),
        );
        return None;
    };
    let mut ok = true;
    let mut out: Vec<NamedContext> = Vec::new();
    for s in &block.statements {
        let name = s.name.name.as_str();
        if let Some(first) = out.iter().find(|c| c.name.eq_ignore_ascii_case(name)) {
            ok = false;
            cx.emit(
                Diagnostic::new(
                    Code::DuplicateContext,
                    format!("two build contexts are called `{name}`"),
                    cx.label(s.name.span, "declared again here"),
                )
                .with_label(cx.label(first.span, "first declared here"))
                .with_help(
                    "a Dockerfile names each context once (`--from=<name>`; names are case-insensitive, as stage names): rename one",
                ),
            );
            continue;
        }
        if name.eq_ignore_ascii_case("scratch") {
            ok = false;
            cx.emit(
                Diagnostic::new(
                    Code::InvalidContext,
                    "a build context cannot be called `scratch`".to_string(),
                    cx.label(s.name.span, "reserved"),
                )
                .with_help(
                    "`FROM scratch` is the builder's empty image: give the context another name",
                ),
            );
            continue;
        }
        cx.no_block(s);
        let Some(v) = cx.single(s, "dir(\"…\"), image(\"…\") or repo(<name>)") else {
            ok = false;
            continue;
        };
        match source(cx, name, v) {
            Some(source) => out.push(NamedContext {
                name: name.to_string(),
                source,
                span: s.name.span,
            }),
            None => ok = false,
        }
    }
    ok.then_some(ParamValue::Contexts(out))
}

/// One context's source, or `None` (reported).
fn source(cx: &mut Cx<'_>, name: &str, v: &Value) -> Option<ContextSource> {
    let wrong = |cx: &mut Cx<'_>, span: Span, what: String| {
        cx.emit(
            Diagnostic::new(
                Code::InvalidContext,
                format!("build context `{name}` {what}"),
                cx.label(span, "not a build context"),
            )
            .with_help(format!(
                "a context is `{name} dir(\"folder\")` (a folder beside the spec), `{name} image(\"name:tag\")` or `{name} repo(<repository>)`"
            )),
        );
        None
    };
    let Value::Call(c) = v else {
        return wrong(cx, v.span(), format!("is {}", v.describe()));
    };
    match (c.name.name.as_str(), c.args.as_slice()) {
        ("dir", _) => match super::env::file_param(cx, ParamType::Dir, name, v) {
            super::env::Loaded::Value(ParamValue::Dir { path, digest }) => {
                Some(ContextSource::Dir { path, digest })
            }
            _ => None,
        },
        ("image", [Value::Str(s)]) => {
            let bad = s.value.is_empty()
                || s.value
                    .chars()
                    .any(|ch| ch.is_whitespace() || ch.is_control() || ch == '$');
            if bad {
                return wrong(
                    cx,
                    s.span,
                    "names no image (empty, or with spaces, control characters or `$`)".into(),
                );
            }
            Some(ContextSource::Image(s.value.clone()))
        }
        ("repo", [Value::Ident(i)]) => Some(ContextSource::Repo(i.name.clone())),
        ("repo", [Value::Str(s)]) => Some(ContextSource::Repo(s.value.clone())),
        ("image" | "repo", _) => wrong(
            cx,
            c.span,
            format!("`{}(…)` takes one argument", c.name.name),
        ),
        (other, _) => wrong(cx, c.name.span, format!("is `{other}(…)`")),
    }
}

/// E0205 for every `repo(…)` context naming no repository of the task.
pub(crate) fn check_repos(cx: &mut Cx<'_>, env: &Environment, repos: &[RepoDraft]) {
    let names: Vec<&str> = repos.iter().map(|r| r.name.as_str()).collect();
    for c in env.contexts() {
        let ContextSource::Repo(r) = &c.source else {
            continue;
        };
        if names.contains(&r.as_str()) {
            continue;
        }
        cx.emit(
            Diagnostic::new(
                Code::UnknownRepository,
                format!("build context `{}` names `{r}`, which is no repository of the task", c.name),
                cx.label(c.span, "unknown repository"),
            )
            .with_help(format!(
                "{}a `repo(<name>)` context is a `repo` or `context` block of this task at its base commit; the task has {}",
                suggest::did_you_mean(r, names.iter().copied()),
                suggest::list(names.iter().copied())
            )),
        );
    }
}

/// What a Dockerfile line names: a `FROM` image or a `--from=` value, and its byte range.
struct Reference {
    word: String,
    range: std::ops::Range<usize>,
    /// `--from=` (not `FROM`).
    flag: bool,
}

/// The stage names (lowercased) and the references of `dockerfile`.
fn scan(dockerfile: &str) -> (Vec<String>, Vec<Reference>) {
    let mut stages = Vec::new();
    let mut refs = Vec::new();
    let mut pos = 0usize;
    for line in dockerfile.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let words: Vec<(usize, &str)> = line
            .split_whitespace()
            .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
            .collect();
        let Some((_, first)) = words.first() else {
            continue;
        };
        if first.eq_ignore_ascii_case("FROM") {
            let Some(at) = words.iter().skip(1).position(|(_, w)| !w.starts_with("--")) else {
                continue;
            };
            let (off, image) = words[at + 1];
            refs.push(Reference {
                word: image.to_string(),
                range: start + off..start + off + image.len(),
                flag: false,
            });
            if let (Some((_, a)), Some((_, n))) = (words.get(at + 2), words.get(at + 3)) {
                if a.eq_ignore_ascii_case("AS") {
                    stages.push(n.to_ascii_lowercase());
                }
            }
            continue;
        }
        for (off, w) in &words {
            if let Some(v) = w.strip_prefix("--from=") {
                let s = start + off + "--from=".len();
                refs.push(Reference {
                    word: v.to_string(),
                    range: s..s + v.len(),
                    flag: true,
                });
            }
        }
    }
    (stages, refs)
}

/// E1911, W1910 and W1911 for `dockerfile` (read from `source`) and its `contexts`.
pub(crate) fn check_dockerfile(
    cx: &mut Cx<'_>,
    contexts: &[NamedContext],
    dockerfile: &str,
    source: Option<SourceId>,
) {
    let (stages, refs) = scan(dockerfile);
    let in_file = |range: &std::ops::Range<usize>, text: &str| {
        source.map(|s| Label::new(s, Span::new(range.start, range.end), text.to_string()))
    };
    for c in contexts {
        let lower = c.name.to_ascii_lowercase();
        if stages.contains(&lower) {
            let mut d = Diagnostic::new(
                Code::ContextIsStage,
                format!(
                    "build context `{}` has the name of a build stage of the Dockerfile",
                    c.name
                ),
                cx.label(c.span, "context"),
            )
            .with_help(
                "`--from=` and `FROM` would read the stage, never the context: rename the context (or the stage)",
            );
            if let Some(r) = refs
                .iter()
                .find(|r| !r.flag && dockerfile_stage_at(dockerfile, r, &lower))
            {
                if let Some(l) = in_file(&r.range, "the stage of that name starts `FROM` this") {
                    d = d.with_label(l);
                }
            }
            cx.emit(d);
        }
    }
    let names: Vec<String> = contexts
        .iter()
        .map(|c| c.name.to_ascii_lowercase())
        .collect();
    let mut used = vec![false; contexts.len()];
    for r in &refs {
        let lower = r.word.to_ascii_lowercase();
        // A stage wins over a context of its name (E1911), as the builder reads it.
        if stages.contains(&lower) || lower.parse::<usize>().is_ok() {
            continue;
        }
        if let Some(i) = names.iter().position(|n| *n == lower) {
            used[i] = true;
            continue;
        }
        let looks_like_hub = !r.word.contains(['/', ':', '@', '$', '.']);
        if r.flag && looks_like_hub {
            let known: Vec<&str> = contexts
                .iter()
                .map(|c| c.name.as_str())
                .chain(stages.iter().map(String::as_str))
                .collect();
            let label = match in_file(&r.range, "neither a stage nor a context") {
                Some(l) => l,
                None => cx.label(Span::new(0, 0), "in the Dockerfile"),
            };
            cx.emit(
                Diagnostic::new(
                    Code::UnknownFromName,
                    format!(
                        "`--from={}` names neither a build stage nor a named context: the builder reads it as the image `docker.io/library/{}`",
                        r.word, lower
                    ),
                    label,
                )
                .with_help(format!(
                    "{}declare it in `contexts {{ {} dir(\"…\") }}` (or `image(\"…\")`, `repo(<name>)`), or name the image with its tag (`{}:latest`) if an image is meant",
                    suggest::did_you_mean(&r.word, known.iter().copied()),
                    r.word,
                    r.word
                )),
            );
        }
    }
    for (c, used) in contexts.iter().zip(used) {
        if !used {
            cx.emit(
                Diagnostic::new(
                    Code::UnusedContext,
                    format!(
                        "build context `{}` is read by no `COPY --from=` or `FROM` of the Dockerfile",
                        c.name
                    ),
                    cx.label(c.span, "unused"),
                )
                .with_help("remove it, or read it in the Dockerfile (`COPY --from=<name> <path> <dest>`)"),
            );
        }
    }
}

/// Whether the `FROM` reference `r` starts the stage `name`.
fn dockerfile_stage_at(dockerfile: &str, r: &Reference, name: &str) -> bool {
    let line_end = dockerfile[r.range.end..]
        .find('\n')
        .map_or(dockerfile.len(), |k| r.range.end + k);
    let rest: Vec<String> = dockerfile[r.range.end..line_end]
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    rest.len() >= 2 && rest[0] == "as" && rest[1] == name
}
