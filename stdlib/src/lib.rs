//! taskc's standard library: environment recipes (a TOML manifest declaring typed
//! parameters, base image and local variant, plus a tera Dockerfile template each) and the
//! test-surface lists the parsers' descriptors name (`taskc_compiler::parser`). Everything
//! is embedded at build time, so the compiler reads it without I/O.

pub mod surface;

/// One recipe as shipped: `recipes/<name>.toml` and `recipes/<name>.Dockerfile.tera`.
#[derive(Debug, Clone, Copy)]
pub struct RecipeSource {
    pub name: &'static str,
    pub manifest: &'static str,
    pub template: &'static str,
}

macro_rules! recipe {
    ($name:literal) => {
        RecipeSource {
            name: $name,
            manifest: include_str!(concat!("../recipes/", $name, ".toml")),
            template: include_str!(concat!("../recipes/", $name, ".Dockerfile.tera")),
        }
    };
}

/// Every recipe, sorted by name.
pub const RECIPES: &[RecipeSource] = &[
    recipe!("dockerfile"),
    recipe!("generic"),
    recipe!("go"),
    recipe!("java"),
    recipe!("node"),
    recipe!("postgres"),
    recipe!("python"),
    recipe!("rust"),
];

pub fn recipe(name: &str) -> Option<&'static RecipeSource> {
    RECIPES.iter().find(|r| r.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_are_sorted() {
        assert!(RECIPES.windows(2).all(|w| w[0].name < w[1].name));
    }
}
