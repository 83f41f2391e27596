//! `repo` and `context` blocks: source, base, gold, setup, uses, and the `test` block.

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::loader::EntryKind;
use crate::model::{
    Expectations, Relaxation, Repo, Role, Source, TestBlock, DEFAULT_TEST_TIMEOUT_SECS,
};
use crate::parser::LogParser;
use crate::span::Span;
use crate::syntax::ast::{Statement, Value};

use super::fields::{self, header_span, many, once, required};
use super::patches::LoadedPatch;
use super::protect;
use super::task::sha256_hex;
use super::{suggest, Cx};

const REPO_FIELDS: &[fields::Field] = &[
    required("source"),
    once("base"),
    once("gold"),
    many("setup"),
    many("uses"),
    once("test"),
    many("protect"),
];

const TEST_FIELDS: &[fields::Field] = &[
    required("patch"),
    required("run"),
    required("parser"),
    once("timeout"),
    once("select"),
    many("expect"),
    many("protect"),
];

const SOURCE_KINDS: &[&str] = &["dir", "git", "bundle"];

/// A repository as read, before the whole task is known to be valid.
#[derive(Debug, Clone)]
pub(crate) struct RepoDraft {
    pub name: String,
    pub name_span: Span,
    pub role: Role,
    pub span: Span,
    pub source: Option<Source>,
    /// The `source` statement (or the block's header when it is missing).
    pub source_span: Span,
    pub base: Option<String>,
    /// The `base` string.
    pub base_span: Option<Span>,
    pub gold: Option<LoadedPatch>,
    pub setup: Vec<String>,
    pub uses: Vec<(String, Span)>,
    pub test: Option<TestDraft>,
    pub relaxations: Vec<Relaxation>,
    /// `protect` globs of the repository block, then of its test block.
    pub protect: Vec<String>,
    /// Every required part was read without error.
    pub complete: bool,
}

/// A `test { … }` block as read.
#[derive(Debug, Clone)]
pub(crate) struct TestDraft {
    /// The hidden tests as applied: the one patch, or the stacked ones as one text.
    pub patch: Option<LoadedPatch>,
    /// The patch files, in the order they are applied (one, unless stacked).
    pub parts: Vec<LoadedPatch>,
    pub run: Option<String>,
    pub parser: Option<LogParser>,
    pub timeout_secs: u64,
    /// The `select "… {ids} …"` template.
    pub select: Option<String>,
    /// (`f2p`/`p2p`, test id, span of the statement).
    pub expects: Vec<(&'static str, String, Span)>,
    /// `protect` globs of the test block.
    pub protect: Vec<String>,
}

impl RepoDraft {
    /// The checked repository, if every part was read.
    pub(crate) fn finish(self) -> Option<Repo> {
        if !self.complete {
            return None;
        }
        let mut protect = self.protect;
        let test = match self.test {
            Some(t) => {
                protect.extend(t.protect);
                let mut expect = Expectations::default();
                for (kind, id, _) in t.expects {
                    if kind == "f2p" {
                        expect.f2p.push(id);
                    } else {
                        expect.p2p.push(id);
                    }
                }
                Some(TestBlock {
                    patch: t.patch?.file,
                    run: t.run?,
                    parser: t.parser?,
                    timeout_secs: t.timeout_secs,
                    expect,
                    select: t.select,
                })
            }
            None => None,
        };
        Some(Repo {
            name: self.name,
            role: self.role,
            source: self.source?,
            base: self.base,
            gold: self.gold.map(|g| g.file),
            setup: self.setup,
            uses: self.uses.into_iter().map(|(n, _)| n).collect(),
            test,
            relaxations: self.relaxations,
            protect,
            span: self.span,
        })
    }
}

/// Check one `repo <name> { … }` or `context <name> { … }`.
pub(crate) fn check_repo(cx: &mut Cx<'_>, stmt: &Statement, role: Role) -> Option<RepoDraft> {
    let keyword = stmt.name.name.as_str();
    let (name, name_span) = repo_name(cx, stmt)?;
    let block = cx.needs_block(stmt)?;
    let owner = format!("{keyword} `{name}`");
    let header = header_span(stmt);
    let f = fields::read(cx, &owner, header, &block.statements, REPO_FIELDS);
    let mut complete = true;

    let source = f.one("source").and_then(|s| source(cx, s));
    let source_span = f.one("source").map(header_span).unwrap_or(header);
    complete &= source.is_some();

    let mut base_span = None;
    let base = match f.one("base") {
        Some(s) => {
            let b = cx.string(s).and_then(|(b, span)| {
                base_span = Some(span);
                base_sha(cx, &b, span)
            });
            complete &= b.is_some();
            b
        }
        None => None,
    };
    if base.is_none() && f.one("base").is_none() {
        if let Some(kind @ ("git" | "bundle")) = source.as_ref().map(Source::kind) {
            complete = false;
            cx.emit(
                Diagnostic::new(
                    Code::MissingBase,
                    format!("{owner} has a {kind} source but no `base` commit"),
                    cx.label(source_span, format!("{kind} source without a base")),
                )
                .with_help("add `base \"<full 40-hex commit>\"` (from `git rev-parse <ref>`): a branch or tag moves, a commit does not"),
            );
        }
    }

    let mut gold = None;
    if let Some(s) = f.one("gold") {
        if role == Role::Context {
            complete = false;
            context_scored(cx, &name, s, "a gold patch");
        } else {
            cx.no_block(s);
            gold = cx
                .single(s, "file(\"….patch\")")
                .and_then(|v| cx.file_call("gold", v))
                .and_then(|(p, span)| cx.load_patch(&p, span, "gold patch"));
            match &gold {
                Some(g) => cx.lint_gold_patch(&name, g),
                None => complete = false,
            }
        }
    }

    let mut setup = Vec::new();
    for s in f.all("setup") {
        match cx.string(s) {
            Some((cmd, _)) => setup.push(cmd),
            None => complete = false,
        }
    }

    let mut uses = Vec::new();
    for s in f.all("uses") {
        cx.no_block(s);
        if s.args.is_empty() {
            cx.invalid(
                s.name.span,
                "`uses` needs one or more repository names".into(),
                "no repository named",
                "write `uses other-repo` (names, not strings)".into(),
            );
        }
        for v in &s.args {
            match v {
                Value::Ident(i) => uses.push((i.name.clone(), i.span)),
                other => {
                    complete = false;
                    cx.invalid(
                        other.span(),
                        format!("`uses` lists repository names, found {}", other.describe()),
                        "expected a repository name",
                        "write the names without quotes: `uses proxy sdk`".into(),
                    );
                }
            }
        }
    }

    let protect = match protect::protect_globs(cx, &f.all("protect")) {
        Some(g) => g,
        None => {
            complete = false;
            Vec::new()
        }
    };

    let mut test = None;
    if let Some(s) = f.one("test") {
        if role == Role::Context {
            complete = false;
            context_scored(cx, &name, s, "hidden tests");
        } else {
            test = test_block(cx, &name, s);
            complete &= test.is_some();
        }
    }

    if role == Role::Target && !cx.syntax_errors {
        let missing: Vec<&str> = [
            ("gold", f.one("gold").is_none()),
            ("test", f.one("test").is_none()),
        ]
        .iter()
        .filter(|(_, m)| *m)
        .map(|(n, _)| *n)
        .collect();
        if !missing.is_empty() {
            complete = false;
            let what = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(" and ");
            cx.emit(
                Diagnostic::new(
                    Code::TargetIncomplete,
                    format!("target repository `{name}` has no {what}"),
                    cx.label(header, "target repository"),
                )
                .with_help("a target is scored: give it `gold file(\"….patch\")` and a `test { … }` block, or declare it as `context` if it is only there to be read"),
            );
        }
    }

    Some(RepoDraft {
        name,
        name_span,
        role,
        span: stmt.span,
        source,
        source_span,
        base,
        base_span,
        gold,
        setup,
        uses,
        test,
        relaxations: Vec::new(),
        protect,
        complete,
    })
}

fn context_scored(cx: &mut Cx<'_>, name: &str, s: &Statement, what: &str) {
    let field = &s.name.name;
    cx.emit(
        Diagnostic::new(
            Code::ContextScored,
            format!("context repository `{name}` has {what}"),
            cx.label(s.name.span, format!("`{field}` in a context repository")),
        )
        .with_help(format!(
            "context repositories are never scored: remove `{field}`, or declare `{name}` with `repo` to make it a target"
        )),
    );
}

/// The repository's name: a name, not a string.
fn repo_name(cx: &mut Cx<'_>, stmt: &Statement) -> Option<(String, Span)> {
    let keyword = &stmt.name.name;
    let v = cx.single(stmt, "the repository's name")?;
    match v {
        Value::Ident(i) => Some((i.name.clone(), i.span)),
        other => {
            let shown = match other {
                Value::Str(s) => format!("the string \"{}\"", s.value),
                o => o.describe().to_string(),
            };
            cx.emit(
                Diagnostic::new(
                    Code::InvalidName,
                    format!("a repository name must be a name, found {shown}"),
                    cx.label(other.span(), "not a name"),
                )
                .with_help(format!(
                    "write `{keyword} my-repo {{ … }}`: letters, digits, `_`, `.` and `-`, starting with a letter or `_`"
                )),
            );
            None
        }
    }
}

/// `dir("…")`, `git("…")` or `bundle("…")`.
fn source(cx: &mut Cx<'_>, stmt: &Statement) -> Option<Source> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "dir(\"…\"), git(\"…\") or bundle(\"…\")")?;
    let Value::Call(call) = v else {
        cx.invalid(
            v.span(),
            format!(
                "`source` expects dir(\"…\"), git(\"…\") or bundle(\"…\"), found {}",
                v.describe()
            ),
            "expected a source",
            "write e.g. `source dir(\"repos/name\")`".into(),
        );
        return None;
    };
    let kind = call.name.name.as_str();
    if !SOURCE_KINDS.contains(&kind) {
        cx.emit(
            Diagnostic::new(
                Code::UnknownKeyword,
                format!("`{kind}` is not a kind of source"),
                cx.label(call.name.span, "unknown source kind"),
            )
            .with_help(format!(
                "{}a source is one of {}",
                suggest::did_you_mean(kind, SOURCE_KINDS.iter().copied()),
                suggest::list(SOURCE_KINDS.iter().copied())
            )),
        );
        return None;
    }
    let [Value::Str(arg)] = call.args.as_slice() else {
        cx.invalid(
            call.span,
            format!("`{kind}(…)` takes one string"),
            "expected one string",
            format!("write `{kind}(\"…\")`"),
        );
        return None;
    };
    match kind {
        "git" => {
            if arg.value.trim().is_empty() {
                cx.invalid(
                    arg.span,
                    "the git URL is empty".into(),
                    "empty URL",
                    "write the repository's clone URL".into(),
                );
                return None;
            }
            Some(Source::Git {
                url: arg.value.clone(),
            })
        }
        "bundle" => {
            let path = cx.checked_path(&arg.value, arg.span, "bundle")?;
            match cx.loader.read(&path) {
                Ok(bytes) => Some(Source::Bundle {
                    digest: sha256_hex(&bytes),
                    path,
                }),
                Err(e) => {
                    cx.load_error(e, &path, arg.span, "bundle");
                    None
                }
            }
        }
        _ => {
            let path = cx.checked_path(&arg.value, arg.span, "source folder")?;
            match cx.loader.kind(&path) {
                Ok(EntryKind::Dir) => match cx.loader.dir_digest(&path) {
                    Ok(digest) => Some(Source::Dir { path, digest }),
                    Err(e) => {
                        cx.load_error(e, &path, arg.span, "source folder");
                        None
                    }
                },
                Ok(EntryKind::File) => {
                    cx.invalid(
                        arg.span,
                        format!("`{path}` is a file, not a folder"),
                        "expected a folder",
                        "`dir(…)` names the repository's folder; a git bundle file is `bundle(\"….bundle\")`".into(),
                    );
                    None
                }
                Err(e) => {
                    cx.load_error(e, &path, arg.span, "source folder");
                    None
                }
            }
        }
    }
}

/// A full 40-hex commit, lowercased.
fn base_sha(cx: &mut Cx<'_>, base: &str, span: Span) -> Option<String> {
    if base.len() == 40 && base.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(base.to_ascii_lowercase());
    }
    let why = if let Some(c) = base.chars().find(|c| !c.is_ascii_hexdigit()) {
        format!("`{c}` is not a hex digit")
    } else {
        format!("it has {} hex digits, not 40", base.len())
    };
    cx.emit(
        Diagnostic::new(
            Code::BaseNotFullSha,
            format!("base `{base}` is not a full commit SHA: {why}"),
            cx.label(span, "not a full 40-hex SHA"),
        )
        .with_help("run `git rev-parse <ref>` in the repository and paste the full 40-character SHA: branches, tags and short SHAs are not reproducible"),
    );
    None
}

fn test_block(cx: &mut Cx<'_>, repo: &str, stmt: &Statement) -> Option<TestDraft> {
    if !stmt.args.is_empty() {
        let span = stmt
            .args
            .iter()
            .fold(stmt.args[0].span(), |a, v| a.to(v.span()));
        cx.invalid(
            span,
            "`test` takes no values".into(),
            "unexpected",
            "write `test { … }`".into(),
        );
    }
    let block = cx.needs_block(stmt)?;
    let owner = format!("the `test` block of `{repo}`");
    let f = fields::read(cx, &owner, stmt.name.span, &block.statements, TEST_FIELDS);
    let mut ok = true;
    let (patch, parts) = match f.one("patch") {
        Some(s) => hidden_patches(cx, repo, s),
        None => (None, Vec::new()),
    };
    let run = f.one("run").and_then(|s| cx.string(s)).map(|r| r.0);
    let parser = f.one("parser").and_then(|s| parser(cx, s));
    let timeout_secs = match f.one("timeout") {
        Some(s) => match timeout(cx, s) {
            Some(t) => t,
            None => {
                ok = false;
                DEFAULT_TEST_TIMEOUT_SECS
            }
        },
        None => DEFAULT_TEST_TIMEOUT_SECS,
    };
    let select = match (f.one("select"), parser) {
        (Some(s), Some(p)) => {
            let t = super::select::template(cx, repo, p, s);
            ok &= t.is_some();
            t
        }
        _ => None,
    };
    let mut expects = Vec::new();
    for s in f.all("expect") {
        match expect(cx, s) {
            Some(e) => expects.push(e),
            None => ok = false,
        }
    }
    let protect = protect::protect_globs(cx, &f.all("protect"));
    ok &= protect.is_some();
    ok.then_some(TestDraft {
        patch,
        parts,
        run,
        parser,
        timeout_secs,
        select,
        expects,
        protect: protect.unwrap_or_default(),
    })
}

/// `patch file("a.patch") file("b.patch") …`: one hidden test patch, or several stacked
/// (applied in order, each on top of the ones before). The stack is checked part by part
/// and becomes one patch text, which runs apply with one `git apply` (which applies
/// several patches of one file in order).
fn hidden_patches(
    cx: &mut Cx<'_>,
    repo: &str,
    s: &Statement,
) -> (Option<LoadedPatch>, Vec<LoadedPatch>) {
    cx.no_block(s);
    if s.args.is_empty() {
        cx.single(s, "file(\"….patch\")");
        return (None, Vec::new());
    }
    let mut parts = Vec::new();
    let mut all_read = true;
    for v in &s.args {
        let loaded = cx
            .file_call("patch", v)
            .and_then(|(p, span)| cx.load_patch(&p, span, "hidden test patch"));
        match loaded {
            Some(p) => {
                cx.lint_test_patch(repo, &p);
                parts.push(p);
            }
            None => all_read = false,
        }
    }
    if !all_read {
        return (None, parts);
    }
    if let [one] = parts.as_slice() {
        return (Some(one.clone()), parts);
    }
    let mut text = String::new();
    for p in &parts {
        text.push_str(&p.file.text);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    let name = parts
        .iter()
        .map(|p| p.file.path.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    let named_at = parts
        .iter()
        .fold(parts[0].named_at, |a, p| a.to(p.named_at));
    let Ok(patch) = crate::patch::parse_patch(&text) else {
        cx.invalid(
            named_at,
            format!("the stacked hidden test patches of `{repo}` do not read as one diff"),
            "stacked patches",
            "end each patch file with its last hunk (no trailing commentary)".into(),
        );
        return (None, parts);
    };
    let source = cx.sources.add(
        format!("{} (stacked)", cx.display_path(&name)),
        text.clone(),
    );
    let combined = LoadedPatch {
        file: crate::model::PatchFile {
            path: name,
            digest: super::task::sha256_hex(text.as_bytes()),
            text,
            patch,
        },
        source,
        named_at,
    };
    (Some(combined), parts)
}

fn parser(cx: &mut Cx<'_>, stmt: &Statement) -> Option<LogParser> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "a log parser name")?;
    let (name, quoted) = match v {
        Value::Ident(i) => (i.name.as_str(), false),
        Value::Str(s) => (s.value.as_str(), true),
        other => {
            cx.invalid(
                other.span(),
                format!("`parser` expects a parser name, found {}", other.describe()),
                "expected a name",
                "write e.g. `parser pytest`".into(),
            );
            return None;
        }
    };
    let known = LogParser::WORDS;
    let Ok(parser) = name.parse::<LogParser>() else {
        cx.emit(
            Diagnostic::new(
                Code::UnknownParser,
                format!("`{name}` is not a known log parser"),
                cx.label(v.span(), "unknown parser"),
            )
            .with_help(format!(
                "{}known parsers: {}",
                suggest::did_you_mean(name, known.iter().copied()),
                suggest::list(known.iter().copied())
            )),
        );
        return None;
    };
    if quoted {
        cx.invalid(
            v.span(),
            format!("`parser` expects a name, found the string \"{name}\""),
            "remove the quotes",
            format!("write `parser {name}`"),
        );
        return None;
    }
    Some(parser)
}

/// Integer seconds, or `"90s"`, `"10m"`, `"1h"`; never 0.
fn timeout(cx: &mut Cx<'_>, stmt: &Statement) -> Option<u64> {
    cx.no_block(stmt);
    let v = cx.single(stmt, "seconds, or a string like \"10m\"")?;
    let secs = match v {
        Value::Int(i) => Some(i.value),
        Value::Str(s) => parse_duration(&s.value),
        _ => None,
    };
    match secs {
        Some(s) if s > 0 => Some(s),
        _ => {
            cx.invalid(
                v.span(),
                format!(
                    "`timeout` must be a positive duration, found `{}`",
                    cx.spec_text(v.span())
                ),
                "invalid timeout",
                "write seconds (`timeout 600`) or a string with a unit: \"90s\", \"10m\", \"1h\""
                    .into(),
            );
            None
        }
    }
}

/// `"90s"`, `"10m"`, `"1h"`, or plain digits, in seconds.
pub(crate) fn parse_duration(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last()? {
        (i, 's') => (&s[..i], 1),
        (i, 'm') => (&s[..i], 60),
        (i, 'h') => (&s[..i], 3600),
        _ => (s, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

fn expect(cx: &mut Cx<'_>, stmt: &Statement) -> Option<(&'static str, String, Span)> {
    cx.no_block(stmt);
    match stmt.args.as_slice() {
        [kind, Value::Str(id)] => {
            let (k, _) = cx.word_value("expect", kind, &["f2p", "p2p"])?;
            if id.value.trim().is_empty() {
                cx.invalid(
                    id.span,
                    "the expected test id is empty".into(),
                    "empty test id",
                    "write a test id like \"tests/test_x.py::test_name\"".into(),
                );
                return None;
            }
            Some((k, id.value.clone(), stmt.span))
        }
        _ => {
            cx.invalid(
                header_span(stmt),
                "`expect` takes `f2p` or `p2p` and a test id".into(),
                "expected `expect f2p \"<test id>\"`",
                "write `expect f2p \"tests/test_x.py::test_name\"` (or `p2p`)".into(),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Some(90));
        assert_eq!(parse_duration("10m"), Some(600));
        assert_eq!(parse_duration("1h"), Some(3600));
        assert_eq!(parse_duration("45"), Some(45));
        assert_eq!(parse_duration("m"), None);
        assert_eq!(parse_duration("1.5h"), None);
        assert_eq!(parse_duration("ten"), None);
        assert_eq!(parse_duration(""), None);
        assert_eq!(parse_duration("99999999999999999999h"), None);
    }
}
