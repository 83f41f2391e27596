//! Stdlib recipe manifests (`stdlib/recipes/<name>.toml`), parsed into typed [`Recipe`]s.
//!
//! A manifest error is a bug in the stdlib: a unit test parses every shipped manifest. At
//! run time a broken manifest is skipped and reported by [`recipe_errors`], never a panic.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::model::ParamValue;

/// One environment recipe: typed parameters, base image, Dockerfile template, local variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    pub name: String,
    pub description: String,
    /// The image the template builds `FROM`.
    pub base_image: String,
    /// Declared parameters, sorted by name.
    pub params: Vec<ParamDecl>,
    /// The tera Dockerfile template, as shipped.
    pub template: String,
    pub local: LocalVariant,
}

impl Recipe {
    pub fn param(&self, name: &str) -> Option<&ParamDecl> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The image the template builds `FROM` for these parameter values: the image a closed
    /// choice names (`python`'s `version "3.12"` → `python:3.12-bookworm`), else
    /// [`Recipe::base_image`].
    pub fn base_image_for(&self, params: &BTreeMap<String, ParamValue>) -> &str {
        for p in &self.params {
            let Some(ParamValue::Str(value)) = params.get(&p.name).or(p.default.as_ref()) else {
                continue;
            };
            if let Some(Choice {
                image: Some(image), ..
            }) = p.choices.iter().find(|c| &c.value == value)
            {
                return image;
            }
        }
        &self.base_image
    }
}

/// One allowed value of a closed string parameter (`[params.<name>.choices]`), and the
/// image it builds on: a named image (`python:3.12-bookworm`, resolved at run time, a
/// site's `[images.map]` may stand in for it) or `None`, the recipe's `base_image`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub image: Option<String>,
}

/// A recipe parameter: name, type, default, whether it must be given, and its documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: String,
    pub ty: ParamType,
    pub default: Option<ParamValue>,
    pub required: bool,
    pub doc: String,
    /// The value is code (a Dockerfile fragment, shell commands), written as it is; every
    /// other value is data, written into the recipe as one shell-quoted word per item.
    pub code: bool,
    /// A closed string parameter's allowed values (empty: any value), sorted;
    /// `check` refuses any other value (E1701) with this list.
    pub choices: Vec<Choice>,
}

/// The type of a recipe parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    String,
    Int,
    Bool,
    /// A list of strings.
    List,
    /// `file("…")`: a file beside the spec, read by the checker; the template sees its text
    /// and the image id hashes its bytes.
    File,
    /// `dir("…")`: a folder beside the spec sent as the Docker build context; the image id
    /// hashes its tree.
    Dir,
    /// `contexts { <name> dir("…") | image("…") | repo(<name>) … }`: named build contexts
    /// of a Dockerfile (`model::NamedContext`).
    Contexts,
}

impl ParamType {
    /// The manifest word (`string`, `int`, `bool`, `list`).
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "int",
            ParamType::Bool => "bool",
            ParamType::List => "list",
            ParamType::File => "file",
            ParamType::Dir => "dir",
            ParamType::Contexts => "contexts",
        }
    }

    /// "a string", "an integer", … for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Int => "an integer",
            ParamType::Bool => "`true` or `false`",
            ParamType::List => "a list of strings",
            ParamType::File => "a file(\"…\")",
            ParamType::Dir => "a dir(\"…\")",
            ParamType::Contexts => "a `{ … }` block of named contexts",
        }
    }

    fn from_word(s: &str) -> Option<ParamType> {
        Some(match s {
            "string" => ParamType::String,
            "int" => ParamType::Int,
            "bool" => ParamType::Bool,
            "list" => ParamType::List,
            "file" => ParamType::File,
            "dir" => ParamType::Dir,
            "contexts" => ParamType::Contexts,
            _ => return None,
        })
    }
}

/// How the environment is reproduced on the local (no container) backend.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LocalVariant {
    /// Programs that must be on `PATH`.
    pub requires: Vec<String>,
    /// Environment variables set for every command.
    pub env: BTreeMap<String, String>,
}

/// A shipped manifest that does not parse (a stdlib bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipeError {
    pub recipe: String,
    pub message: String,
}

impl std::fmt::Display for RecipeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stdlib recipe `{}`: {}", self.recipe, self.message)
    }
}

impl std::error::Error for RecipeError {}

struct Loaded {
    recipes: Vec<Recipe>,
    errors: Vec<RecipeError>,
}

fn loaded() -> &'static Loaded {
    static LOADED: OnceLock<Loaded> = OnceLock::new();
    LOADED.get_or_init(|| {
        let mut recipes = Vec::new();
        let mut errors = Vec::new();
        for src in taskc_stdlib::RECIPES {
            match parse_manifest(src.name, src.manifest, src.template) {
                Ok(r) => recipes.push(r),
                Err(message) => errors.push(RecipeError {
                    recipe: src.name.to_string(),
                    message,
                }),
            }
        }
        Loaded { recipes, errors }
    })
}

/// Every stdlib recipe whose manifest parses, sorted by name.
pub fn recipes() -> &'static [Recipe] {
    &loaded().recipes
}

/// The recipe called `name`, if shipped and valid.
pub fn recipe(name: &str) -> Option<&'static Recipe> {
    recipes().iter().find(|r| r.name == name)
}

/// Manifests that failed to parse (empty unless the stdlib has a bug).
pub fn recipe_errors() -> &'static [RecipeError] {
    &loaded().errors
}

/// Parse one manifest. `name` is the recipe's file name; the manifest's `name` must match.
pub fn parse_manifest(name: &str, manifest: &str, template: &str) -> Result<Recipe, String> {
    let doc: toml::Table = manifest
        .parse()
        .map_err(|e: toml::de::Error| e.to_string())?;
    let get_str = |t: &toml::Table, key: &str, ctx: &str| -> Result<String, String> {
        match t.get(key) {
            Some(toml::Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!(
                "`{ctx}{key}` must be a string, found {}",
                other.type_str()
            )),
            None => Err(format!("missing `{ctx}{key}`")),
        }
    };
    for key in doc.keys() {
        if !["name", "description", "base_image", "params", "local"].contains(&key.as_str()) {
            return Err(format!("unknown key `{key}`"));
        }
    }
    let declared = get_str(&doc, "name", "")?;
    if declared != name {
        return Err(format!(
            "manifest says name = {declared:?}, but the file is `{name}.toml`"
        ));
    }
    let description = get_str(&doc, "description", "")?;
    let base_image = get_str(&doc, "base_image", "")?;

    let mut params = Vec::new();
    match doc.get("params") {
        None => {}
        Some(toml::Value::Table(t)) => {
            for (pname, decl) in t {
                params.push(parse_param(pname, decl)?);
            }
        }
        Some(other) => {
            return Err(format!(
                "`params` must be a table, found {}",
                other.type_str()
            ))
        }
    }

    let local = match doc.get("local") {
        None => LocalVariant::default(),
        Some(toml::Value::Table(t)) => parse_local(t)?,
        Some(other) => {
            return Err(format!(
                "`local` must be a table, found {}",
                other.type_str()
            ))
        }
    };

    Ok(Recipe {
        name: declared,
        description,
        base_image,
        params,
        template: template.to_string(),
        local,
    })
}

fn parse_param(name: &str, decl: &toml::Value) -> Result<ParamDecl, String> {
    let toml::Value::Table(t) = decl else {
        return Err(format!("`params.{name}` must be a table"));
    };
    for key in t.keys() {
        if !["type", "default", "required", "doc", "code", "choices"].contains(&key.as_str()) {
            return Err(format!("unknown key `params.{name}.{key}`"));
        }
    }
    let ty = match t.get("type") {
        Some(toml::Value::String(s)) => ParamType::from_word(s).ok_or_else(|| {
            format!("`params.{name}.type` = {s:?} is not string, int, bool, list, file, dir or contexts")
        })?,
        _ => return Err(format!("`params.{name}.type` is missing or not a string")),
    };
    let required = match t.get("required") {
        None => false,
        Some(toml::Value::Boolean(b)) => *b,
        Some(_) => return Err(format!("`params.{name}.required` must be true or false")),
    };
    let code = match t.get("code") {
        None => false,
        Some(toml::Value::Boolean(b)) => *b,
        Some(_) => return Err(format!("`params.{name}.code` must be true or false")),
    };
    let doc = match t.get("doc") {
        None => String::new(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => return Err(format!("`params.{name}.doc` must be a string")),
    };
    let default = match t.get("default") {
        None => None,
        Some(v) => Some(
            toml_param_value(ty, v)
                .ok_or_else(|| format!("`params.{name}.default` is not {}", ty.describe()))?,
        ),
    };
    if required && default.is_some() {
        return Err(format!(
            "`params.{name}` is required and has a default; keep one"
        ));
    }
    let mut choices = Vec::new();
    match t.get("choices") {
        None => {}
        Some(toml::Value::Table(c)) if ty == ParamType::String && !c.is_empty() => {
            for (value, image) in c {
                let image = image.as_str().ok_or_else(|| {
                    format!("`params.{name}.choices.{value}` must be an image name or \"\"")
                })?;
                choices.push(Choice {
                    value: value.clone(),
                    image: (!image.is_empty()).then(|| image.to_string()),
                });
            }
            if let Some(ParamValue::Str(d)) = &default {
                if !choices.iter().any(|c| &c.value == d) {
                    return Err(format!(
                        "`params.{name}.default` {d:?} is not one of its choices"
                    ));
                }
            }
        }
        Some(_) => {
            return Err(format!(
                "`params.{name}.choices` must be a non-empty table of a string parameter"
            ))
        }
    }
    Ok(ParamDecl {
        name: name.to_string(),
        ty,
        default,
        required,
        doc,
        code,
        choices,
    })
}

fn toml_param_value(ty: ParamType, v: &toml::Value) -> Option<ParamValue> {
    match (ty, v) {
        (ParamType::String, toml::Value::String(s)) => Some(ParamValue::Str(s.clone())),
        (ParamType::Int, toml::Value::Integer(i)) => u64::try_from(*i).ok().map(ParamValue::Int),
        (ParamType::Bool, toml::Value::Boolean(b)) => Some(ParamValue::Bool(*b)),
        (ParamType::List, toml::Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(ParamValue::List),
        _ => None,
    }
}

fn parse_local(t: &toml::Table) -> Result<LocalVariant, String> {
    for key in t.keys() {
        if !["requires", "env"].contains(&key.as_str()) {
            return Err(format!("unknown key `local.{key}`"));
        }
    }
    let requires = match t.get("requires") {
        None => Vec::new(),
        Some(toml::Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or("`local.requires` must be a list of strings")?,
        Some(_) => return Err("`local.requires` must be a list of strings".into()),
    };
    let mut env = BTreeMap::new();
    match t.get("env") {
        None => {}
        Some(toml::Value::Table(e)) => {
            for (k, v) in e {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("`local.env.{k}` must be a string"))?;
                env.insert(k.clone(), s.to_string());
            }
        }
        Some(_) => return Err("`local.env` must be a table of strings".into()),
    }
    Ok(LocalVariant { requires, env })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_manifest_parses() {
        assert!(recipe_errors().is_empty(), "{:?}", recipe_errors());
        assert_eq!(recipes().len(), taskc_stdlib::RECIPES.len());
        for r in recipes() {
            assert!(!r.base_image.is_empty(), "{}", r.name);
            assert!(!r.template.is_empty(), "{}", r.name);
        }
    }

    #[test]
    fn python_manifest_is_typed() {
        let py = recipe("python").expect("python recipe");
        let v = py.param("version").expect("version");
        assert_eq!(v.ty, ParamType::String);
        assert_eq!(v.default, Some(ParamValue::Str("3.11".into())));
        assert!(!v.required);
        assert_eq!(py.param("packages").map(|p| p.ty), Some(ParamType::List));
        assert!(py.local.requires.contains(&"python3".to_string()));
        let g = recipe("generic").expect("generic recipe");
        assert!(g.param("dockerfile").is_some_and(|p| p.required));
    }

    #[test]
    fn bad_manifests_are_errors_not_panics() {
        assert!(parse_manifest("x", "name = 1", "").is_err());
        assert!(
            parse_manifest("x", "name = \"y\"\ndescription=\"\"\nbase_image=\"b\"", "").is_err()
        );
        let bad_ty = "name=\"x\"\ndescription=\"\"\nbase_image=\"b\"\n[params.p]\ntype=\"float\"";
        assert!(parse_manifest("x", bad_ty, "")
            .unwrap_err()
            .contains("float"));
        let bad_default = "name=\"x\"\ndescription=\"\"\nbase_image=\"b\"\n[params.p]\ntype=\"int\"\ndefault=\"3\"";
        assert!(parse_manifest("x", bad_default, "").is_err());
        assert!(parse_manifest("x", "[[[", "").is_err());
    }
}
