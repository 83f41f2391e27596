//! The parts of a stdlib recipe manifest lowering needs: base image, parameter defaults,
//! local variant. Read straight from the embedded TOML (a bad manifest is a stdlib bug,
//! reported as a [`LowerError`], never a panic).

use std::collections::BTreeMap;

use crate::model::ParamValue;

use super::LowerError;

/// A recipe as lowering sees it.
#[derive(Debug, Clone)]
pub(crate) struct RecipeManifest {
    pub name: String,
    pub base_image: String,
    pub defaults: BTreeMap<String, ParamValue>,
    pub local_requires: Vec<String>,
    pub local_env: BTreeMap<String, String>,
    pub local_setup: Vec<String>,
    pub template: &'static str,
    /// sha256 over manifest and template text.
    pub digest: String,
}

fn bad(recipe: &str, message: impl Into<String>) -> LowerError {
    LowerError::Manifest {
        recipe: recipe.to_string(),
        message: message.into(),
    }
}

fn strings(recipe: &str, key: &str, v: Option<&toml::Value>) -> Result<Vec<String>, LowerError> {
    let Some(v) = v else { return Ok(Vec::new()) };
    let arr = v
        .as_array()
        .ok_or_else(|| bad(recipe, format!("`{key}` must be a list of strings")))?;
    arr.iter()
        .map(|x| {
            x.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(recipe, format!("`{key}` must be a list of strings")))
        })
        .collect()
}

fn param_value(recipe: &str, name: &str, v: &toml::Value) -> Result<ParamValue, LowerError> {
    Ok(match v {
        toml::Value::String(s) => ParamValue::Str(s.clone()),
        toml::Value::Integer(i) => ParamValue::Int(
            u64::try_from(*i)
                .map_err(|_| bad(recipe, format!("default of `{name}` is negative")))?,
        ),
        toml::Value::Boolean(b) => ParamValue::Bool(*b),
        toml::Value::Array(_) => ParamValue::List(strings(recipe, name, Some(v))?),
        _ => {
            return Err(bad(
                recipe,
                format!("default of `{name}` has an unsupported type"),
            ))
        }
    })
}

/// Read the embedded recipe `name`.
pub(crate) fn load(name: &str) -> Result<RecipeManifest, LowerError> {
    let src = taskc_stdlib::recipe(name).ok_or_else(|| LowerError::UnknownRecipe {
        name: name.to_string(),
        known: taskc_stdlib::RECIPES
            .iter()
            .map(|r| r.name.to_string())
            .collect(),
    })?;
    let table: toml::Table = src
        .manifest
        .parse()
        .map_err(|e: toml::de::Error| bad(name, e.message().to_string()))?;
    let base_image = table
        .get("base_image")
        .and_then(|v| v.as_str())
        .ok_or_else(|| bad(name, "missing string `base_image`"))?
        .to_string();
    let mut defaults = BTreeMap::new();
    if let Some(params) = table.get("params").and_then(|v| v.as_table()) {
        for (pname, decl) in params {
            if let Some(d) = decl.get("default") {
                defaults.insert(pname.clone(), param_value(name, pname, d)?);
            }
        }
    }
    let local = table.get("local").and_then(|v| v.as_table());
    let local_requires = strings(
        name,
        "local.requires",
        local.and_then(|l| l.get("requires")),
    )?;
    let local_setup = strings(name, "local.setup", local.and_then(|l| l.get("setup")))?;
    let mut local_env = BTreeMap::new();
    if let Some(env) = local.and_then(|l| l.get("env")).and_then(|v| v.as_table()) {
        for (k, v) in env {
            let v = v
                .as_str()
                .ok_or_else(|| bad(name, format!("`local.env.{k}` must be a string")))?;
            local_env.insert(k.clone(), v.to_string());
        }
    }
    let digest = crate::plan::canonical_digest("taskc.recipe/1", &(src.manifest, src.template));
    Ok(RecipeManifest {
        name: name.to_string(),
        base_image,
        defaults,
        local_requires,
        local_env,
        local_setup,
        template: src.template,
        digest,
    })
}
