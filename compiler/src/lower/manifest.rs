//! The stdlib recipe as lowering needs it: the typed manifest ([`crate::recipe`]) plus the
//! digest of the shipped text (manifest and template).

use std::collections::BTreeMap;

use crate::model::ParamValue;
use crate::recipe::Recipe;

use super::LowerError;

/// A recipe as lowering sees it.
#[derive(Debug, Clone)]
pub(crate) struct RecipeManifest {
    pub recipe: &'static Recipe,
    pub defaults: BTreeMap<String, ParamValue>,
    /// sha256 over manifest and template text.
    pub digest: String,
}

/// The embedded recipe `name`.
pub(crate) fn load(name: &str) -> Result<RecipeManifest, LowerError> {
    let Some(recipe) = crate::recipe::recipe(name) else {
        if let Some(e) = crate::recipe::recipe_errors()
            .iter()
            .find(|e| e.recipe == name)
        {
            return Err(LowerError::Manifest {
                recipe: name.to_string(),
                message: e.message.clone(),
            });
        }
        return Err(LowerError::UnknownRecipe {
            name: name.to_string(),
            known: crate::recipe::recipes()
                .iter()
                .map(|r| r.name.clone())
                .collect(),
        });
    };
    let (manifest, template) = taskc_stdlib::recipe(name)
        .map(|s| (s.manifest, s.template))
        .unwrap_or_default();
    let defaults = recipe
        .params
        .iter()
        .filter_map(|p| p.default.clone().map(|d| (p.name.clone(), d)))
        .collect();
    Ok(RecipeManifest {
        recipe,
        defaults,
        digest: crate::plan::canonical_digest("taskc.recipe/1", &(manifest, template)),
    })
}
