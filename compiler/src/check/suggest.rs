//! "Did you mean …?": the closest known word to a misspelt one.

/// The candidate closest to `word`, if close enough to be a plausible typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    let mut best: Option<(f64, &'a str)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(&lower, &c.to_ascii_lowercase());
        let dist = strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase());
        let plausible = score >= 0.8 || dist <= 2.max(c.len() / 3);
        if plausible && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c)
}

/// `did you mean `x`? ` (with a trailing space) or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(word, candidates) {
        Some(c) => format!("did you mean `{c}`? "),
        None => String::new(),
    }
}

/// `a`, `b`, `c` — for "known: …" lists.
pub(crate) fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items
        .into_iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_not_strangers() {
        assert_eq!(closest("titel", ["title", "kind", "prompt"]), Some("title"));
        assert_eq!(closest("verfy", ["title", "verify"]), Some("verify"));
        assert_eq!(closest("pytset", ["pytest", "cargo"]), Some("pytest"));
        assert_eq!(closest("zzzzzz", ["title", "kind"]), None);
        assert_eq!(list(["a", "b"]), "`a`, `b`");
    }
}
