//! Recipe parameters as shell words: the `sh` filter of the recipe templates. A string
//! becomes one word, a list one word per item, each quoted unless it is made only of
//! characters the shell never interprets. `check` refuses values no quoting makes one safe
//! word (line breaks, control characters, a leading `-`; see `check::env`).

use std::collections::HashMap;

/// `s` as one POSIX shell word.
pub fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The tera filter: a string as one quoted word, a list as quoted words joined by spaces.
pub(crate) fn filter(
    value: &tera::Value,
    _: &HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    match value {
        tera::Value::String(s) => Ok(tera::Value::String(quote(s))),
        tera::Value::Array(items) => {
            let words: Vec<String> = items
                .iter()
                .map(|i| match i {
                    tera::Value::String(s) => Ok(quote(s)),
                    other => Err(tera::Error::msg(format!(
                        "`sh` quotes strings, found {other}"
                    ))),
                })
                .collect::<tera::Result<_>>()?;
            Ok(tera::Value::String(words.join(" ")))
        }
        tera::Value::Number(n) => Ok(tera::Value::String(n.to_string())),
        tera::Value::Bool(b) => Ok(tera::Value::String(b.to_string())),
        other => Err(tera::Error::msg(format!(
            "`sh` quotes strings, found {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn words_are_quoted_when_needed() {
        assert_eq!(quote("pytest"), "pytest");
        assert_eq!(quote("numpy==1.26.4"), "numpy==1.26.4");
        assert_eq!(quote("pytest<9"), "'pytest<9'");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("$(id)"), "'$(id)'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}
