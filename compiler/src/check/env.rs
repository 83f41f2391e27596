//! `env <recipe> { <param> <value> … }`: the recipe exists, its parameters are declared,
//! typed and complete; defaults are filled in.

use std::collections::BTreeMap;

use crate::codes::Code;
use crate::diagnostic::Diagnostic;
use crate::model::{Environment, ParamValue};
use crate::recipe::{self, ParamDecl, ParamType};
use crate::syntax::ast::{Statement, Value};

use super::fields::header_span;
use super::{suggest, Cx};

pub(crate) fn check_env(cx: &mut Cx<'_>, stmt: &Statement) -> Option<Environment> {
    let known: Vec<&str> = recipe::recipes().iter().map(|r| r.name.as_str()).collect();
    let v = cx.single(stmt, "a recipe name")?;
    let (name, span) = match v {
        Value::Ident(i) => (i.name.as_str(), i.span),
        other => {
            cx.invalid(
                other.span(),
                format!("`env` expects a recipe name, found {}", other.describe()),
                "expected a recipe name",
                format!(
                    "write e.g. `env python {{ … }}`; recipes: {}",
                    suggest::list(known.iter().copied())
                ),
            );
            return None;
        }
    };
    let Some(recipe) = recipe::recipe(name) else {
        if let Some(broken) = recipe::recipe_errors().iter().find(|e| e.recipe == name) {
            cx.emit(
                Diagnostic::new(
                    Code::UnknownRecipe,
                    format!("the stdlib recipe `{name}` is broken: {}", broken.message),
                    cx.label(span, "broken recipe"),
                )
                .with_help("this is a bug in taskc's stdlib, not in the spec: please report it"),
            );
            return None;
        }
        cx.emit(
            Diagnostic::new(
                Code::UnknownRecipe,
                format!("`{name}` is not a stdlib recipe"),
                cx.label(span, "unknown recipe"),
            )
            .with_help(format!(
                "{}known recipes: {}; `generic` takes a Dockerfile fragment for anything else",
                suggest::did_you_mean(name, known.iter().copied()),
                suggest::list(known.iter().copied())
            )),
        );
        return None;
    };
    let mut ok = true;
    let mut given: BTreeMap<String, (ParamValue, &Statement)> = BTreeMap::new();
    let declared: Vec<&str> = recipe.params.iter().map(|p| p.name.as_str()).collect();
    for p in stmt.block.iter().flat_map(|b| b.statements.iter()) {
        let pname = p.name.name.as_str();
        let Some(decl) = recipe.param(pname) else {
            ok = false;
            cx.emit(
                Diagnostic::new(
                    Code::UnknownParam,
                    format!("recipe `{name}` has no parameter `{pname}`"),
                    cx.label(p.name.span, "unknown parameter"),
                )
                .with_help(if declared.is_empty() {
                    format!("recipe `{name}` takes no parameters")
                } else {
                    format!(
                        "{}`{name}` takes: {}",
                        suggest::did_you_mean(pname, declared.iter().copied()),
                        suggest::list(declared.iter().copied())
                    )
                }),
            );
            continue;
        };
        if let Some((_, first)) = given.get(pname) {
            ok = false;
            cx.emit(
                Diagnostic::new(
                    Code::DuplicateField,
                    format!("parameter `{pname}` is given twice"),
                    cx.label(p.name.span, "given again here"),
                )
                .with_label(cx.label(first.name.span, "first given here"))
                .with_help("give each parameter once"),
            );
            continue;
        }
        if decl.ty == ParamType::Contexts {
            match super::contexts::read(cx, name, p) {
                Some(value) => {
                    given.insert(pname.to_string(), (value, p));
                }
                None => ok = false,
            }
            continue;
        }
        cx.no_block(p);
        let Some(v) = cx.single(p, decl.ty.describe()) else {
            ok = false;
            continue;
        };
        let value = match decl.ty {
            ParamType::File | ParamType::Dir => match file_param(cx, decl.ty, pname, v) {
                Loaded::Value(value) => Some(value),
                Loaded::Reported => {
                    ok = false;
                    continue;
                }
                Loaded::WrongShape => None,
            },
            _ => typed(decl.ty, v),
        };
        match value {
            Some(value) => {
                if !decl.code && !safe_words(cx, name, pname, v) {
                    ok = false;
                }
                if !offered(cx, name, decl, &value, v) {
                    ok = false;
                }
                given.insert(pname.to_string(), (value, p));
            }
            None => {
                ok = false;
                cx.emit(
                    Diagnostic::new(
                        Code::ParamType,
                        format!(
                            "parameter `{pname}` of recipe `{name}` is {}, found {}",
                            decl.ty.describe(),
                            found(v)
                        ),
                        cx.label(v.span(), format!("expected {}", decl.ty.describe())),
                    )
                    .with_help(format!(
                        "write e.g. `{pname} {}`{}",
                        example(decl.ty),
                        doc_suffix(&decl.doc)
                    )),
                );
            }
        }
    }
    // Parameters written but wrong were reported already: no "missing" on top.
    let written: Vec<&str> = stmt
        .block
        .iter()
        .flat_map(|b| b.statements.iter())
        .map(|p| p.name.name.as_str())
        .collect();
    let mut params: BTreeMap<String, ParamValue> =
        given.into_iter().map(|(k, (v, _))| (k, v)).collect();
    for decl in &recipe.params {
        if params.contains_key(&decl.name) {
            continue;
        }
        if let Some(d) = &decl.default {
            params.insert(decl.name.clone(), d.clone());
        } else if decl.required {
            ok = false;
            if !cx.syntax_errors && !written.contains(&decl.name.as_str()) {
                cx.emit(
                    Diagnostic::new(
                        Code::MissingParam,
                        format!("recipe `{name}` needs parameter `{}`", decl.name),
                        cx.label(header_span(stmt), format!("`{}` missing", decl.name)),
                    )
                    .with_help(format!(
                        "add `{} {}` inside `env {name} {{ … }}`{}",
                        decl.name,
                        example(decl.ty),
                        doc_suffix(&decl.doc)
                    )),
                );
            }
        }
    }
    let env = Environment {
        recipe: name.to_string(),
        params,
    };
    // A curator's Dockerfile: what its `--from=`/`FROM` name (W1910 with or without
    // contexts), and its named contexts — once every parameter read (a `contexts` block
    // that failed would make every name it declares look unknown).
    if name == "dockerfile" && ok {
        if let Some(ParamValue::File { path, text, .. }) = env.params.get("dockerfile") {
            let source = cx.text_cache.get(path).copied();
            super::contexts::check_dockerfile(cx, env.contexts(), text, source);
        }
    }
    ok.then_some(env)
}

/// Whether every string in `v` (a data parameter) can be written into the recipe as one
/// shell-quoted word; E0705 for each that cannot: a line break or control character would
/// end the Dockerfile instruction, and a list item starting with `-` would be read as an
/// option by the installer (apt-get, pip, npm, …).
fn safe_words(cx: &mut Cx<'_>, recipe: &str, pname: &str, v: &Value) -> bool {
    let items: Vec<(&str, crate::span::Span, bool)> = match v {
        Value::Str(s) => vec![(s.value.as_str(), s.span, false)],
        Value::List(l) => l
            .items
            .iter()
            .filter_map(|i| match i {
                Value::Str(s) => Some((s.value.as_str(), s.span, true)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut ok = true;
    for (text, span, item) in items {
        let why = if text.contains(['\n', '\r']) {
            "contains a line break"
        } else if text.chars().any(|c| c.is_control() && c != '\t') {
            "contains a control character"
        } else if item && text.trim().is_empty() {
            "is empty"
        } else if item && text.starts_with('-') {
            "starts with `-`, so the installer would read it as an option"
        } else {
            continue;
        };
        ok = false;
        cx.emit(
            Diagnostic::new(
                Code::ParamUnsafe,
                format!("a value of parameter `{pname}` of recipe `{recipe}` {why}"),
                cx.label(span, "cannot be written as one word"),
            )
            .with_help("each item is passed to the installer as one quoted word: give one requirement or package per list item, e.g. `packages [\"pytest<9\", \"numpy==1.26.4\"]`; options and commands belong in `setup`"),
        );
    }
    ok
}

/// Whether `value` is one of a closed parameter's choices (`version "3.12"`); E1701 with
/// the offered list when not. Any value passes a parameter without choices.
fn offered(cx: &mut Cx<'_>, recipe: &str, decl: &ParamDecl, value: &ParamValue, v: &Value) -> bool {
    let ParamValue::Str(given) = value else {
        return true;
    };
    if decl.choices.is_empty() || decl.choices.iter().any(|c| &c.value == given) {
        return true;
    }
    let pname = decl.name.as_str();
    let values: Vec<&str> = decl.choices.iter().map(|c| c.value.as_str()).collect();
    cx.emit(
        Diagnostic::new(
            Code::UnsupportedChoice,
            format!("recipe `{recipe}` does not offer {pname} {given:?}"),
            cx.label(v.span(), "not offered"),
        )
        .with_help(format!(
            "{}`{recipe}` offers {pname} {}",
            suggest::did_you_mean(given, values.iter().copied()),
            suggest::list(values.iter().copied())
        )),
    );
    false
}

/// What reading a `file(…)` / `dir(…)` parameter gave.
pub(super) enum Loaded {
    Value(ParamValue),
    /// The call was right but the path was not (already reported).
    Reported,
    /// Not a call of the right name: reported as a type error by the caller.
    WrongShape,
}

/// A `file("…")` or `dir("…")` parameter: read (or hash) it through the loader.
pub(super) fn file_param(cx: &mut Cx<'_>, ty: ParamType, pname: &str, v: &Value) -> Loaded {
    let want = if ty == ParamType::File { "file" } else { "dir" };
    let Value::Call(c) = v else {
        return Loaded::WrongShape;
    };
    if c.name.name != want {
        return Loaded::WrongShape;
    }
    let [Value::Str(s)] = c.args.as_slice() else {
        cx.invalid(
            c.span,
            format!("`{want}(…)` takes one string: the path"),
            "expected one path",
            format!("write `{pname} {want}(\"relative/path\")`"),
        );
        return Loaded::Reported;
    };
    if ty == ParamType::File {
        let Some(f) = cx.read_text(&s.value, s.span, "recipe file") else {
            return Loaded::Reported;
        };
        let digest = super::task::sha256_hex(f.text.as_bytes());
        return Loaded::Value(ParamValue::File {
            path: f.path,
            text: f.text,
            digest,
        });
    }
    let Some(rel) = cx.checked_path(&s.value, s.span, "build context") else {
        return Loaded::Reported;
    };
    match cx.loader.kind(&rel) {
        Ok(crate::loader::EntryKind::Dir) => match cx.loader.dir_digest(&rel) {
            Ok(digest) => Loaded::Value(ParamValue::Dir { path: rel, digest }),
            Err(e) => {
                cx.load_error(e, &rel, s.span, "build context");
                Loaded::Reported
            }
        },
        Ok(crate::loader::EntryKind::File) => {
            cx.invalid(
                s.span,
                format!("the build context `{rel}` is a file, not a folder"),
                "not a folder",
                "name the folder that holds the files the Dockerfile copies".into(),
            );
            Loaded::Reported
        }
        Err(e) => {
            cx.load_error(e, &rel, s.span, "build context");
            Loaded::Reported
        }
    }
}

fn typed(ty: ParamType, v: &Value) -> Option<ParamValue> {
    match (ty, v) {
        (ParamType::String, Value::Str(s)) => Some(ParamValue::Str(s.value.clone())),
        (ParamType::Int, Value::Int(i)) => Some(ParamValue::Int(i.value)),
        (ParamType::Bool, Value::Ident(i)) if i.name == "true" => Some(ParamValue::Bool(true)),
        (ParamType::Bool, Value::Ident(i)) if i.name == "false" => Some(ParamValue::Bool(false)),
        (ParamType::List, Value::List(l)) => l
            .items
            .iter()
            .map(|i| match i {
                Value::Str(s) => Some(s.value.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(ParamValue::List),
        _ => None,
    }
}

fn found(v: &Value) -> String {
    match v {
        Value::List(l) if l.items.iter().any(|i| !matches!(i, Value::Str(_))) => {
            "a list with items that are not strings".into()
        }
        Value::Ident(i) => format!("the name `{}`", i.name),
        other => other.describe().into(),
    }
}

fn example(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String => "\"…\"",
        ParamType::Int => "8",
        ParamType::Bool => "true",
        ParamType::List => "[\"…\", \"…\"]",
        ParamType::File => "file(\"…\")",
        ParamType::Dir => "dir(\"…\")",
        ParamType::Contexts => "{ name dir(\"…\") }",
    }
}

fn doc_suffix(doc: &str) -> String {
    if doc.is_empty() {
        String::new()
    } else {
        format!(" ({doc})")
    }
}
