//! The top level: exactly one `task` block, its fields, and assembling the checked [`Task`].

use sha2::{Digest, Sha256};

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::model::{Prompt, Role, Task, TaskKind, VerifyStrategy};
use crate::span::Span;
use crate::syntax::ast::{Document, Statement, Value};

use super::fields::{self, header_span, many, once, required};
use super::repo::RepoDraft;
use super::{allow, base, env, graph, leak, relax, repo, service, suggest, Cx};
use crate::service::ServiceScope;

const TASK_FIELDS: &[fields::Field] = &[
    once("title"),
    required("kind"),
    once("ecosystem"),
    once("languages"),
    once("links"),
    required("prompt"),
    required("verify"),
    required("env"),
    many("repo"),
    many("context"),
    many("relax"),
    many("allow"),
    many("service"),
];

/// Check a whole document; `bytes` are the spec's bytes (bundle digests need none of them,
/// but the id of a spec is its path, so only `spec_path` is kept).
pub(crate) fn check_document(
    cx: &mut Cx<'_>,
    doc: &Document,
    spec_path: &str,
    _bytes: &[u8],
) -> Option<Task> {
    let mut tasks: Vec<&Statement> = Vec::new();
    for stmt in &doc.statements {
        if stmt.name.name == "task" {
            tasks.push(stmt);
        } else {
            let name = &stmt.name.name;
            cx.emit(
                Diagnostic::new(
                    Code::UnknownField,
                    format!("unknown top-level statement `{name}`"),
                    cx.label(stmt.name.span, "expected `task`"),
                )
                .with_help(format!(
                    "{}a spec holds one `task \"<id>\" {{ … }}` block; every other statement goes inside it",
                    suggest::did_you_mean(name, ["task"])
                )),
            );
        }
    }
    match tasks.as_slice() {
        [] => {
            if !cx.syntax_errors {
                cx.emit(
                    Diagnostic::new(
                        Code::TaskCount,
                        "the spec holds no `task` block",
                        cx.label(Span::at(0), "expected `task \"<id>\" { … }`"),
                    )
                    .with_help("write one `task \"<id>\" { … }` block; see docs/language.md for an example"),
                );
            }
            None
        }
        [first, rest @ ..] => {
            for extra in rest {
                cx.emit(
                    Diagnostic::new(
                        Code::TaskCount,
                        "a spec holds exactly one `task` block, this is another",
                        cx.label(extra.name.span, "second task"),
                    )
                    .with_label(cx.label(first.name.span, "first task"))
                    .with_help("put each task in its own `.task` file"),
                );
            }
            check_task(cx, first, spec_path)
        }
    }
}

/// Whether `id` is a valid task id: `[a-z0-9][a-z0-9._-]*`.
pub(crate) fn valid_task_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

fn task_id(cx: &mut Cx<'_>, stmt: &Statement) -> Option<String> {
    let v = cx.single(stmt, "the task's id as a string")?;
    let (id, span) = match v {
        Value::Str(s) => (s.value.clone(), s.span),
        Value::Ident(i) => (i.name.clone(), i.span),
        other => {
            cx.invalid(
                other.span(),
                format!("the task id must be a string, found {}", other.describe()),
                "expected a string",
                "write `task \"my-task\" { … }`".into(),
            );
            return None;
        }
    };
    if !valid_task_id(&id) {
        let suggestion: String = id
            .to_ascii_lowercase()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        cx.emit(
            Diagnostic::new(
                Code::InvalidName,
                format!("`{id}` is not a valid task id"),
                cx.label(span, "invalid task id"),
            )
            .with_help(format!(
                "a task id is lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit, e.g. \"{}\"",
                suggestion.trim_start_matches(['.', '_', '-'])
            )),
        );
        return None;
    }
    Some(id)
}

fn check_task(cx: &mut Cx<'_>, stmt: &Statement, spec_path: &str) -> Option<Task> {
    let id = task_id(cx, stmt);
    let block = cx.needs_block(stmt)?;
    let header = header_span(stmt);
    let f = fields::read(cx, "`task`", header, &block.statements, TASK_FIELDS);

    for s in f.all("allow") {
        allow::check_allow(cx, s);
    }
    let title = f.one("title").and_then(|s| cx.string(s)).map(|s| s.0);
    let kind = f
        .one("kind")
        .and_then(|s| cx.word(s, TaskKind::WORDS))
        .and_then(|(w, _)| w.parse::<TaskKind>().ok());
    let ecosystem = f.one("ecosystem").and_then(|s| cx.string(s)).map(|s| s.0);
    let languages = f.one("languages").map(|s| cx.string_list(s));
    let links = f.one("links").map(|s| cx.string_list(s));
    let prompt = f.one("prompt").and_then(|s| prompt(cx, s));
    let verify = f
        .one("verify")
        .and_then(|s| cx.word(s, VerifyStrategy::WORDS))
        .and_then(|(w, span)| Some((w.parse::<VerifyStrategy>().ok()?, span)));
    let env = f.one("env").and_then(|s| env::check_env(cx, s));

    let mut repo_stmts: Vec<(&Statement, Role)> = f
        .all("repo")
        .into_iter()
        .map(|s| (s, Role::Target))
        .chain(f.all("context").into_iter().map(|s| (s, Role::Context)))
        .collect();
    repo_stmts.sort_by_key(|(s, _)| s.span.start);
    let mut drafts: Vec<RepoDraft> = Vec::new();
    for (s, role) in repo_stmts {
        let Some(d) = repo::check_repo(cx, s, role) else {
            continue;
        };
        if let Some(prev) = drafts.iter().find(|p| p.name == d.name) {
            cx.emit(
                Diagnostic::new(
                    Code::DuplicateName,
                    format!("two repositories are called `{}`", d.name),
                    cx.label(d.name_span, "declared again here"),
                )
                .with_label(cx.label(prev.name_span, "first declared here"))
                .with_help(
                    "repository names are folder names in the task image: rename one of them",
                ),
            );
            continue;
        }
        drafts.push(d);
    }

    graph::check_uses(cx, &drafts);
    if let Some(env) = &env {
        super::contexts::check_repos(cx, env, &drafts);
    }

    let mut task_services = Vec::new();
    let mut services_ok = true;
    for s in f.all("service") {
        match service::check_service(cx, s, ServiceScope::Task) {
            Some(d) => task_services.push(d),
            None => services_ok = false,
        }
    }
    let services = service::resolve(cx, task_services, &mut drafts).filter(|_| services_ok);
    for s in services.iter().flatten() {
        if let crate::service::ServiceImage::Recipe(env) = &s.image {
            super::contexts::check_repos(cx, env, &drafts);
        }
    }

    // Counted from the statements, so a repository with a bad name does not also count as missing.
    let targets = f.all("repo").len();
    if let Some((mode, span)) = verify {
        if targets < 2 {
            let msg = format!(
                "the task has {targets} target repositor{}",
                if targets == 1 { "y" } else { "ies" }
            );
            if mode == VerifyStrategy::Joint {
                cx.emit(
                    Diagnostic::new(
                        Code::TooFewTargets,
                        format!("{msg}; `verify joint` needs at least two"),
                        cx.label(span, "joint verification"),
                    )
                    .with_help("declare a second `repo` with a gold patch and hidden tests, or use `verify per-repo`"),
                );
            } else {
                cx.emit(
                    Diagnostic::new(
                        Code::SingleTarget,
                        format!("{msg}: this is not a cross-repository task"),
                        cx.label(header, "task"),
                    )
                    .with_help("cross-repository benchmarks score two or more targets; declare the other repositories as `repo` blocks"),
                );
            }
        }
    }

    for r in f.all("relax") {
        relax::check_relax(cx, r, &mut drafts);
    }

    let bases = base::check_bases(cx, &drafts);

    if let Some(p) = &prompt {
        leak::check_prompt_leak(cx, p, &drafts, &bases);
    }

    let repos = drafts
        .into_iter()
        .map(|d| d.finish())
        .collect::<Option<Vec<_>>>()?;
    Some(Task {
        id: id?,
        spec_path: spec_path.to_string(),
        title,
        kind: kind?,
        ecosystem,
        languages: languages.unwrap_or(Some(Vec::new()))?,
        links: links.unwrap_or(Some(Vec::new()))?,
        prompt: prompt?.prompt,
        verify: verify?.0,
        env: env?,
        repos,
        services: services?,
    })
}

/// The prompt, and where its text is for labels.
#[derive(Debug, Clone)]
pub(crate) struct PromptDraft {
    pub prompt: Prompt,
    pub source: crate::span::SourceId,
    /// Where the text lies in `source` (the whole file, or the string literal).
    pub span: Span,
    /// Inline: the text in the source may differ from the value (escapes, indentation).
    pub inline: bool,
}

fn prompt(cx: &mut Cx<'_>, stmt: &Statement) -> Option<PromptDraft> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "a string or file(\"…\")")?;
    let draft = match v {
        Value::Str(s) => PromptDraft {
            prompt: Prompt {
                text: s.value.clone(),
                file: None,
            },
            source: cx.spec,
            span: s.span,
            inline: true,
        },
        Value::Call(c) if c.name.name == "file" => {
            let (path, span) = cx.file_call("prompt", v)?;
            let f = cx.read_text(&path, span, "prompt file")?;
            let len = f.text.len();
            PromptDraft {
                prompt: Prompt {
                    text: f.text,
                    file: Some(f.path),
                },
                source: f.source,
                span: Span::new(0, len),
                inline: false,
            }
        }
        other => {
            cx.invalid(
                other.span(),
                format!(
                    "`prompt` expects a string or file(\"…\"), found {}",
                    other.describe()
                ),
                "expected a prompt",
                "write `prompt file(\"prompt.md\")` or a block string `prompt \"\"\" … \"\"\"`"
                    .into(),
            );
            return None;
        }
    };
    if draft.prompt.text.trim().is_empty() {
        cx.invalid(
            v.span(),
            "the prompt is empty".into(),
            "empty prompt",
            "the prompt is what the agent is asked to do: write it".into(),
        );
        return None;
    }
    Some(draft)
}

/// sha256 of `bytes`, lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
