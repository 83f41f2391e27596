//! The words of a test command, read for the options that keep canaries from running: an
//! option that selects tests by name, or one that stops the run at its first failure (a
//! failing canary would stop it, and the tests after it would be missing).

/// A command's words, quotes taken off, and an environment assignment's value split in
/// words too (`TESTOPTS="-n /x/"` → `-n`, `/x/`).
pub struct Words(Vec<String>);

impl Words {
    pub fn of(command: &str) -> Words {
        let mut out = Vec::new();
        for w in command.split_whitespace() {
            let w = w.trim_matches(|c| c == '"' || c == '\'');
            // `A=b` assignments: their value.
            let w = match w.split_once('=') {
                Some((k, v))
                    if !k.starts_with('-')
                        && !k.is_empty()
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    v.trim_matches(|c| c == '"' || c == '\'')
                }
                _ => w,
            };
            if !w.is_empty() {
                out.push(w.to_string());
            }
        }
        Words(out)
    }

    /// Whether one of `options` is a word (alone, or `--opt=value`).
    pub fn has(&self, options: &[&str]) -> bool {
        Words::among(&self.0, options)
    }

    /// Whether one of `options` is among `words` (alone, or `--opt=value`).
    pub fn among(words: &[String], options: &[&str]) -> bool {
        words.iter().any(|w| {
            options
                .iter()
                .any(|o| w == o || w.starts_with(&format!("{o}=")))
        })
    }

    /// The words after the first one equal to `word` (all of them when there is none).
    pub fn after(&self, word: &str) -> &[String] {
        match self.0.iter().position(|w| w == word) {
            Some(i) => &self.0[i + 1..],
            None => &self.0,
        }
    }

    pub fn all(&self) -> &[String] {
        &self.0
    }

    /// The reason for a command that selects tests by name with `what`.
    pub fn selects(what: &str) -> String {
        format!(
            "the test command selects tests by name ({what}): canaries placed in the hidden test files would not run"
        )
    }

    /// The reason for a command that stops at its first failing test with `what`.
    pub fn stops(what: &str) -> String {
        format!(
            "the test command stops at its first failing test ({what}): the failing canaries would stop it and the tests after them would be missing"
        )
    }
}
